package stress

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The forbidden fault's proxy: every write on the lab's objects is
// answered 403 with the authorizer's words, naming the verb and the
// resource; reads go on.
func TestProxyForbidden(t *testing.T) {
	b := newBackend(t)
	p, url := start(t, b)
	p.SetMode(Mode{Intercept: p.forbidden})
	if code, _, err := do(t, "GET", url+tsPath); err != nil || code != 200 {
		t.Errorf("a read: %d %v, want 200", code, err)
	}
	for _, c := range []struct{ method, path, says string }{
		{"PATCH", tsPath + "/x", `teamspaces "x" is forbidden: the service's identity cannot patch resource "teamspaces" in API group "platform.labhub.io"`},
		{"PATCH", tsPath + "/x/status", `cannot patch resource "teamspaces/status"`},
		{"PATCH", "/api/v1/namespaces/team-x/resourcequotas/team-quota", `resourcequotas "team-quota" is forbidden: the service's identity cannot patch resource "resourcequotas" in API group ""`},
		{"POST", "/api/v1/namespaces", `cannot create resource "namespaces"`},
	} {
		code, body, err := do(t, c.method, url+c.path)
		var st struct{ Reason, Message string }
		_ = json.Unmarshal([]byte(body), &st)
		if err != nil || code != 403 || !strings.Contains(st.Message, c.says) || st.Reason != "Forbidden" {
			t.Errorf("%s %s: %d %s %v; want 403 saying %s", c.method, c.path, code, body, err, c.says)
		}
	}
	if b.writes.Load() != 0 {
		t.Errorf("%d writes reached the API server", b.writes.Load())
	}
}

// The throttle fault's proxy: 429 with Retry-After on the lab's objects,
// discovery spared, and a request sent again at once counted early.
func TestProxyThrottle(t *testing.T) {
	b := newBackend(t)
	p, url := start(t, b)
	th := &throttled{last: map[string]time.Time{}}
	p.SetMode(Mode{Intercept: func(w http.ResponseWriter, r *http.Request) bool { return p.throttle(w, r, th) }})
	for range 3 {
		if code, body, _ := do(t, "GET", url+tsPath); code != 429 || !strings.Contains(body, "TooManyRequests") {
			t.Errorf("GET: %d %s, want 429", code, body)
		}
	}
	if code, _, _ := do(t, "GET", url+"/apis"); code != 200 {
		t.Errorf("discovery: %d, want 200", code)
	}
	if th.requests.Load() != 3 || th.early.Load() != 2 {
		t.Errorf("requests %d, early %d; want 3, 2", th.requests.Load(), th.early.Load())
	}
}

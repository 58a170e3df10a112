package stress

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// backend is an httptest API server: it records what reaches it and
// answers a TeamSpace whose resourceVersion grows with every write.
type backend struct {
	srv    *httptest.Server
	hits   atomic.Int64
	writes atomic.Int64
	mu     sync.Mutex
	auth   []string
}

func newBackend(t *testing.T) *backend {
	b := &backend{}
	b.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.hits.Add(1)
		b.mu.Lock()
		b.auth = append(b.auth, r.Header.Get("Authorization"))
		b.mu.Unlock()
		if r.URL.Query().Get("watch") == "true" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(200)
			w.(http.Flusher).Flush()
			<-r.Context().Done()
			return
		}
		if r.Method != http.MethodGet {
			b.writes.Add(1)
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"metadata":{"resourceVersion":"`+strconv.FormatInt(b.writes.Load(), 10)+`"}}`)
	}))
	t.Cleanup(b.srv.Close)
	return b
}

// start is a proxy in front of b, and the client that reaches it.
func start(t *testing.T, b *backend) (*Proxy, string) {
	t.Helper()
	p, err := NewProxy(&rest.Config{Host: b.srv.URL, BearerToken: "real-token", TLSClientConfig: rest.TLSClientConfig{Insecure: true}})
	if err != nil {
		t.Fatal(err)
	}
	url, err := p.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	proxies.Store(url, p)
	return p, url
}

// proxies are the started proxies by server URL: do finds the token and
// the CA of the one it calls there.
var proxies sync.Map

// clientOf trusts p's CA alone, as the proxy's kubeconfig says.
func clientOf(p *Proxy) *http.Client {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(p.CA())
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
}

// proxyOf is the proxy serving url.
func proxyOf(t *testing.T, url string) *Proxy {
	t.Helper()
	var found *Proxy
	proxies.Range(func(k, v any) bool {
		if strings.HasPrefix(url, k.(string)+"/") {
			found = v.(*Proxy)
		}
		return found == nil
	})
	if found == nil {
		t.Fatalf("no proxy serves %s", url)
	}
	return found
}

const tsPath = "/apis/platform.labhub.io/v1alpha1/teamspaces"

// do sends a request with the proxy's token, as its kubeconfig's client.
func do(t *testing.T, method, url string) (int, string, error) {
	t.Helper()
	return doAs(t, method, url, proxyOf(t, url).Token())
}

// doAs sends a request with token as its bearer ("": none).
func doAs(t *testing.T, method, url, token string) (int, string, error) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader("{}"))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := clientOf(proxyOf(t, url)).Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), nil
}

func TestProxyPassesThroughWithTheServicesCredentials(t *testing.T) {
	b := newBackend(t)
	p, url := start(t, b)
	code, body, err := do(t, "GET", url+tsPath)
	if err != nil || code != 200 || !strings.Contains(body, "resourceVersion") {
		t.Fatalf("GET through the proxy: %d %q %v", code, body, err)
	}
	if code, _, _ := do(t, "PATCH", url+tsPath+"/x"); code != 200 {
		t.Errorf("PATCH: %d, want 200", code)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, a := range b.auth {
		if a != "Bearer real-token" {
			t.Errorf("the backend saw Authorization %q, want the service's own token", a)
		}
	}
	if c := p.Counts(); c.Requests != 2 || c.Writes != 1 || c.Lists != 1 {
		t.Errorf("counts %+v, want 2 requests, 1 write, 1 list", c)
	}
}

// Without the run's token, or with another, nothing reaches the API
// server; the token is not in the server URL, and plain HTTP is not
// served.
func TestProxyRefusesAnotherToken(t *testing.T) {
	b := newBackend(t)
	p, url := start(t, b)
	for _, token := range []string{"", "real-token", p.Token()[1:], p.Token() + "x", strings.ToUpper(p.Token())} {
		if code, _, err := doAs(t, "GET", url+tsPath, token); code != http.StatusUnauthorized {
			t.Errorf("GET with token %q: %d %v, want 401", token, code, err)
		}
	}
	if strings.Contains(url, p.Token()) {
		t.Errorf("the server URL %s carries the token", url)
	}
	if resp, err := http.Get("http://" + strings.TrimPrefix(url, "https://") + tsPath); err == nil {
		resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Errorf("plain HTTP: %d, want a refusal", resp.StatusCode)
		}
	}
	if b.hits.Load() != 0 {
		t.Errorf("%d requests without the token reached the API server", b.hits.Load())
	}
}

func TestProxyFaults(t *testing.T) {
	TimeoutHold, DropAfter = 20*time.Millisecond, 50*time.Millisecond
	for _, c := range []struct {
		name     string
		mode     Mode
		method   string
		path     string
		wantCode int  // 0: the connection ends without an answer
		reaches  bool // the request reaches the API server
	}{
		{"conflict answers a write 409, unsent", Mode{Conflict: 1}, "PATCH", tsPath + "/x", 409, false},
		{"conflict lets a read through", Mode{Conflict: 1}, "GET", tsPath, 200, true},
		{"error answers 500, unsent", Mode{Error: 1}, "GET", tsPath + "/x", 500, false},
		{"error spares discovery", Mode{Error: 1}, "GET", "/api", 200, true},
		{"timeout lands the write and loses its answer", Mode{Timeout: 1}, "POST", tsPath, 0, true},
		{"drop closes the connection, unsent", Mode{Drop: 1}, "GET", "/api/v1/namespaces/team-x", 0, false},
		{"latency still answers", Mode{Latency: 10 * time.Millisecond}, "GET", tsPath, 200, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b := newBackend(t)
			p, url := start(t, b)
			p.SetMode(c.mode)
			code, _, err := do(t, c.method, url+c.path)
			if c.wantCode == 0 {
				if err == nil {
					t.Errorf("got %d, want the connection closed without an answer", code)
				}
			} else if err != nil || code != c.wantCode {
				t.Errorf("got %d (%v), want %d", code, err, c.wantCode)
			}
			if got := b.hits.Load() > 0; got != c.reaches {
				t.Errorf("reached the API server: %v, want %v", got, c.reaches)
			}
		})
	}
}

func TestProxyStaleServesAnEarlierAnswer(t *testing.T) {
	b := newBackend(t)
	p, url := start(t, b)
	p.SetMode(Mode{Stale: 1})
	_, first, _ := do(t, "GET", url+tsPath+"/x")
	do(t, "PATCH", url+tsPath+"/x") // the object moves on
	_, second, _ := do(t, "GET", url+tsPath+"/x")
	if !strings.Contains(first, `"resourceVersion":"0"`) || second != first {
		t.Errorf("reads %q then %q, want the first answer (resourceVersion 0) served again", first, second)
	}
	p.SetMode(Mode{})
	if _, fresh, _ := do(t, "GET", url+tsPath+"/x"); !strings.Contains(fresh, `"resourceVersion":"1"`) {
		t.Errorf("without the fault: %q, want resourceVersion 1", fresh)
	}
	if n := p.Counts().Injected["stale"]; n != 1 {
		t.Errorf("%d stale answers counted, want 1", n)
	}
}

func TestProxyDropEndsAWatch(t *testing.T) {
	TimeoutHold, DropAfter = 20*time.Millisecond, 50*time.Millisecond
	b := newBackend(t)
	p, url := start(t, b)
	p.SetMode(Mode{Drop: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", url+tsPath+"?watch=true", nil)
	req.Header.Set("Authorization", "Bearer "+p.Token())
	resp, err := clientOf(p).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body) // returns once the proxy ends the stream
	resp.Body.Close()
	if ctx.Err() != nil {
		t.Fatal("the watch was not dropped within 5 s")
	}
	if n := p.Counts().Injected["drop"]; n != 1 {
		t.Errorf("%d drops counted, want 1", n)
	}
}

func TestProxyKillsAfterTheNthWrite(t *testing.T) {
	b := newBackend(t)
	p, url := start(t, b)
	var killed atomic.Int64
	p.Kill = func() { killed.Store(b.writes.Load()) }
	p.SetMode(Mode{KillAt: 2})
	if code, _, err := do(t, "PATCH", url+tsPath+"/x"); err != nil || code != 200 {
		t.Fatalf("first write: %d %v", code, err)
	}
	if _, _, err := do(t, "PATCH", url+tsPath+"/x"); err == nil {
		t.Error("the second write was answered: its writer was to be killed first")
	}
	if killed.Load() != 2 {
		t.Errorf("killed when %d writes had landed, want 2 (after the second landed)", killed.Load())
	}
	if _, _, err := do(t, "PATCH", url+tsPath+"/x"); err != nil {
		t.Errorf("third write: %v, want it answered (one kill per mode)", err)
	}
}

func TestParseFaults(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    string
		wantErr bool
	}{
		{"", strings.Join(Faults, ","), false},
		{"all", strings.Join(Faults, ","), false},
		{"burst, kill9,burst", "burst,kill9", false},
		{"all,blackhole", strings.Join(Faults, ",") + ",blackhole", false},
		{"throttle,all", "throttle," + strings.Join(Faults, ","), false},
		{"kill", "", true},
	} {
		got, err := ParseFaults(c.in)
		if (err != nil) != c.wantErr || (err == nil && strings.Join(got, ",") != c.want) {
			t.Errorf("ParseFaults(%q) = %v, %v; want %q (error %v)", c.in, got, err, c.want, c.wantErr)
		}
	}
}

// TestLabObject: the quiet window counts writes of the lab's objects
// only, never an Event or a Lease the controller writes of its own.
func TestLabObject(t *testing.T) {
	for path, want := range map[string]bool{
		"/apis/platform.labhub.io/v1alpha1/teamspaces/alpha": true,
		"/api/v1/namespaces":                                           true,
		"/api/v1/namespaces/team-alpha":                                true,
		"/api/v1/namespaces/team-alpha/resourcequotas/team-quota":      true,
		"/api/v1/namespaces/default/events":                            false,
		"/api/v1/namespaces/team-alpha/events/x.1":                     false,
		"/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/x": false,
	} {
		if got := labObject(strings.TrimSuffix(shortPath(path), "/status")); got != want {
			t.Errorf("labObject(%s) = %v, want %v", path, got, want)
		}
	}
}

// A blackhole holds a request unanswered, the connection open and
// nothing sent on, until Release hangs it up (no answer even then); the
// mode's end alone does not answer it, and a request after it passes.
func TestProxyBlackholeHoldsUntilRelease(t *testing.T) {
	b := newBackend(t)
	p, url := start(t, b)
	p.SetMode(Mode{Blackhole: true})
	type answer struct {
		code int
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		code, _, err := do(t, "GET", url+tsPath)
		got <- answer{code, err}
	}()
	select {
	case a := <-got:
		t.Fatalf("a blackholed request was answered: %d %v", a.code, a.err)
	case <-time.After(500 * time.Millisecond):
	}
	p.SetMode(Mode{})
	select {
	case a := <-got:
		t.Fatalf("the mode's end answered a held request: %d %v", a.code, a.err)
	case <-time.After(300 * time.Millisecond):
	}
	if code, _, err := do(t, "GET", url+tsPath); code != 200 {
		t.Errorf("a request after the blackhole: %d %v, want 200", code, err)
	}
	p.Release()
	select {
	case a := <-got:
		if a.err == nil {
			t.Errorf("a released request got an answer %d, want its connection closed", a.code)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Release did not hang up the held request")
	}
	if n := b.hits.Load(); n != 1 {
		t.Errorf("the backend saw %d requests, want 1 (the held one never sent on)", n)
	}
	if c := p.Counts(); c.Injected["blackhole"] != 1 {
		t.Errorf("injected %v, want 1 blackhole", c.Injected)
	}
}

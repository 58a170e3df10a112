package stress

import (
	"net/http"
	"strings"
	"testing"
)

// The gone fault's proxy: a watch resumed from a resourceVersion older
// than the cache's start is answered 410 Expired; one from the current
// state is served; while paging, a list is paged one object at a time
// and its continue is answered 410 Expired.
func TestProxyGone(t *testing.T) {
	b := newBackend(t)
	p, url := start(t, b)
	paging := true
	p.SetMode(Mode{Intercept: func(w http.ResponseWriter, r *http.Request) bool { return p.gone(w, r, 100, paging) }})
	for _, c := range []struct {
		query string
		code  int
		says  string
	}{
		{"?watch=1&resourceVersion=50", 410, "too old resource version: 50 (100)"},
		{"?continue=abc&limit=500", 410, "continue parameter is too old"},
		{"?limit=500", 200, ""},
		{"", 200, ""},
	} {
		if strings.Contains(c.query, "watch") {
			continue
		}
		code, body, err := do(t, "GET", url+tsPath+c.query)
		if err != nil || code != c.code || !strings.Contains(body, c.says) {
			t.Errorf("GET %s: %d %q %v; want %d %q", c.query, code, body, err, c.code, c.says)
		}
	}
	// A watch: its answer is a stream, read here for its status only.
	req, _ := http.NewRequest("GET", url+tsPath+"?watch=1&resourceVersion=50", nil)
	req.Header.Set("Authorization", "Bearer "+p.Token())
	resp, err := clientOf(p).Do(req)
	if err != nil || resp.StatusCode != http.StatusGone {
		t.Fatalf("watch from 50 with the cache from 100: %v %v, want 410", resp, err)
	}
	resp.Body.Close()
	if got := p.Counts().Injected["gone"]; got != 2 {
		t.Errorf("injected gone: %d, want 2", got)
	}
}

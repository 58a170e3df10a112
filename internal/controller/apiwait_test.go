package controller

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"
)

// TestAPIWaitHoldsGETsThrough503 covers the path the outage test in
// test/faults rarely hits: a server that answers 503 while it starts. The
// GET must come back with the real answer once /readyz does, onBack must
// run once, and a write must not be held.
func TestAPIWaitHoldsGETsThrough503(t *testing.T) {
	var ready atomic.Bool
	var gets, posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/readyz" && ready.Load():
			io.WriteString(w, "ok")
		case r.URL.Path == "/readyz":
			http.Error(w, "not ready", http.StatusInternalServerError)
		case r.Method == http.MethodPost:
			posts.Add(1)
			http.Error(w, "starting", http.StatusServiceUnavailable)
		case !ready.Load():
			gets.Add(1)
			http.Error(w, "starting", http.StatusServiceUnavailable)
		default:
			gets.Add(1)
			io.WriteString(w, "listed")
		}
	}))
	defer srv.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	backs := make(chan time.Duration, 4)
	rc, err := withAPIWait(ctx, &rest.Config{Host: srv.URL}, slog.New(slog.NewTextHandler(io.Discard, nil)),
		func(d time.Duration) { backs <- d })
	if err != nil {
		t.Fatal(err)
	}
	rt, err := rest.TransportFor(rc)
	if err != nil {
		t.Fatal(err)
	}

	// A write fails at once with the server's answer.
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/v1/namespaces", nil)
	resp, err := rt.RoundTrip(req)
	if err != nil || resp.StatusCode != http.StatusServiceUnavailable || posts.Load() != 1 {
		t.Fatalf("POST: got %v, %v after %d posts; want 503 after 1, not held", resp, err, posts.Load())
	}
	resp.Body.Close()

	time.AfterFunc(300*time.Millisecond, func() { ready.Store(true) })
	req, _ = http.NewRequest(http.MethodGet, srv.URL+"/api/v1/namespaces", nil)
	start := time.Now()
	resp, err = rt.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(body) != "listed" {
		t.Fatalf("GET: got %d %q, want 200 \"listed\"", resp.StatusCode, body)
	}
	if waited := time.Since(start); waited < 300*time.Millisecond || waited > 300*time.Millisecond+2*probeMax {
		t.Errorf("GET waited %s, want from 300 ms (ready) to %s", waited, 300*time.Millisecond+2*probeMax)
	}
	if n := gets.Load(); n != 2 {
		t.Errorf("GETs sent: %d, want 2 (the 503 and one retry once ready, not a retry loop)", n)
	}
	select {
	case <-backs:
	case <-time.After(time.Second):
		t.Fatal("onBack did not run")
	}
	if len(backs) != 0 {
		t.Errorf("onBack ran %d more times, want once per outage", len(backs))
	}
}

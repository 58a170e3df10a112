package controller

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// Bounds of the readiness probe while the API server is unreachable: quick
// enough to catch a restarted local kube-apiserver within half a second, slow
// enough to cost nothing worth mentioning during a long outage.
const (
	probeFirst = 100 * time.Millisecond
	probeMax   = 500 * time.Millisecond
)

// apiWait makes the informers' list and watch requests wait for the API
// server instead of failing while it is unreachable.
//
// Why: a reflector whose list or watch fails backs off on its own schedule
// (0.8 s doubling to 30 s, with jitter), which client-go's informers do not
// let us set. After a 10 s outage that schedule can leave the caches, and
// with them every change made meanwhile, up to 30 s behind a server that is
// already back. Here a failed GET (the only verb informers use) instead
// waits until /readyz answers and is then sent again, so the reflector
// never sees the outage and resumes its watch at once. One probe loop
// serves every waiting request, and the outage is logged twice (down, back)
// instead of once per retry.
//
// Only GETs are held: they are safe to send again, and the workers' writes
// go through other clients, fail fast and are retried by the workqueue.
type apiWait struct {
	ctx    context.Context // ends the probe loop when the controller stops
	readyz string
	log    *slog.Logger
	// onBack runs once each time the API server answers again after an
	// outage.
	onBack func(down time.Duration)

	mu      sync.Mutex
	waiting chan struct{} // closed when the current outage ends; nil while up
}

// waitingTransport is apiWait in front of one client's transport; the
// clients built from one config share their apiWait, so an outage is
// probed and logged once.
type waitingTransport struct {
	*apiWait
	next http.RoundTripper
}

// withAPIWait returns a copy of rc whose GET requests wait out outages.
func withAPIWait(ctx context.Context, rc *rest.Config, log *slog.Logger, onBack func(time.Duration)) (*rest.Config, error) {
	base, _, err := rest.DefaultServerUrlFor(rc)
	if err != nil {
		return nil, err
	}
	base.Path += "/readyz"
	w := &apiWait{ctx: ctx, readyz: base.String(), log: log, onBack: onBack}
	out := rest.CopyConfig(rc)
	out.Wrap(func(next http.RoundTripper) http.RoundTripper { return waitingTransport{w, next} })
	return out, nil
}

func (w waitingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet {
		return w.next.RoundTrip(req)
	}
	for {
		resp, err := w.next.RoundTrip(req.Clone(req.Context()))
		if err == nil && resp.StatusCode != http.StatusServiceUnavailable {
			return resp, nil
		}
		if req.Context().Err() != nil {
			return resp, err
		}
		why := "connection"
		if err == nil {
			// 503: the server is starting or shutting down; retry it the
			// same way once it reports ready.
			why = resp.Status
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
		}
		select {
		case <-w.outage(w.next, why, err):
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
	}
}

// outage returns a channel closed when the API server is ready again,
// starting the probe loop if this is the first request to notice.
func (w *apiWait) outage(rt http.RoundTripper, why string, err error) <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.waiting == nil {
		w.waiting = make(chan struct{})
		w.log.Warn("API server unreachable; list and watch requests wait until it is ready",
			"reason", why, "err", err)
		go w.probe(rt, w.waiting)
	}
	return w.waiting
}

// probe polls /readyz until the server answers below 500, then releases
// every waiting request. The requests it holds carry their own contexts and
// leave when those end; the loop itself ends with the controller.
func (w *apiWait) probe(rt http.RoundTripper, done chan struct{}) {
	start := time.Now()
	for delay := probeFirst; ; delay = min(2*delay, probeMax) {
		select {
		case <-time.After(delay):
		case <-w.ctx.Done():
			return
		}
		ctx, cancel := context.WithTimeout(w.ctx, probeMax)
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, w.readyz, nil)
		resp, err := rt.RoundTrip(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
		}
		cancel()
		// Any answer below 500 means the server is serving (a 403 only says
		// this identity may not read /readyz).
		if err == nil && resp.StatusCode < 500 {
			break
		}
	}
	down := time.Since(start)
	w.log.Info("API server is back; informers resume their watches", "after", down.Round(time.Millisecond).String())
	w.mu.Lock()
	w.waiting = nil
	close(done)
	w.mu.Unlock()
	if w.onBack != nil {
		w.onBack(down)
	}
}

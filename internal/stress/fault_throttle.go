package stress

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
)

// The throttle fault: API Priority and Fairness has no seat left for the
// controller's flow, and every request on the lab's objects is answered
// 429 Too Many Requests with Retry-After: 2 for the hold. A client that
// waits Retry-After, as client-go (kubectl, the go engine) does by
// itself, sends fewer requests than before; one that retries at once
// storms the API server that is already overloaded. First the hold
// without the fault, to count the rate before.
func init() { customs["throttle"] = throttleFault }

// retryAfter is the Retry-After the throttle answers with.
const retryAfter = 2 * time.Second

// throttled counts what the throttle saw: requests on the lab's objects,
// and those sent again before the Retry-After of the 429 that the same
// request got had passed.
type throttled struct {
	requests, early atomic.Int64
	mu              sync.Mutex
	last            map[string]time.Time // request → its last 429
}

func throttleFault(ctx context.Context, r *runner) ([]deletion, afterFault) {
	var before atomic.Int64
	r.proxy.SetMode(Mode{Intercept: func(_ http.ResponseWriter, req *http.Request) bool {
		if onObjects(req.URL.Path) {
			before.Add(1)
		}
		return false
	}})
	defer r.proxy.SetMode(Mode{})
	start := time.Now()
	sleep(ctx, r.opts.Hold)
	quiet := time.Since(start)
	t := &throttled{last: map[string]time.Time{}}
	r.proxy.SetMode(Mode{Intercept: func(w http.ResponseWriter, req *http.Request) bool { return r.proxy.throttle(w, req, t) }})
	start = time.Now()
	deleted := r.workload(ctx)
	sleep(ctx, r.opts.Hold/2)
	r.pods = r.pods%9 + 1
	r.editPods(ctx, r.b1, r.pods)
	sleep(ctx, r.opts.Hold/2)
	r.proxy.SetMode(Mode{})
	during := time.Since(start)
	return deleted, afterFault{judge: func(context.Context) []judge.StressFinding {
		rateBefore := float64(before.Load()) / quiet.Seconds()
		rateDuring := float64(t.requests.Load()) / during.Seconds()
		// A storm is a rate that grew for requests sent again too soon:
		// one repeated a moment early is a clock's rounding, not a storm.
		if t.early.Load() <= 3 || rateDuring <= rateBefore {
			return nil
		}
		return []judge.StressFinding{{Property: judge.StressBackoff,
			Found: i18n.T("stress.found.storm", i18n.Args{"During": strconv.FormatFloat(rateDuring, 'f', 1, 64),
				"Before": strconv.FormatFloat(rateBefore, 'f', 1, 64), "Early": t.early.Load(), "RetryAfter": retryAfter}),
			Expected: i18n.T("stress.expected.backoff", i18n.Args{"Before": strconv.FormatFloat(rateBefore, 'f', 1, 64), "RetryAfter": retryAfter})}}
	}}
}

// throttle answers every request on the lab's objects 429 with
// Retry-After, as kube-apiserver's priority and fairness rejects one,
// and counts the requests sent again before their Retry-After passed.
func (p *Proxy) throttle(w http.ResponseWriter, r *http.Request, t *throttled) bool {
	if !onObjects(r.URL.Path) {
		return false
	}
	q := r.URL.Query()
	q.Del("resourceVersion")
	key := r.Method + " " + r.URL.Path + "?" + url.Values(q).Encode()
	now := time.Now()
	t.requests.Add(1)
	t.mu.Lock()
	if last, ok := t.last[key]; ok && now.Sub(last) < retryAfter*9/10 {
		t.early.Add(1)
	}
	t.last[key] = now
	t.mu.Unlock()
	p.inject("throttle")
	w.Header().Set("Retry-After", strconv.Itoa(int(retryAfter/time.Second)))
	status(w, http.StatusTooManyRequests, "TooManyRequests", "Too many requests, please try again later.")
	return true
}

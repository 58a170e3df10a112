package stress

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"sync/atomic"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/teamspace"
)

// The gone fault: the API server's watch cache starts again (an API
// server restart, an etcd compaction), and what it no longer holds is
// Gone. Every watch open is cut; a watch resumed from a resourceVersion
// the cache no longer holds is answered 410 Expired ("too old resource
// version"), from the fault's start until it is judged (a compaction is
// for good); for the fault's hold, lists are paged (limit 1, as a list
// of more than 500 TeamSpaces is) and every continue token is expired
// (410, "The provided continue parameter is too old"). A watching
// controller must list again and watch from the list's resourceVersion;
// one that resumes from the last resourceVersion it saw never hears of a
// change again.
func init() { customs["gone"] = goneFault }

// continueTooOld is kube-apiserver's message for an expired continue
// token (k8s.io/apiserver storage/errors).
const continueTooOld = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."

func goneFault(ctx context.Context, r *runner) ([]deletion, afterFault) {
	// Until the cache has started again (after the workload's first
	// writes) every resumed watch is too old: its controller saw nothing
	// of what is written meanwhile.
	var oldest atomic.Uint64
	oldest.Store(math.MaxUint64)
	var paging atomic.Bool
	paging.Store(true)
	r.proxy.SetMode(Mode{Intercept: func(w http.ResponseWriter, req *http.Request) bool {
		return r.proxy.gone(w, req, oldest.Load(), paging.Load())
	}})
	r.proxy.cutWatches("gone")
	deleted := r.workload(ctx)
	oldest.Store(r.currentRV(ctx))
	sleep(ctx, r.opts.Hold/2)
	r.pods = r.pods%9 + 1
	r.editPods(ctx, r.b1, r.pods)
	sleep(ctx, r.opts.Hold/2)
	paging.Store(false)
	return deleted, afterFault{release: func(context.Context) { r.proxy.SetMode(Mode{}) }}
}

// currentRV is the API server's resourceVersion now (a list's), read
// past the proxy; 0 when it cannot be read (then no watch is too old).
func (r *runner) currentRV(ctx context.Context) uint64 {
	l, err := r.env.Clients.Dynamic.Resource(teamspace.GVR).List(ctx, metav1.ListOptions{Limit: 1})
	if err != nil {
		return 0
	}
	rv, _ := strconv.ParseUint(l.GetResourceVersion(), 10, 64)
	return rv
}

// gone answers for the gone fault: a watch resumed from a
// resourceVersion older than oldest, 410 Expired; while paging, a
// continued list, 410 Expired, and a list that may be paged (it gives a
// limit), paged one object at a time. A watch that starts from the
// current state (no resourceVersion, "0", or sendInitialEvents) is
// served, as kube-apiserver serves it.
func (p *Proxy) gone(w http.ResponseWriter, r *http.Request, oldest uint64, paging bool) bool {
	if r.Method != http.MethodGet || !onObjects(r.URL.Path) {
		return false
	}
	q := r.URL.Query()
	if isWatch(r) {
		rv, err := strconv.ParseUint(q.Get("resourceVersion"), 10, 64)
		if err != nil || rv == 0 || rv >= oldest || q.Get("sendInitialEvents") == "true" {
			return false
		}
		p.inject("gone")
		at := "the cache is starting again"
		if oldest != math.MaxUint64 {
			at = strconv.FormatUint(oldest, 10)
		}
		status(w, http.StatusGone, "Expired", fmt.Sprintf("too old resource version: %d (%s)", rv, at))
		return true
	}
	if !paging {
		return false
	}
	if q.Get("continue") != "" {
		p.inject("gone")
		status(w, http.StatusGone, "Expired", continueTooOld)
		return true
	}
	if q.Get("limit") != "" {
		q.Set("limit", "1")
		r.URL.RawQuery = q.Encode()
	}
	return false
}

// cutWatches ends every open watch now, counted as kind.
func (p *Proxy) cutWatches(kind string) {
	p.mu.Lock()
	var cancels []context.CancelFunc
	for c := range p.watches {
		cancels = append(cancels, *c)
	}
	p.injected[kind] += int64(len(cancels))
	p.mu.Unlock()
	for _, c := range cancels {
		c()
	}
}

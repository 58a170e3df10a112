package stress

import (
	"context"
	"sync"

	"github.com/labhub/cnpa/internal/judge"
)

// custom is a fault that runs itself rather than being one proxy Mode for
// the fault's hold: it injects, changes the workload while it is on, and
// returns what was deleted meanwhile and what comes after.
type custom func(ctx context.Context, r *runner) (deleted []deletion, after afterFault)

// afterFault is what a custom fault does once the common properties are
// judged.
type afterFault struct {
	// judge returns the fault's own findings; they come before the common
	// ones, the first naming the hint's fix.
	judge func(ctx context.Context) []judge.StressFinding
	// release undoes what the fault still holds (a compaction point, a
	// failed unit): after judging, and on every other path by Run's
	// cleanup (runner.releaseAll); once.
	release func(ctx context.Context)
}

// customs are the custom faults by name; each registers itself from its
// own file (fault_<name>.go).
var customs = map[string]custom{}

// hold registers a's release with the runner, so that Run's cleanup runs
// it if the fault does not get to, and returns a with release made once.
func (r *runner) hold(a afterFault) afterFault {
	if a.release == nil {
		return a
	}
	var once sync.Once
	rel := a.release
	a.release = func(ctx context.Context) { once.Do(func() { rel(ctx) }) }
	r.mu.Lock()
	r.releases = append(r.releases, a.release)
	r.mu.Unlock()
	return a
}

// releaseAll runs every release a fault left (Run's cleanup, every path).
func (r *runner) releaseAll(ctx context.Context) {
	r.mu.Lock()
	rels := r.releases
	r.releases = nil
	r.mu.Unlock()
	for _, rel := range rels {
		rel(ctx)
	}
}

package stress

import (
	"context"
	"crypto/rand"
	"encoding/hex"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/teamspace"
)

// workloadState is what a workload fault (poison, recreate:
// faults of what the cluster holds, not of the API server's answers)
// leaves for its judging: TeamSpaces no controller can converge, its own
// promise, and what to remove before the next fault. fault() resets it
// after each fault (workloadDone).
type workloadState struct {
	skip  map[string]bool                                 // left out of converged
	check func(ctx context.Context) []judge.StressFinding // the fault's own promise, once converged
	done  func(ctx context.Context)                       // removes what the fault made
}

// unjudged tells whether TeamSpace name is left out of converged.
func (w *workloadState) unjudged(name string) bool { return w.skip[name] }

// judge is the fault's own promise, if it has one.
func (w *workloadState) judge(ctx context.Context, _ *runner) []judge.StressFinding {
	if w.check == nil {
		return nil
	}
	return w.check(ctx)
}

// workloadDone removes what the fault made and forgets it.
func (r *runner) workloadDone(ctx context.Context) {
	if r.wl.done != nil {
		r.wl.done(ctx)
	}
	r.wl = workloadState{}
}

// randomHex is n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// tr is i18n.T with its arguments as pairs.
func tr(id string, kv ...string) string {
	args := i18n.Args{}
	for i := 0; i+1 < len(kv); i += 2 {
		args[kv[i]] = kv[i+1]
	}
	return i18n.T(id, args)
}

// stillThere tells whether deleted TeamSpace d is still there (by uid: a
// TeamSpace made again under its name is another).
func (r *runner) stillThere(ctx context.Context, d deletion) bool {
	u, err := r.env.Clients.Dynamic.Resource(teamspace.GVR).Get(ctx, d.name, metav1.GetOptions{})
	return err == nil && (d.uid == "" || string(u.GetUID()) == d.uid)
}

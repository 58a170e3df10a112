package check

import (
	"context"
	"time"

	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/teamspace"
)

// What `cnpa stress` (package stress) judges with: the grader's own
// helpers, so that a fault is judged by the same rules as `cnpa check`'s
// probes and a rule keeps one home.

// Unconverged says, per live TeamSpace that is not converged by the lab
// text, what it lacks (the grader's snapshot; a TeamSpace being deleted
// is left out). finalizerOn: ours is owed too.
func Unconverged(ctx context.Context, env *labenv.Env, finalizerOn bool) (map[string]string, error) {
	s, err := readSnapshot(ctx, env, finalizerOn)
	if err != nil {
		return nil, err
	}
	return s.pending, nil
}

// Temps are temporary TeamSpaces with the grader's lifecycle (cnpa-check-*
// names, remembered before they are asked for, removed on every path, a
// deleted one left to the running controller for grace first).
type Temps struct{ t *temps }

// NewTemps starts a set of temporary TeamSpaces; grace is how long the
// running controller gets to release a deleted one.
func NewTemps(env *labenv.Env, grace time.Duration) *Temps {
	return &Temps{t: &temps{env: env, grace: grace}}
}

// Create makes a temporary TeamSpace named name (from lab.TempName).
func (t *Temps) Create(ctx context.Context, name string, pods int64, cpu string, finalizers []string) (*teamspace.TeamSpace, error) {
	return t.t.createNamed(ctx, name, pods, cpu, finalizers)
}

// Cleanup removes every temporary TeamSpace left, their archive records
// and what the grader made; give it a context that outlives Ctrl-C.
func (t *Temps) Cleanup(ctx context.Context) error { return t.t.cleanup(ctx) }

// SweepLeftovers removes the temporary TeamSpaces an earlier run killed
// before its cleanup left.
func (t *Temps) SweepLeftovers(ctx context.Context, progress func(format string, a ...any)) {
	t.t.sweepLeftovers(ctx, progress)
}

package check

import (
	"context"
	"time"

	"github.com/labhub/cnpa/internal/labenv"
)

// What `cnpa stress` (package stress) judges with: the grader's own
// helpers, so that a fault is judged by the same rules as `cnpa check`'s
// probes and a rule keeps one home.

// Unconverged says, per live TeamSpace that is not converged by the lab
// text, what it lacks (the grader's snapshot; a TeamSpace being deleted
// is left out). finalizerOn: ours is owed too.
func Unconverged(ctx context.Context, env *labenv.Env, finalizerOn bool) (map[string]string, error) {
	s, err := ReadSnapshot(ctx, env, finalizerOn)
	if err != nil {
		return nil, err
	}
	return s.Pending, nil
}

// NewTemps starts a set of temporary TeamSpaces; grace is how long the
// running controller gets to release a deleted one.
func NewTemps(env *labenv.Env, grace time.Duration) *Temps {
	return &Temps{t: &temps{env: env, grace: grace}}
}

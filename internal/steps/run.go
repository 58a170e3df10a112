package steps

import (
	"context"

	"github.com/labhub/cnpa/internal/labenv"
)

// Outcome is what a run of several steps left.
type Outcome struct {
	// Results are the steps that ran, in order; a step that ended with an
	// error is there too, its error as its one note.
	Results []*Result
	// Failed is the step that stopped the run (nil when none did), and
	// Err its error when it ended with one (nil when a verdict failed).
	// Err without Failed: a number named no step, and nothing ran.
	Failed *Step
	Err    error
}

// RunAll runs the steps numbered in numbers in order and stops at the
// first that fails: an error, or a verdict that does not hold. Phases per
// step: started(s) (the caller prints its title), run, then done(r) for a
// step that ran to the end (the caller prints its verdicts); either may
// be nil. A later step needs what the earlier ones left, so nothing runs
// after a failure.
func RunAll(ctx context.Context, env *Lab, numbers []int, started func(*Step), done func(*Result)) Outcome {
	var out Outcome
	run := make([]*Step, len(numbers))
	for i, n := range numbers {
		s, err := env.Steps.Get(n)
		if err != nil {
			out.Err = err
			return out
		}
		run[i] = s
	}
	return runSteps(ctx, env, run, started, done)
}

// runSteps is RunAll on steps already looked up.
func runSteps(ctx context.Context, env *Lab, run []*Step, started func(*Step), done func(*Result)) Outcome {
	var out Outcome
	// While a step runs, nothing else may act on the lab: cnpa watch reads
	// this mark and waits (a probe beside step 7 would act as the
	// controller it has stopped). Failing to mark costs only that.
	dir := ""
	if env != nil && env.Env != nil {
		dir = env.Dir
		defer labenv.UnmarkRunning(dir)
	}
	for _, s := range run {
		if dir != "" {
			_ = labenv.MarkRunning(dir, s.Number)
		}
		if started != nil {
			started(s)
		}
		r, err := s.Run(ctx, env, s)
		if err != nil {
			out.Results = append(out.Results, &Result{Step: s.Number, Title: s.EnglishTitle(), Notes: []string{"error: " + err.Error()}})
			out.Failed, out.Err = s, err
			return out
		}
		if r.Kept && !env.State.OnDisk() {
			// The state file was removed (the fix for a damaged one): a
			// step that keeps its evidence writes it again all the same.
			if err := env.SaveState(); err != nil {
				out.Results = append(out.Results, &Result{Step: s.Number, Title: s.EnglishTitle(), Notes: []string{"error: " + err.Error()}})
				out.Failed, out.Err = s, err
				return out
			}
		}
		out.Results = append(out.Results, r)
		if done != nil {
			done(r)
		}
		if !r.OK() {
			out.Failed = s
			return out
		}
	}
	return out
}

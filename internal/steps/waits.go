package steps

// The waits every run shares: a poll with its live line on the progress
// printer (WaitFor), or a live line for a wait the run reads itself
// (StartWait, a watch). Why each wait takes the time it takes is the run's
// own word, a message id of the catalog (steps.why.*), said in the chosen
// language when the wait starts.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/labhub/cnpa/internal/poll"
	"github.com/labhub/cnpa/internal/ui"
)

// WaitFor polls cond every 100 ms until it is done, showing live what is
// awaited, why it takes time (why; "" when it should not) and the elapsed
// time. On timeout the error carries the last observed values cond
// reported, never a bare "timed out".
// Every run that waits on the cluster waits through it, so that every
// wait looks and ends alike.
func WaitFor(ctx context.Context, env *Lab, what, why string, cond poll.Observe) (time.Duration, error) {
	start := time.Now()
	w := StartWait(env, what, why)
	_, err := poll.Until(ctx, 100*time.Millisecond, env.Timeout, cond)
	var timeout *poll.TimeoutError
	switch {
	case err != nil && ctx.Err() != nil:
		// Ctrl-C, not the deadline: say so, never "gave up after 5s".
		w.Done(Say("steps.outcome.interrupted"))
		return time.Since(start), fmt.Errorf("%s: %w", Say("steps.wait.while", "What", what), ctx.Err())
	case errors.As(err, &timeout):
		w.Done(Say("steps.outcome.gave_up"))
		return time.Since(start), errors.New(Say("steps.wait.gave_up", "What", what, "Took", time.Since(start).Round(time.Second),
			"Last", orNothing(timeout.Last)) + controllerOutput(ctx, env))
	case err != nil:
		w.Done(Say("steps.outcome.failed"))
		return time.Since(start), fmt.Errorf("%s: %w", Say("steps.wait.failed", "What", what), err)
	}
	return w.Done(Say("steps.outcome.done")), nil
}

// StartWait shows a live wait on the progress printer (stderr).
// Exported for the runs that read a watch themselves (steps 5 to 7).
func StartWait(env *Lab, what, why string) *ui.Wait {
	p := env.Progress
	if p == nil {
		p = ui.New(io.Discard, true)
	}
	if why != "" {
		why = Say(why)
	}
	return p.Wait(what, why)
}

func orNothing(last string) string {
	if last == "" {
		return Say("steps.wait.nothing_yet")
	}
	return last
}

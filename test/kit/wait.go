package kit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// Interval is how often the waits poll.
const Interval = 100 * time.Millisecond

// errNotChecked stands for the last observation before the first one.
var errNotChecked = errors.New("not checked yet")

// Eventually polls check until it returns nil, at most timeout, and returns
// how long that took. On the deadline (or ctx's end) the error carries the
// last observed state, check's last error.
func Eventually(ctx context.Context, timeout time.Duration, check func() error) (time.Duration, error) {
	start := time.Now()
	last := errNotChecked
	err := wait.PollUntilContextTimeout(ctx, Interval, timeout, true, func(context.Context) (bool, error) {
		last = check()
		return last == nil, nil
	})
	if err == nil {
		return time.Since(start), nil
	}
	if ctx.Err() != nil {
		return time.Since(start), fmt.Errorf("%w; last observed: %w", ctx.Err(), last)
	}
	return time.Since(start), fmt.Errorf("not within %s; last observed: %w", timeout, last)
}

// WaitFor polls check until it passes and returns how long that took; on
// the deadline it fails the test with the last observed state (and Diag).
func (e *Env) WaitFor(what string, timeout time.Duration, check func() error) time.Duration {
	e.T.Helper()
	took, err := Eventually(e.Ctx, timeout, check)
	if err != nil {
		e.T.Fatalf("%s: %v%s", what, err, e.diag())
	}
	if took > 10*time.Second {
		e.T.Logf("slow: %s took %s", what, took.Round(time.Millisecond))
	}
	return took
}

// WaitAll polls several checks together until each has passed once and
// returns, for each, how long after ref it first passed; on the deadline it
// fails the test with the last observed state of those still pending.
func (e *Env) WaitAll(ref time.Time, timeout time.Duration, checks map[string]func() error) map[string]time.Duration {
	e.T.Helper()
	took := map[string]time.Duration{}
	last := map[string]error{}
	err := wait.PollUntilContextTimeout(e.Ctx, Interval, timeout, true, func(context.Context) (bool, error) {
		for what, check := range checks {
			if _, ok := took[what]; ok {
				continue
			}
			if last[what] = check(); last[what] == nil {
				took[what] = time.Since(ref)
			}
		}
		return len(took) == len(checks), nil
	})
	if err != nil {
		for what := range checks {
			if _, ok := took[what]; !ok {
				e.T.Errorf("%s: not within %s; last observed: %v", what, timeout, last[what])
			}
		}
		e.T.Fatalf("waiting: %v%s", err, e.diag())
	}
	return took
}

// AllOf is a check that holds when every one of checks does; it reports
// every one that does not.
func AllOf(checks ...func() error) func() error {
	return func() error {
		var errs []error
		for _, c := range checks {
			if err := c(); err != nil {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
}

func (e *Env) diag() string {
	if e.Diag == nil {
		return ""
	}
	return "\n" + e.Diag()
}

// Package poll waits for a condition on live state with a deadline and,
// when the deadline comes first, says what it saw last: STYLE's rule that a
// timeout reports the last observed values, never a bare "timed out". It
// is apimachinery's wait.PollUntilContextTimeout with that memory added.
package poll

import (
	"context"
	"errors"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/labhub/cnpa/internal/i18n"
)

// Observe looks once. done ends the wait; observed says what was seen (""
// keeps what was seen before); err ends the wait with that error, unless
// the wait's context has ended, when it is taken as a symptom of that.
type Observe func(ctx context.Context) (done bool, observed string, err error)

// TimeoutError is a wait that its deadline, or its caller's context, ended
// before observe was done.
type TimeoutError struct {
	// After is how long the wait lasted.
	After time.Duration
	// Last is the last value observed, "" when there was none.
	Last string
}

func (e *TimeoutError) Error() string {
	last := e.Last
	if last == "" {
		last = i18n.T("poll.nothing_yet")
	}
	return i18n.T("poll.gave_up", i18n.Args{"After": e.After.Round(time.Second), "Last": last})
}

// Until calls observe at once and then every interval until it is done,
// it fails, or timeout passes (or ctx ends). It returns the last value
// observed and nil when done, observe's error, or a *TimeoutError.
func Until(ctx context.Context, interval, timeout time.Duration, observe Observe) (last string, err error) {
	start := time.Now()
	var failed error
	err = wait.PollUntilContextTimeout(ctx, interval, timeout, true, func(ctx context.Context) (bool, error) {
		done, observed, err := observe(ctx)
		if observed != "" {
			last = observed
		}
		if err != nil && ctx.Err() == nil && !deadlineSymptom(err) {
			failed = err
			return false, err
		}
		return done, nil
	})
	switch {
	case err == nil:
		return last, nil
	case failed != nil:
		return last, failed
	}
	return last, &TimeoutError{After: time.Since(start), Last: last}
}

// deadlineSymptom tells whether an observation's error is the wait's own
// deadline, met early: client-go's rate limiter refuses a request that
// could not start before the context's deadline ("client rate limiter
// Wait returned an error: rate: Wait(n=1) would exceed context deadline")
// a few milliseconds before the context itself ends. That is the wait
// timing out, reported as such with what was seen last, never as an
// error of the cluster's.
func deadlineSymptom(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "would exceed context deadline")
}

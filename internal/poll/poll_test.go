package poll

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestUntil(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name     string
		observe  func(n int) (bool, string, error) // n counts calls from 1
		wantLast string
		wantErr  string // "" none, "timeout", or a substring
	}{
		{"done at once", func(n int) (bool, string, error) { return true, "ready", nil }, "ready", ""},
		{"done on the third look", func(n int) (bool, string, error) { return n == 3, fmt.Sprint("look ", n), nil }, "look 3", ""},
		{"an error ends the wait", func(n int) (bool, string, error) { return false, "seen", boom }, "seen", "boom"},
		{"empty observed keeps the last", func(n int) (bool, string, error) {
			if n == 1 {
				return false, "first", nil
			}
			return n == 3, "", nil
		}, "first", ""},
		{"the rate limiter's early deadline is the timeout, not an error", func(n int) (bool, string, error) {
			if n == 1 {
				return false, "probe still there", nil
			}
			return false, "", errors.New("client rate limiter Wait returned an error: rate: Wait(n=1) would exceed context deadline")
		}, "probe still there", "timeout"},
		{"timeout keeps the last observed", func(n int) (bool, string, error) { return false, fmt.Sprint("pods=", min(n, 2)), nil }, "pods=2", "timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := 0
			last, err := Until(context.Background(), time.Millisecond, 200*time.Millisecond, func(context.Context) (bool, string, error) {
				n++
				return tt.observe(n)
			})
			if last != tt.wantLast {
				t.Errorf("last: got %q, want %q", last, tt.wantLast)
			}
			var to *TimeoutError
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("err: got %v, want nil", err)
			case tt.wantErr == "timeout" && (!errors.As(err, &to) || to.Last != tt.wantLast || !strings.Contains(err.Error(), "last observed: "+tt.wantLast)):
				t.Errorf("err: got %v, want a *TimeoutError naming %q", err, tt.wantLast)
			case tt.wantErr != "" && tt.wantErr != "timeout" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || errors.As(err, &to)):
				t.Errorf("err: got %v, want %q", err, tt.wantErr)
			}
		})
	}
}

func TestUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	_, err := Until(ctx, time.Millisecond, time.Minute, func(ctx context.Context) (bool, string, error) {
		cancel()
		return false, "", ctx.Err() // an error caused by the end of the wait is not observe's failure
	})
	var to *TimeoutError
	if !errors.As(err, &to) || !strings.Contains(err.Error(), "nothing observed yet") {
		t.Errorf("got %v, want a *TimeoutError with nothing observed", err)
	}
}

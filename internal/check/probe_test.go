package check

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A live check that times out reports the last thing it saw of the
// cluster, not the client-side refusal of a request that the deadline cut
// short (a cold CI run reported "client rate limiter Wait returned an
// error: rate: Wait(n=1) would exceed context deadline").
func TestAwaitKeepsTheLastRealObservation(t *testing.T) {
	calls := 0
	ok, got := Await(context.Background(), 500*time.Millisecond, func(context.Context) (bool, string) {
		calls++
		if calls == 1 {
			return false, "cnpa-check-1 finalizers [example.com/keep platform.labhub.io/cleanup]"
		}
		return false, "get teamspace cnpa-check-1: client rate limiter Wait returned an error: rate: Wait(n=1) would exceed context deadline"
	})
	if ok || !strings.Contains(got, "finalizers [example.com/keep") || strings.Contains(got, "rate limiter") {
		t.Errorf("Await: got %v, %q; want a timeout naming the last real observation", ok, got)
	}
}

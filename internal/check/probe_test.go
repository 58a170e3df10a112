package check

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/internal/judge"
)

// A live check that times out reports the last thing it saw of the
// cluster, not the client-side refusal of a request that the deadline cut
// short (a cold CI run reported "client rate limiter Wait returned an
// error: rate: Wait(n=1) would exceed context deadline").
func TestAwaitKeepsTheLastRealObservation(t *testing.T) {
	calls := 0
	ok, got := await(context.Background(), 500*time.Millisecond, func(context.Context) (bool, string) {
		calls++
		if calls == 1 {
			return false, "cnpa-check-1 finalizers [example.com/keep platform.labhub.io/cleanup]"
		}
		return false, "get teamspace cnpa-check-1: client rate limiter Wait returned an error: rate: Wait(n=1) would exceed context deadline"
	})
	if ok || !strings.Contains(got, "finalizers [example.com/keep") || strings.Contains(got, "rate limiter") {
		t.Errorf("await: got %v, %q; want a timeout naming the last real observation", ok, got)
	}
}

// TestEveryRowHasItsHand: each row of judge's table of probes is filled by
// exactly one probe function here (probe_*.go), the rows a function fills
// are next to each other in the table, and none fills a row that is not in
// it: a new probe is one row there and one function here.
func TestEveryRowHasItsHand(t *testing.T) {
	filled := map[string]int{}
	for first, h := range hands {
		if len(h.rows) == 0 || h.rows[0].ID != first {
			t.Errorf("hand for %s: its first row is not %s", first, first)
			continue
		}
		at := slices.Index(judge.Probes, h.rows[0])
		for i, row := range h.rows {
			filled[row.ID]++
			if at < 0 || at+i >= len(judge.Probes) || judge.Probes[at+i] != row {
				t.Errorf("hand for %s: row %s is not next in judge.Probes", first, row.ID)
			}
			if row.Where != h.rows[0].Where || row.Controller != h.rows[0].Controller {
				t.Errorf("hand for %s: row %s runs elsewhere than its first", first, row.ID)
			}
		}
	}
	for _, p := range judge.Probes {
		if filled[p.ID] != 1 {
			t.Errorf("row %s is filled by %d probe functions, want 1", p.ID, filled[p.ID])
		}
	}
	if !slices.Contains(judge.ProbeIDs, DriftLiveID) || !slices.Contains(judge.RemoteIDs, DriftLiveID) || !judge.ProbeDrift.RunsAt(judge.Local) {
		t.Errorf("the drift probe must run in `cnpa check` and from another machine: probes %v, remote %v", judge.ProbeIDs, judge.RemoteIDs)
	}
}

// TestFinalizerRefusalIsThePolicys: the words the finalizer probe looks
// for in the controller's log are the admission policy's own.
func TestFinalizerRefusalIsThePolicys(t *testing.T) {
	if !strings.Contains(string(assets.Admission), finalizerRefusal) {
		t.Errorf("assets/admission.yaml does not say %q: the finalizer probe would never see the refusal", finalizerRefusal)
	}
}

package step3

import (
	"slices"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/check"
)

// The witness waits three times step 4's convergence, within bounds.
func TestWitnessWait(t *testing.T) {
	for _, c := range []struct{ converged, timeout, want time.Duration }{
		{0, 30 * time.Second, 20 * time.Second},
		{2 * time.Second, 30 * time.Second, 20 * time.Second},
		{8 * time.Second, 30 * time.Second, 24 * time.Second},
		{20 * time.Second, 30 * time.Second, 30 * time.Second},
		{0, 5 * time.Second, 5 * time.Second},
	} {
		if got := witnessWait(c.converged, c.timeout); got != c.want {
			t.Errorf("witnessWait(%s, %s) = %s, want %s", c.converged, c.timeout, got, c.want)
		}
	}
}

// The writes between two snapshots, one line per object; a TeamSpace
// that was not converged before the first run is excused.
func TestDiff(t *testing.T) {
	a := &check.Snapshot{RV: map[string]string{"teamspace/a": "1", "namespace/team-a": "2", "teamspace/b": "3"},
		Owner: map[string]string{"teamspace/a": "a", "namespace/team-a": "a", "teamspace/b": "b"}}
	b := &check.Snapshot{RV: map[string]string{"teamspace/a": "1", "namespace/team-a": "5", "teamspace/b": "4", "resourcequota/team-b/team-quota": "6"},
		Owner: map[string]string{"teamspace/a": "a", "namespace/team-a": "a", "teamspace/b": "b", "resourcequota/team-b/team-quota": "b"}}
	tests := []struct {
		name    string
		excused map[string]string
		want    []string
	}{
		{"nothing excused", nil, []string{"namespace/team-a written (resourceVersion 2→5)", "resourcequota/team-b/team-quota created", "teamspace/b written (resourceVersion 3→4)"}},
		{"b was behind", map[string]string{"b": "quota missing"}, []string{"namespace/team-a written (resourceVersion 2→5)"}},
	}
	for _, tt := range tests {
		if got := diff(a, b, tt.excused); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

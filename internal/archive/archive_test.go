package archive

import (
	"errors"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/teamspace"
)

// TestThenRelease: the order of the protocol and the two policies. The
// writes are stand-ins: what the API server does with them is tested on
// the real one (test/faults TestArchiveCrashSafety, test/lab's reset tests).
func TestThenRelease(t *testing.T) {
	full := errors.New("no space left on device")
	conflict := errors.New("conflict")
	cases := []struct {
		name       string
		finalizers []string
		policy     Policy
		writeErr   error
		releaseErr error
		want       Outcome
		wantErr    error
		// wantSteps are the calls made, in order.
		wantSteps []string
		// wantLeft is the finalizer list released.
		wantLeft []string
	}{
		{name: "not ours: nothing written, nothing released", finalizers: []string{"example.com/other"},
			policy: KeepFinalizer, want: Outcome{}},
		{name: "ours: the record, then ours removed, the others kept", finalizers: []string{"a/x", teamspace.Finalizer, "b/y"},
			policy: KeepFinalizer, want: Outcome{Ours: true, Archived: true, Released: true},
			wantSteps: []string{"write", "release"}, wantLeft: []string{"a/x", "b/y"}},
		{name: "the controller keeps the finalizer when the record fails", finalizers: []string{teamspace.Finalizer},
			policy: KeepFinalizer, writeErr: full, want: Outcome{Ours: true, ArchiveErr: full}, wantErr: full,
			wantSteps: []string{"write"}},
		{name: "reset releases anyway when the record fails", finalizers: []string{teamspace.Finalizer, "b/y"},
			policy: ReleaseAnyway, writeErr: full, want: Outcome{Ours: true, ArchiveErr: full, Released: true},
			wantSteps: []string{"write", "release"}, wantLeft: []string{"b/y"}},
		{name: "a failed release is said, the record stays written", finalizers: []string{teamspace.Finalizer},
			policy: ReleaseAnyway, releaseErr: conflict, want: Outcome{Ours: true, Archived: true}, wantErr: conflict,
			wantSteps: []string{"write", "release"}, wantLeft: []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ts := &teamspace.TeamSpace{ObjectMeta: metav1.ObjectMeta{Name: "beta", UID: "u-1", Finalizers: c.finalizers}}
			ts.Spec.Pods = 3
			var steps []string
			var wrote evidence.ArchiveRecord
			var left []string
			got, err := ThenRelease(ts, c.policy,
				func(rec evidence.ArchiveRecord) error { steps = append(steps, "write"); wrote = rec; return c.writeErr },
				func(f []string) error { steps = append(steps, "release"); left = f; return c.releaseErr })
			if got != c.want || !errors.Is(err, c.wantErr) || (c.wantErr == nil && err != nil) {
				t.Errorf("got %+v, %v; want %+v, %v", got, err, c.want, c.wantErr)
			}
			if !slices.Equal(steps, c.wantSteps) {
				t.Errorf("calls: got %v, want %v", steps, c.wantSteps)
			}
			if c.wantLeft != nil && !slices.Equal(left, c.wantLeft) {
				t.Errorf("finalizers released: got %v, want %v", left, c.wantLeft)
			}
			if len(steps) > 0 && wrote != (evidence.ArchiveRecord{Name: "beta", UID: "u-1", Pods: 3}) {
				t.Errorf("record: got %+v, want beta's name, uid and pods", wrote)
			}
		})
	}
}

package step5

import (
	"context"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/course/step4"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Drift is LAB.md step 5 on temporary TeamSpaces: once they have
// converged, a quota is deleted and must come back with a new uid, and a
// quota's hard.pods is edited to 99 and must go back to spec.pods. Both
// happen in phase 2 (check.PhaseDrift), while no TeamSpace changes, and to the
// other probes' TeamSpaces, so that none more needs serving: step 4's
// quota is deleted and step 6's edited, and both come back in one pass.
// Without step 6's served, both are done to step 4's, one after the
// other; without step 4's probe (`--step 5`, cnpa watch on step 5) to
// two of its own, made at once and served in one pass, so that the
// delete and the edit are again one pass: two passes of a polling loop
// in all, not three. A controller that never made step 4's TeamSpace
// converge is not asked again. Every one of them has spec.pods
// check.DriftPods. When the caller takes the verdict before the run's
// cleanup (Session.RemoveLater), the TeamSpaces are removed by it.
func Drift(ctx context.Context, r *check.Session) []lab.Verdict {
	r.Note(i18n.T("check.progress.drift"))
	return []lab.Verdict{drift(ctx, r)}
}

// drift is Drift's verdict: when it fails, with the refused apply
// the controller's log shows, read before the probe's quotas go (its
// own edit, by cnpa-check, is the field a forceless apply cannot take).
func drift(ctx context.Context, r *check.Session) (v lab.Verdict) {
	tmp, timeout := r.Temps(), r.Timeout()
	want := i18n.T("check.drift.want", i18n.Args{"Pods": check.DriftPods, "Timeout": timeout.String()})
	var own, own2, handed *teamspace.TeamSpace
	ok, seen, unserved := true, "", ""
	defer func() {
		if !v.OK && v.Skip == "" {
			v = check.WithConflict(v, r.Conflict(ctx))
		}
		var names []string
		for _, ts := range []*teamspace.TeamSpace{own, own2, handed} {
			if ts != nil {
				names = append(names, ts.Name)
			}
		}
		r.Phase(ctx, check.PhaseDelete)
		if !r.RemoveLater() {
			_ = tmp.Discard(ctx, names...)
		}
	}()
	if !r.Runs(step4.ProbeConverges) {
		var err error
		if own, err = tmp.New(ctx, check.DriftPods, "250m", nil); err != nil {
			return lab.Holds(false, want, err.Error())
		}
		if own2, err = tmp.New(ctx, check.DriftPods, "250m", nil); err != nil {
			return lab.Holds(false, want, err.Error())
		}
		ok, seen = check.Await(ctx, timeout, func(ctx context.Context) (bool, string) {
			for _, ts := range []*teamspace.TeamSpace{own, own2} {
				if done, seen := served(ctx, r, ts.Name); !done {
					unserved = ts.Name
					return false, seen
				}
			}
			return true, ""
		})
	}
	r.Phase(ctx, check.PhaseDrift)
	if _, failed := r.ConvergeOutcome(); failed {
		if at := r.BlockedAt(); at != "" {
			// Step 5's own mistake stopped step 4's TeamSpace: judged here.
			return lab.Holds(false, want, i18n.T("check.drift.blocked", i18n.Args{"At": at}))
		}
		return lab.Skipped(i18n.T("check.drift.skip", i18n.Args{"ID": step4.ProbeConverges.ID}))
	}
	if !ok {
		return lab.Holds(false, want, i18n.T("check.drift.never_converged", i18n.Args{"Name": unserved, "Seen": seen}))
	}
	deleted, edited := own, own2
	if handed = r.TakeHandedOn(); handed != nil {
		deleted, edited = handed, handed
		if f := r.Borrowed(); f != nil {
			if done, _ := served(ctx, r, f.Name); done {
				edited = f
			}
		}
	}
	if deleted == nil {
		// Step 4's probe ran and converged, but kept its TeamSpace:
		// cannot happen while this probe runs (its hand TakesHandedOn).
		return lab.Holds(false, want, i18n.T("check.drift.skip", i18n.Args{"ID": step4.ProbeConverges.ID}))
	}
	// One quota deleted and the other edited, at once; or, when both are
	// one TeamSpace's, the edit once the deleted quota is back.
	var restored, took time.Duration
	var deleteFailed, editSeen string
	var editErr error
	if deleted == edited {
		if restored, deleteFailed = restoreDeleted(ctx, r, deleted); deleteFailed == "" {
			took, editSeen, editErr = revertEdited(ctx, r, edited)
		}
	} else {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			restored, deleteFailed = restoreDeleted(ctx, r, deleted)
		}()
		took, editSeen, editErr = revertEdited(ctx, r, edited)
		wg.Wait()
	}
	if deleteFailed != "" {
		return lab.Holds(false, want, deleteFailed)
	}
	if failed := reverted(editSeen, editErr, restored); failed != "" {
		return lab.Holds(false, want, failed)
	}
	names := deleted.Name
	if edited != deleted {
		names += ", " + edited.Name
	}
	return lab.Holds(true, want, i18n.T("check.drift.got", i18n.Args{"Name": names, "Restored": ms(restored), "Reverted": ms(took)}))
}

// served tells whether TeamSpace name is converged now, and if not, what
// it lacks.
func served(ctx context.Context, r *check.Session, name string) (bool, string) {
	live, ns, quota, err := check.LiveState(ctx, r.Env(), name)
	switch {
	case err != nil:
		return false, err.Error()
	case live == nil:
		return false, i18n.T("check.ts_gone", i18n.Args{"Name": name})
	}
	p := check.Pending(live, ns, quota, false)
	return p == "", p
}

// ms is d to the millisecond, as the verdicts show it.
func ms(d time.Duration) string { return d.Round(time.Millisecond).String() }

// restoreDeleted deletes ts's quota and waits for it to come back with a
// new uid and hard.pods = spec.pods. It returns how long that took, or
// what went wrong as the verdict says it.
func restoreDeleted(ctx context.Context, r *check.Session, ts *teamspace.TeamSpace) (time.Duration, string) {
	name := ts.Name
	quotas := r.Env().Clients.Kube.CoreV1().ResourceQuotas(teamspace.NamespaceName(name))
	q, err := quotas.Get(ctx, teamspace.QuotaName, metav1.GetOptions{})
	if err != nil {
		return 0, i18n.T("check.drift.delete_failed", i18n.Args{"Err": err.Error()})
	}
	if err := quotas.Delete(ctx, teamspace.QuotaName, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &q.UID}}); err != nil {
		return 0, i18n.T("check.drift.delete_failed", i18n.Args{"Err": err.Error()})
	}
	start := time.Now()
	ok, seen := check.Await(ctx, r.Timeout(), func(ctx context.Context) (bool, string) {
		quota, err := quotas.Get(ctx, teamspace.QuotaName, metav1.GetOptions{})
		switch {
		case err != nil:
			return false, "quota: " + err.Error()
		case quota.UID == q.UID:
			return false, i18n.T("check.drift.still_there")
		}
		got := quota.Spec.Hard[corev1.ResourcePods]
		return got.Value() == ts.Spec.Pods, i18n.T("check.drift.quota_seen", i18n.Args{"UID": quota.UID, "Pods": got.String()})
	})
	if !ok {
		return 0, i18n.T("check.drift.after_delete", i18n.Args{"Seen": name + " " + seen})
	}
	return time.Since(start), ""
}

// revertEdited edits ts's quota to hard.pods 99 and waits for it to go
// back to spec.pods. It returns how long that took; when it did not go
// back, what was last seen (seen), or the edit's own error.
func revertEdited(ctx context.Context, r *check.Session, ts *teamspace.TeamSpace) (took time.Duration, seen string, err error) {
	name := ts.Name
	quotas := r.Env().Clients.Kube.CoreV1().ResourceQuotas(teamspace.NamespaceName(name))
	patch := []byte(`{"spec":{"hard":{"pods":"99"}}}`)
	if _, err := quotas.Patch(ctx, teamspace.QuotaName, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: check.FieldManager}); err != nil {
		return 0, "", err
	}
	start := time.Now()
	ok, seen := check.Await(ctx, r.Timeout(), func(ctx context.Context) (bool, string) {
		quota, err := quotas.Get(ctx, teamspace.QuotaName, metav1.GetOptions{})
		if err != nil {
			return false, "quota: " + err.Error()
		}
		got := quota.Spec.Hard[corev1.ResourcePods]
		return got.Value() == ts.Spec.Pods, name + " hard.pods " + got.String()
	})
	if !ok {
		return 0, seen, nil
	}
	return time.Since(start), "", nil
}

// reverted is the drift verdict's failure for revertEdited's outcome, ""
// when the edit went back; restored is the delete's restore time.
func reverted(seen string, err error, restored time.Duration) string {
	switch {
	case err != nil:
		return i18n.T("check.drift.edit_failed", i18n.Args{"Err": err.Error()})
	case seen != "":
		return i18n.T("check.drift.not_reverted", i18n.Args{"Restored": ms(restored), "Seen": seen})
	}
	return ""
}

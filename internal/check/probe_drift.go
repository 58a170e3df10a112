package check

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/teamspace"
)

var _ = fills(probeDrift, judge.ProbeDrift)

// DriftLiveID is the drift probe's check: LAB.md step 5 done again on a
// temporary TeamSpace, for a grader who cannot trust drift.json.
var DriftLiveID = judge.ProbeDrift.ID

// probeDrift is LAB.md step 5 on a temporary TeamSpace: once it has
// converged, its quota is deleted and must come back with a new uid; then
// its hard.pods is edited to 99 and must go back to spec.pods. Its
// TeamSpace is gone again when it returns. A controller that never made
// step 4's TeamSpace converge is not asked again.
func probeDrift(ctx context.Context, r *run) []judge.Verdict {
	if r.convergeFailed {
		return []judge.Verdict{judge.Skipped("a new TeamSpace did not converge (see " + judge.ProbeConverges.ID + ")")}
	}
	r.opts.Progress.Note("… step 5: a temporary TeamSpace's quota, deleted and then edited by hand, must come back as its spec says")
	return []judge.Verdict{r.drift(ctx)}
}

// drift is probeDrift's verdict.
func (r *run) drift(ctx context.Context) judge.Verdict {
	env, tmp, timeout := r.env, r.tmp, r.opts.ProbeTimeout
	const pods = 3
	want := fmt.Sprintf("deleted quota back with a new uid, hard.pods edited to 99 back to %d, each within %s", pods, timeout)
	ts, err := tmp.create(ctx, pods, "250m", nil)
	if err != nil {
		return judge.Holds(false, want, err.Error())
	}
	defer func() { _ = tmp.discard(ctx, ts.Name) }()
	quotas := env.Clients.Kube.CoreV1().ResourceQuotas(teamspace.NamespaceName(ts.Name))
	var q *corev1.ResourceQuota
	ok, seen := await(ctx, timeout, func(ctx context.Context) (bool, string) {
		live, ns, quota, err := liveState(ctx, env, ts.Name)
		switch {
		case err != nil:
			return false, err.Error()
		case live == nil:
			return false, ts.Name + " is gone"
		}
		q = quota
		p := pending(live, ns, quota, false)
		return p == "", p
	})
	if !ok {
		return judge.Holds(false, want, ts.Name+" never converged: "+seen)
	}
	deletedUID := q.UID
	if err := quotas.Delete(ctx, teamspace.QuotaName, metav1.DeleteOptions{}); err != nil {
		return judge.Holds(false, want, "delete the quota: "+err.Error())
	}
	start := time.Now()
	ok, seen = await(ctx, timeout, func(ctx context.Context) (bool, string) {
		quota, err := quotas.Get(ctx, teamspace.QuotaName, metav1.GetOptions{})
		switch {
		case err != nil:
			return false, "quota: " + err.Error()
		case quota.UID == deletedUID:
			return false, "the deleted quota is still there"
		}
		got := quota.Spec.Hard[corev1.ResourcePods]
		return got.Value() == pods, fmt.Sprintf("quota uid %s, hard.pods %s", quota.UID, got.String())
	})
	if !ok {
		return judge.Holds(false, want, "after the delete: "+seen)
	}
	restored := time.Since(start)
	patch := []byte(`{"spec":{"hard":{"pods":"99"}}}`)
	if _, err := quotas.Patch(ctx, teamspace.QuotaName, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: fieldManager}); err != nil {
		return judge.Holds(false, want, "edit the quota: "+err.Error())
	}
	start = time.Now()
	ok, seen = await(ctx, timeout, func(ctx context.Context) (bool, string) {
		quota, err := quotas.Get(ctx, teamspace.QuotaName, metav1.GetOptions{})
		if err != nil {
			return false, "quota: " + err.Error()
		}
		got := quota.Spec.Hard[corev1.ResourcePods]
		return got.Value() == pods, "hard.pods " + got.String()
	})
	if !ok {
		return judge.Holds(false, want, fmt.Sprintf("restored in %s, but after the edit to 99: %s", restored.Round(time.Millisecond), seen))
	}
	return judge.Holds(true, want, fmt.Sprintf("restored in %s, edit reverted in %s", restored.Round(time.Millisecond), time.Since(start).Round(time.Millisecond)))
}

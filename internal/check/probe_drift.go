package check

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/teamspace"
)

// DriftLiveID is the live drift probe's check: LAB.md step 5 done again
// on a temporary TeamSpace, for a grader who cannot trust drift.json.
const DriftLiveID = "step5.drift_reverted_live"

const driftTitle = "a temporary TeamSpace's deleted quota comes back as a new object, and a hand edit to it goes back"

// probeDrift is LAB.md step 5 on a temporary TeamSpace: once it has
// converged, its quota is deleted and must come back with a new uid; then
// its hard.pods is edited to 99 and must go back to spec.pods. Its
// TeamSpace is gone again when it returns.
func probeDrift(ctx context.Context, env *labenv.Env, tmp *temps, timeout time.Duration) verdict {
	const pods = 3
	want := fmt.Sprintf("deleted quota back with a new uid, hard.pods edited to 99 back to %d, each within %s", pods, timeout)
	ts, err := tmp.create(ctx, pods, "250m", nil)
	if err != nil {
		return holds(false, want, err.Error())
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
		return holds(false, want, ts.Name+" never converged: "+seen)
	}
	deletedUID := q.UID
	if err := quotas.Delete(ctx, teamspace.QuotaName, metav1.DeleteOptions{}); err != nil {
		return holds(false, want, "delete the quota: "+err.Error())
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
		return holds(false, want, "after the delete: "+seen)
	}
	restored := time.Since(start)
	patch := []byte(`{"spec":{"hard":{"pods":"99"}}}`)
	if _, err := quotas.Patch(ctx, teamspace.QuotaName, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: fieldManager}); err != nil {
		return holds(false, want, "edit the quota: "+err.Error())
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
		return holds(false, want, fmt.Sprintf("restored in %s, but after the edit to 99: %s", restored.Round(time.Millisecond), seen))
	}
	return holds(true, want, fmt.Sprintf("restored in %s, edit reverted in %s", restored.Round(time.Millisecond), time.Since(start).Round(time.Millisecond)))
}

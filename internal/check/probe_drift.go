package check

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/ui"
)

var _ = fills(probeDrift, judge.ProbeDrift)

// DriftLiveID is the drift probe's check: LAB.md step 5 done again on a
// temporary TeamSpace, for a grader who cannot trust drift.json.
var DriftLiveID = judge.ProbeDrift.ID

// probeDrift is LAB.md step 5 on a temporary TeamSpace: once it has
// converged, its quota is deleted and must come back with a new uid; then
// its hard.pods is edited to 99 and must go back to spec.pods. The
// TeamSpace is step 4's probe's when it handed one on (converged
// already), else one of its own; it is gone again when it returns. A
// controller that never made step 4's TeamSpace converge is not asked
// again.
func probeDrift(ctx context.Context, r *run) []judge.Verdict {
	if r.convergeFailed {
		return []judge.Verdict{judge.Skipped(i18n.T("check.drift.skip", i18n.Args{"ID": judge.ProbeConverges.ID}))}
	}
	r.opts.Progress.Note("%s", ui.Indent("", "  ", i18n.T("check.progress.drift"), ui.Cols))
	return []judge.Verdict{r.drift(ctx)}
}

// drift is probeDrift's verdict: when it fails, with the refused apply
// the controller's log shows, read before the probe's quota goes (its
// own edit, by cnpa-check, is the field a forceless apply cannot take).
func (r *run) drift(ctx context.Context) (v judge.Verdict) {
	env, tmp, timeout := r.env, r.tmp, r.opts.ProbeTimeout
	ts := r.handedOn
	r.handedOn = nil
	pods := int64(3)
	if ts != nil {
		pods = ts.Spec.Pods
	}
	want := i18n.T("check.drift.want", i18n.Args{"Pods": pods, "Timeout": timeout.String()})
	if ts == nil {
		var err error
		if ts, err = tmp.create(ctx, pods, "250m", nil); err != nil {
			return judge.Holds(false, want, err.Error())
		}
	}
	defer func() {
		if !v.OK {
			v = withConflict(v, r.conflict(ctx))
		}
		_ = tmp.discard(ctx, ts.Name)
	}()
	quotas := env.Clients.Kube.CoreV1().ResourceQuotas(teamspace.NamespaceName(ts.Name))
	var q *corev1.ResourceQuota
	ok, seen := await(ctx, timeout, func(ctx context.Context) (bool, string) {
		live, ns, quota, err := liveState(ctx, env, ts.Name)
		switch {
		case err != nil:
			return false, err.Error()
		case live == nil:
			return false, i18n.T("check.ts_gone", i18n.Args{"Name": ts.Name})
		}
		q = quota
		p := pending(live, ns, quota, false)
		return p == "", p
	})
	if !ok {
		return judge.Holds(false, want, i18n.T("check.drift.never_converged", i18n.Args{"Name": ts.Name, "Seen": seen}))
	}
	deletedUID := q.UID
	if err := quotas.Delete(ctx, teamspace.QuotaName, metav1.DeleteOptions{}); err != nil {
		return judge.Holds(false, want, i18n.T("check.drift.delete_failed", i18n.Args{"Err": err.Error()}))
	}
	start := time.Now()
	ok, seen = await(ctx, timeout, func(ctx context.Context) (bool, string) {
		quota, err := quotas.Get(ctx, teamspace.QuotaName, metav1.GetOptions{})
		switch {
		case err != nil:
			return false, "quota: " + err.Error()
		case quota.UID == deletedUID:
			return false, i18n.T("check.drift.still_there")
		}
		got := quota.Spec.Hard[corev1.ResourcePods]
		return got.Value() == pods, i18n.T("check.drift.quota_seen", i18n.Args{"UID": quota.UID, "Pods": got.String()})
	})
	if !ok {
		return judge.Holds(false, want, i18n.T("check.drift.after_delete", i18n.Args{"Seen": seen}))
	}
	restored := time.Since(start)
	patch := []byte(`{"spec":{"hard":{"pods":"99"}}}`)
	if _, err := quotas.Patch(ctx, teamspace.QuotaName, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: fieldManager}); err != nil {
		return judge.Holds(false, want, i18n.T("check.drift.edit_failed", i18n.Args{"Err": err.Error()}))
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
		return judge.Holds(false, want, i18n.T("check.drift.not_reverted", i18n.Args{"Restored": restored.Round(time.Millisecond).String(), "Seen": seen}))
	}
	return judge.Holds(true, want, i18n.T("check.drift.got", i18n.Args{"Name": ts.Name, "Restored": restored.Round(time.Millisecond).String(), "Reverted": time.Since(start).Round(time.Millisecond).String()}))
}

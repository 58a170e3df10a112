package judge

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Step 5: the deleted quota is back seconds later. drift.json, then the
// live team-alpha/team-quota: the restored one, holding alpha's spec.
var step5Checks = &stepChecks{step: lab.Drift, facts: []factCheck{
	{id: "step5.restored_uid_live", title: "check.title.step5.restored_uid_live",
		hint: func(ev *evidenceSet, _ *Facts) string { return ev.stale(lab.Drift.Number, lab.DriftFile) },
		judge: func(ev *evidenceSet, f *Facts) Verdict {
			r, why := ev.Records[lab.DriftFile].Str("restored_uid")
			switch {
			case why != "":
				return Skipped(why)
			case f.Quota == nil:
				return Verdict{Want: show(r), Got: i18n.T("check.quota_missing"), Hint: hintStartService()}
			}
			return Same(string(f.Quota.UID), r)
		}},
	{id: "step5.quota_in_sync", title: "check.title.step5.quota_in_sync",
		hint:  controllerHint("check.step5.quota_in_sync.must"),
		judge: quotaInSync},
}}

// quotaInSync: the live quota holds alpha's desired pods and cpu.
func quotaInSync(_ *evidenceSet, f *Facts) Verdict {
	if f.Alpha == nil {
		return Holds(false, i18n.T("check.step5.quota_want"), i18n.T("check.alpha_missing"))
	}
	d, err := teamspace.DesiredState(f.Alpha)
	if err != nil {
		return Holds(false, i18n.T("check.step5.valid_spec"), i18n.T("check.step5.invalid_spec", i18n.Args{"Err": err.Error()}))
	}
	want := fmt.Sprintf("pods=%s requests.cpu=%s", d.Pods.String(), d.CPU.String())
	if f.Quota == nil {
		// Gone and never back: a controller that acts only on a change of
		// the TeamSpace misses a deleted quota.
		v := Holds(false, want, i18n.T("check.quota_missing"))
		v.Mistake = lab.MistakeEdge
		return v
	}
	pods, cpu := f.Quota.Spec.Hard[corev1.ResourcePods], f.Quota.Spec.Hard[corev1.ResourceRequestsCPU]
	return Holds(d.QuotaMatches(f.Quota.Spec.Hard), want, fmt.Sprintf("pods=%s requests.cpu=%s", pods.String(), cpu.String()))
}

package step5

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Grade is what `cnpa check` grades for step 5 (the deleted quota is back
// seconds later): drift.json, then the live team-alpha/team-quota: the
// restored one, holding alpha's spec.
var Grade = &judge.Step{Step: Step, Probes: Probes, Facts: []judge.Fact{
	{ID: "step5.restored_uid_live", Mistake: lab.MistakeStale, Title: "check.title.step5.restored_uid_live",
		Hint: func(ev *judge.Evidence, _ *judge.Facts) string { return ev.Stale(Step.Number, lab.DriftFile) },
		Judge: func(ev *judge.Evidence, f *judge.Facts) lab.Verdict {
			r, why := ev.Records[lab.DriftFile].Str("restored_uid")
			switch {
			case why != "":
				return lab.Skipped(why)
			case f.Quota == nil:
				return lab.Verdict{Want: lab.Show(r), Got: i18n.T("check.quota_missing"), Advice: judge.HintStartService()}
			}
			return lab.Same(string(f.Quota.UID), r)
		}},
	{ID: "step5.quota_in_sync", Mistake: lab.MistakeQuotaSpec, Title: "check.title.step5.quota_in_sync",
		Hint:  judge.ControllerHint("check.step5.quota_in_sync.must"),
		Judge: quotaInSync},
}}

// quotaInSync: the live quota holds alpha's desired pods and cpu.
func quotaInSync(_ *judge.Evidence, f *judge.Facts) lab.Verdict {
	if f.Alpha == nil {
		return lab.Holds(false, i18n.T("check.step5.quota_want"), i18n.T("check.alpha_missing"))
	}
	d, err := teamspace.DesiredState(f.Alpha)
	if err != nil {
		return lab.Holds(false, i18n.T("check.step5.valid_spec"), i18n.T("check.step5.invalid_spec", i18n.Args{"Err": err.Error()}))
	}
	want := fmt.Sprintf("pods=%s requests.cpu=%s", d.Pods.String(), d.CPU.String())
	if f.Quota == nil {
		// Gone and never back: a controller that acts only on a change of
		// the TeamSpace misses a deleted quota.
		v := lab.Holds(false, want, i18n.T("check.quota_missing"))
		v.Mistake = lab.MistakeEdge
		return v
	}
	pods, cpu := f.Quota.Spec.Hard[corev1.ResourcePods], f.Quota.Spec.Hard[corev1.ResourceRequestsCPU]
	return lab.Holds(d.QuotaMatches(f.Quota.Spec.Hard), want, fmt.Sprintf("pods=%s requests.cpu=%s", pods.String(), cpu.String()))
}

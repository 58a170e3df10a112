package check

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Step 5: the deleted quota is back seconds later. drift.json, then the
// live team-alpha/team-quota: the restored one, holding alpha's spec.
var step5Checks = &stepChecks{step: lab.Drift, live: []liveCheck{
	{id: "step5.restored_uid_live", title: "drift.json restored_uid is the uid of the live team-alpha/team-quota",
		hint: func(ev *evidenceSet, _ *facts) string { return ev.stale(lab.Drift.Number, lab.DriftFile) },
		judge: func(ev *evidenceSet, f *facts) verdict {
			r, why := ev.Records[lab.DriftFile].Str("restored_uid")
			switch {
			case why != "":
				return skipped(why)
			case f.quota == nil:
				return verdict{want: show(r), got: "team-alpha/team-quota does not exist", hint: hintStartService}
			}
			return same(string(f.quota.UID), r)
		}},
	{id: "step5.quota_in_sync", title: "team-alpha/team-quota holds what alpha's spec asks (pods, requests.cpu)",
		hint:  controllerHint("must make team-quota hold hard.pods = spec.pods and hard.requests.cpu = spec.cpu on every pass, and recreate it when it is deleted"),
		judge: quotaInSync},
}}

// quotaInSync: the live quota holds alpha's desired pods and cpu.
func quotaInSync(_ *evidenceSet, f *facts) verdict {
	if f.alpha == nil {
		return holds(false, "the quota alpha's spec asks for", "TeamSpace alpha does not exist")
	}
	d, err := teamspace.DesiredState(f.alpha)
	if err != nil {
		return holds(false, "a valid spec", "alpha's spec is invalid: "+err.Error())
	}
	want := fmt.Sprintf("pods=%s requests.cpu=%s", d.Pods.String(), d.CPU.String())
	if f.quota == nil {
		return holds(false, want, "team-alpha/team-quota does not exist")
	}
	pods, cpu := f.quota.Spec.Hard[corev1.ResourcePods], f.quota.Spec.Hard[corev1.ResourceRequestsCPU]
	return holds(d.QuotaMatches(f.quota.Spec.Hard), want, fmt.Sprintf("pods=%s requests.cpu=%s", pods.String(), cpu.String()))
}

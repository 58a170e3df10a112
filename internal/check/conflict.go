package check

import (
	"context"

	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/ssaconflict"
)

// A learner's server-side apply without --force-conflicts is refused as
// soon as another field manager owns a field it sets: the drift probe's
// own edit of hard.pods (manager cnpa-check), step 5's `kubectl patch`
// of alpha's quota. The probe that waits then fails for that reason, which
// only the controller's output names (kubectl prints the refusal without
// the object): this file finds it there, as step 6's probe finds the
// admission policy's refusal (course/step6, refusedFinalizerOverwrite).

// Conflict is the refused apply the controller's log shows whose owners
// still hold their fields in the lab's namespaces and quotas (a fix with
// --force-conflicts took them back, and the log keeps the old refusal);
// nil when there is none. A probe whose wait failed reads it while its own
// objects are there, and gives it to its verdict (WithConflict).
func (r *Session) Conflict(ctx context.Context) *ssaconflict.Conflict {
	return ssaconflict.Current(ctx, r.env.Clients.Kube.CoreV1(), ssaconflict.Find(r.ServiceLog(ctx)))
}

// WithConflict is v, a probe's verdict, with the refused apply c when v
// failed: who owns which fields after what the probe found,
// --force-conflicts and its line as the hint, and the mistake. v as it is
// when it passed or c is nil.
func WithConflict(v lab.Verdict, c *ssaconflict.Conflict) lab.Verdict {
	if v.OK || v.Skip != "" || c == nil {
		return v
	}
	v.Got += c.Found()
	v.Advice = c.Hint()
	v.Mistake = lab.MistakeApplyConflict
	return v
}

// quotaInSyncID is the check of alpha's quota against its spec
// (course/step5, grade.go).
const quotaInSyncID = "step5.quota_in_sync"

// explainQuota gives the failed check of alpha's quota the refused apply
// that explains it, when the controller's log shows a quota field
// (.spec.hard) held by another manager: step 5's `kubectl patch` left
// hard.pods 99, and an apply without force never takes it back.
func (r *Session) explainQuota(ctx context.Context, rep *judge.Report) {
	for i := range rep.Checks {
		c := &rep.Checks[i]
		if c.ID != quotaInSyncID || c.Status != judge.Fail {
			continue
		}
		conflict := r.Conflict(ctx)
		if conflict == nil || !conflict.Owns(".spec.hard") {
			return
		}
		c.Actual += conflict.Found()
		c.Hint = conflict.Hint()
		c.Diagnosis = lab.MistakeApplyConflict
	}
}

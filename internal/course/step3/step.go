// Package step3 is the lab's step 3, the reconcile pass: all of it in one
// folder, the step (step.go), its grading (grade.go), its probes (probe*.go)
// and its run (run*.go); package course lists it in the one table.
package step3

import (
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
)

// Step is step 3 of the lab: the file it writes and that file's shape, the
// rule for every key, and the commands of its explanation. Its words, and
// its rules', are the catalog's (step3.*, check.rule.step3.*).
var Step = &lab.Step{Number: 3, File: lab.ReconcileFile,
	// Its keys as LAB.md names them, in its order, and their JSON types.
	Shape: []evidence.Key{
		{Name: "quota_uid", Kind: evidence.String},
		{Name: "namespace_owner_uid", Kind: evidence.String},
		{Name: "second_pass_rv_changed", Kind: evidence.Bool},
	},
	Explanation: lab.Explanation{
		Commands: []string{
			"$EDITOR /root/cnpa-op/reconcile.sh && chmod +x /root/cnpa-op/reconcile.sh",
			"/root/cnpa-op/reconcile.sh",
			"kubectl get namespace team-alpha -o yaml          #",
			"kubectl get resourcequota team-quota -n team-alpha -o jsonpath='{.metadata.resourceVersion}'",
			"/root/cnpa-op/reconcile.sh                         #",
			"kubectl get resourcequota team-quota -n team-alpha -o jsonpath='{.metadata.resourceVersion}'",
		},
	},
	Rules: []lab.Rule{
		{Key: "quota_uid", ID: "step3.quota_uid", Judge: quotaUID},
		{Key: "namespace_owner_uid", ID: "step3.namespace_owner_uid", Mistake: lab.MistakeStale, Judge: lab.AlphaUID},
		{Key: "second_pass_rv_changed", ID: "step3.second_pass_rv_changed", Mistake: lab.MistakeWritesEachPass, Expected: "false", Judge: lab.Is(false)},
	},
}

// quotaUID judges reconcile.json's quota_uid: the uid team-alpha/team-quota
// had after the run. It is that quota's uid now, or the one step 5's
// drift.json says was deleted (its deleted_uid, which step 5's rules hold
// to this one). A uid that is neither cannot be judged: the quota may have
// been deleted since (step 5 by hand, before drift.json is written), so it
// is not checked, and says why; it is never passed unseen (issue 57: a
// made-up uid passed). Without the live quota (a step's own lines), the
// file alone: a uid is there.
func quotaUID(v any, in *lab.Inputs) lab.Verdict {
	s, _ := v.(string)
	switch {
	case s == "":
		return lab.HoldsExpected(false, lab.Show(v))
	case !in.QuotaRead || s == in.QuotaUID:
		return lab.HoldsExpected(true, lab.Show(v))
	}
	if d, why := in.Value(lab.DriftFile, "deleted_uid"); why == "" && d == s {
		return lab.HoldsExpected(true, lab.Show(v))
	}
	if in.QuotaUID == "" {
		return lab.Skipped(i18n.T("check.step3.quota_uid.gone"))
	}
	return lab.Skipped(i18n.T("check.step3.quota_uid.other", i18n.Args{"UID": in.QuotaUID}))
}

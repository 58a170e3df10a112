// Package step3 is the lab's step 3, the reconcile pass: all of it in one
// folder, the step (step.go), its grading (grade.go), its probes (probe*.go)
// and its run (run*.go); package course lists it in the one table.
package step3

import (
	"github.com/labhub/cnpa/internal/evidence"
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
		{Key: "quota_uid", ID: "step3.quota_uid", Judge: func(v any, _ *lab.Inputs) lab.Verdict { return lab.HoldsExpected(v != "", lab.Show(v)) }},
		{Key: "namespace_owner_uid", ID: "step3.namespace_owner_uid", Mistake: lab.MistakeStale, Judge: lab.AlphaUID},
		{Key: "second_pass_rv_changed", ID: "step3.second_pass_rv_changed", Mistake: lab.MistakeWritesEachPass, Expected: "false", Judge: lab.Is(false)},
	},
}

// Package step3 is step 3 of the lab, reconcile: everything of it in one
// place (see package course).
package step3

import (
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/lab"
)

// Step is step 3 of the lab: what it teaches, the file it writes and that
// file's shape, the rule for every key, and its explanation.
var Step = &lab.Step{Number: 3, Title: "The same result however often it runs", File: lab.ReconcileFile,
	Teaches: "reconcile.sh asks \"is desired equal to actual now?\", never \"what changed?\". Its\n" +
		"first run creates team-alpha and team-quota; a second run finds nothing to do\n" +
		"and writes nothing.",
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
			"kubectl get namespace team-alpha -o yaml          # label and ownerReference",
			"kubectl get resourcequota team-quota -n team-alpha -o jsonpath='{.metadata.resourceVersion}'",
			"/root/cnpa-op/reconcile.sh                         # a second pass",
			"kubectl get resourcequota team-quota -n team-alpha -o jsonpath='{.metadata.resourceVersion}'",
		},
		Produces: []string{
			"namespace team-<name> with label platform.labhub.io/teamspace: <name> and an ownerReference to the TeamSpace",
			"ResourceQuota team-quota in it: hard.pods = spec.pods, hard.requests.cpu = spec.cpu",
			"the TeamSpace's status, through the status subresource: observedGeneration = metadata.generation,\n" +
				"namespace = team-<name>",
			"a second pass that finds all of it in place writes nothing at all (the grader runs it twice more)",
		},
		LookAt: "The two resourceVersions are equal: a pass that finds desired = actual writes\n" +
			"nothing. Status goes through the subresource: `kubectl patch teamspace alpha\n" +
			"--subresource=status --type=merge -p ...`. (`cnpa scaffold reconcile.sh` writes a\n" +
			"reference script when you want one to read.)",
	},
	Rules: []lab.Rule{
		{Key: "quota_uid", ID: "step3.quota_uid",
			Title: "reconcile.json quota_uid is the uid team-quota had (step 5 deletes it)", Expected: "a uid",
			Judge: func(v any, _ *lab.Inputs) lab.Verdict { return lab.Holds(v != "", "a uid", lab.Show(v)) }},
		{Key: "namespace_owner_uid", ID: "step3.namespace_owner_uid", Mistake: lab.MistakeStale,
			Title: "reconcile.json namespace_owner_uid is the live alpha's uid", Expected: "the live alpha's uid", Judge: lab.AlphaUID},
		{Key: "second_pass_rv_changed", ID: "step3.second_pass_rv_changed", Mistake: lab.MistakeWritesEachPass,
			Title: "reconcile.json second_pass_rv_changed is false: a second pass writes nothing", Expected: "false", Judge: lab.Is(false)},
	},
}

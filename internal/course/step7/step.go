// Package step7 is step 7 of the lab, catchup: everything of it in one
// place (see package course).
package step7

import (
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/lab"
)

// Step is step 7 of the lab: what it teaches, the file it writes and that
// file's shape, the rule for every key, and its explanation.
var Step = &lab.Step{Number: 7, Title: "No change missed while stopped", File: lab.CatchupFile, OnceOnly: true, Timeline: true,
	Teaches: "While the controller is down, observedGeneration < generation says \"not acted on\n" +
		"yet\". Started again, one pass reads the current state and catches up; it need\n" +
		"not know what changed, or how often, while it was down.",
	// Its keys as LAB.md names them, in its order, and their JSON types.
	Shape: []evidence.Key{
		{Name: "generation", Kind: evidence.Integer},
		{Name: "observed_while_stopped", Kind: evidence.Integer},
		{Name: "quota_pods_while_stopped", Kind: evidence.String},
		{Name: "observed_after_start", Kind: evidence.Integer},
		{Name: "quota_pods_after_start", Kind: evidence.String},
	},
	Explanation: lab.Explanation{
		Commands: []string{
			"systemctl stop cnpa-op",
			"kubectl patch teamspace alpha --type=merge -p '{\"spec\":{\"pods\":8}}'",
			"sleep 8",
			"kubectl get teamspace alpha -o jsonpath='{.metadata.generation} {.status.observedGeneration}'   # 3 2",
			"kubectl get resourcequota team-quota -n team-alpha -o jsonpath='{.spec.hard.pods}'             # 6",
			"systemctl start cnpa-op",
			"kubectl get teamspace alpha -o jsonpath='{.metadata.generation} {.status.observedGeneration}'   # 3 3",
		},
		LookAt: "observedGeneration < generation is the standard signal \"this spec is not acted on\n" +
			"yet\". Leave the service running: the graders of steps 4-7 need it.",
	},
	Rules: []lab.Rule{
		{Key: "generation", ID: "step7.generation",
			Title: "catchup.json generation is 3", Expected: "3", Judge: lab.Is(3)},
		{Key: "observed_while_stopped", ID: "step7.observed_while_stopped",
			Title: "catchup.json observed_while_stopped is 2: the stopped controller saw nothing", Expected: "2", Judge: lab.Is(2)},
		{Key: "quota_pods_while_stopped", ID: "step7.quota_pods_while_stopped",
			Title: `catchup.json quota_pods_while_stopped is "6"`, Expected: `"6"`, Judge: lab.Is("6")},
		{Key: "observed_after_start", ID: "step7.observed_after_start", Mistake: lab.MistakeEdge,
			Title: "catchup.json observed_after_start is 3: started again, it caught up", Expected: "3", Judge: lab.Is(3)},
		{Key: "quota_pods_after_start", ID: "step7.quota_pods_after_start", Mistake: lab.MistakeEdge,
			Title: `catchup.json quota_pods_after_start is "8"`, Expected: `"8"`, Judge: lab.Is("8")},
	},
}

// Package step7 is the lab's step 7, catching up after a stop: all of it in
// one folder, the step (step.go), its grading (grade.go), its probes
// (probe*.go) and its run (run*.go); package course lists it in the one
// table.
package step7

import (
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/lab"
)

// Step is step 7 of the lab: the file it writes and that file's shape, the
// rule for every key, and the commands of its explanation. Its words, and
// its rules', are the catalog's (step7.*, check.rule.step7.*).
var Step = &lab.Step{Number: 7, File: lab.CatchupFile, OnceOnly: true, Timeline: true,
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
			"kubectl get teamspace alpha -o jsonpath='{.metadata.generation} {.status.observedGeneration}'   #",
			"kubectl get resourcequota team-quota -n team-alpha -o jsonpath='{.spec.hard.pods}'             #",
			"systemctl start cnpa-op",
			"kubectl get teamspace alpha -o jsonpath='{.metadata.generation} {.status.observedGeneration}'   #",
		},
	},
	Rules: []lab.Rule{
		{Key: "generation", ID: "step7.generation", Expected: "3", Judge: lab.Is(3)},
		{Key: "observed_while_stopped", ID: "step7.observed_while_stopped", Expected: "2", Judge: lab.Is(2)},
		{Key: "quota_pods_while_stopped", ID: "step7.quota_pods_while_stopped", Expected: `"6"`, Judge: lab.Is("6")},
		{Key: "observed_after_start", ID: "step7.observed_after_start", Mistake: lab.MistakeEdge, Expected: "3", Judge: lab.Is(3)},
		{Key: "quota_pods_after_start", ID: "step7.quota_pods_after_start", Mistake: lab.MistakeEdge, Expected: `"8"`, Judge: lab.Is("8")},
	},
}

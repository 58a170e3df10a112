// Package step1 is the lab's step 1, registering the CRD: all of it in one
// folder, the step (step.go), its grading (grade.go), its probes (probe*.go)
// and its run (run*.go); package course lists it in the one table.
package step1

import (
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/lab"
)

// Step is step 1 of the lab: the file it writes and that file's shape, the
// rule for every key, and the commands of its explanation. Its words, and
// its rules', are the catalog's (step1.*, check.rule.step1.*).
var Step = &lab.Step{Number: 1, File: lab.BeforeFile, OnceOnly: true,
	// Its keys as LAB.md names them, in its order, and their JSON types.
	Shape: []evidence.Key{
		{Name: "uid", Kind: evidence.String},
		{Name: "namespace_exists", Kind: evidence.Bool},
	},
	Explanation: lab.Explanation{
		Commands: []string{
			"kubectl apply -f /root/cnpa-op/crd.yaml",
			"kubectl wait --for condition=Established crd/teamspaces.platform.labhub.io",
			"kubectl apply -f /root/cnpa-op/alpha.yaml        #",
			"kubectl get teamspace alpha -o jsonpath='{.metadata.uid}'",
			"kubectl get namespace team-alpha                  #",
		},
	},
	Rules: []lab.Rule{
		{Key: "uid", ID: "step1.uid", Mistake: lab.MistakeStale, Judge: lab.AlphaUID},
		{Key: "namespace_exists", ID: "step1.namespace_exists", Expected: "false", Judge: lab.Is(false)},
	},
}

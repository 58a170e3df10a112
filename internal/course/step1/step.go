// Package step1 is step 1 of the lab, crd: everything of it in one
// place (see package course).
package step1

import (
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/lab"
)

// Step is step 1 of the lab: what it teaches, the file it writes and that
// file's shape, the rule for every key, and its explanation.
var Step = &lab.Step{Number: 1, Title: "Registering a type does nothing by itself", File: lab.BeforeFile, OnceOnly: true,
	Teaches: "A CRD only registers a new noun with the API server. Creating a TeamSpace stores\n" +
		"it, but nobody acts on it yet: namespace team-alpha does not exist until a\n" +
		"controller runs.",
	// Its keys as LAB.md names them, in its order, and their JSON types.
	Shape: []evidence.Key{
		{Name: "uid", Kind: evidence.String},
		{Name: "namespace_exists", Kind: evidence.Bool},
	},
	Explanation: lab.Explanation{
		Commands: []string{
			"kubectl apply -f /root/cnpa-op/crd.yaml",
			"kubectl wait --for condition=Established crd/teamspaces.platform.labhub.io",
			"kubectl apply -f /root/cnpa-op/alpha.yaml        # TeamSpace alpha, spec.pods: 4",
			"kubectl get teamspace alpha -o jsonpath='{.metadata.uid}'",
			"kubectl get namespace team-alpha                  # exit code 1: NotFound",
		},
		LookAt: "`kubectl get teamspaces` lists alpha with its Pods and CPU columns, but Namespace and\n" +
			"Observed stay empty: the API server stores the object and does nothing else.",
	},
	Rules: []lab.Rule{
		{Key: "uid", ID: "step1.uid", Mistake: lab.MistakeStale,
			Title: "before.json uid is the live alpha's uid", Expected: "the live alpha's uid", Judge: lab.AlphaUID},
		{Key: "namespace_exists", ID: "step1.namespace_exists",
			Title: "before.json namespace_exists is false: a CRD alone creates no namespace", Expected: "false", Judge: lab.Is(false)},
	},
}

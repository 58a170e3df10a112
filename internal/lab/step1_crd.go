package lab

import (
	"github.com/labhub/cnpa/internal/evidence"
)

// BeforeFile is the evidence file step 1 writes, as LAB.md names it.
const BeforeFile = "before.json"

// BeforeRecord is step 1's before.json.
type BeforeRecord struct {
	UID             string `json:"uid"`
	NamespaceExists bool   `json:"namespace_exists"`
}

// CRD is step 1.
var CRD = &Step{Number: 1, Title: "Registering a type does nothing by itself", File: BeforeFile, OnceOnly: true,
	Teaches: "A CRD only registers a new noun with the API server. Creating a TeamSpace stores\n" +
		"it, but nobody acts on it yet: namespace team-alpha does not exist until a\n" +
		"controller runs.",
	// Its keys as LAB.md names them, in its order, and their JSON types.
	Shape: []evidence.Key{
		{Name: "uid", Kind: evidence.String},
		{Name: "namespace_exists", Kind: evidence.Bool},
	},
	Explanation: Explanation{
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
	Rules: []Rule{
		{Key: "uid", ID: "step1.uid",
			Title: "before.json uid is the live alpha's uid", Expected: "the live alpha's uid", Judge: alphaUID},
		{Key: "namespace_exists", ID: "step1.namespace_exists",
			Title: "before.json namespace_exists is false: a CRD alone creates no namespace", Expected: "false", Judge: is(false)},
	},
}

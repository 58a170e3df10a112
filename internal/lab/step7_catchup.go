package lab

import (
	"github.com/labhub/cnpa/internal/evidence"
)

// CatchupFile is the evidence file step 7 writes, as LAB.md names it.
const CatchupFile = "catchup.json"

// CatchupRecord is step 7's catchup.json; quota values stay strings, as
// the API returns them.
type CatchupRecord struct {
	Generation            int64  `json:"generation"`
	ObservedWhileStopped  int64  `json:"observed_while_stopped"`
	QuotaPodsWhileStopped string `json:"quota_pods_while_stopped"`
	ObservedAfterStart    int64  `json:"observed_after_start"`
	QuotaPodsAfterStart   string `json:"quota_pods_after_start"`
}

// Catchup is step 7.
var Catchup = &Step{Number: 7, Title: "No change missed while stopped", File: CatchupFile, OnceOnly: true, Timeline: true,
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
	Explanation: Explanation{
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
	Rules: []Rule{
		{Key: "generation", ID: "step7.generation",
			Title: "catchup.json generation is 3", Expected: "3", Judge: is(3)},
		{Key: "observed_while_stopped", ID: "step7.observed_while_stopped",
			Title: "catchup.json observed_while_stopped is 2: the stopped controller saw nothing", Expected: "2", Judge: is(2)},
		{Key: "quota_pods_while_stopped", ID: "step7.quota_pods_while_stopped",
			Title: `catchup.json quota_pods_while_stopped is "6"`, Expected: `"6"`, Judge: is("6")},
		{Key: "observed_after_start", ID: "step7.observed_after_start",
			Title: "catchup.json observed_after_start is 3: started again, it caught up", Expected: "3", Judge: is(3)},
		{Key: "quota_pods_after_start", ID: "step7.quota_pods_after_start",
			Title: `catchup.json quota_pods_after_start is "8"`, Expected: `"8"`, Judge: is("8")},
	},
}

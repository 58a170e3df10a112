package lab

import (
	"encoding/json"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/i18n"
)

// DriftFile is the evidence file step 5 writes, as LAB.md names it.
const DriftFile = "drift.json"

// DriftRecord is step 5's drift.json.
type DriftRecord struct {
	DeletedUID     string `json:"deleted_uid"`
	RestoredUID    string `json:"restored_uid"`
	RestoreSeconds int64  `json:"restore_seconds"`
	// EditedTo is the value the hand edit set. LAB.md gives it as 99
	// without a type, so a learner's "99" is as good as cnpa's 99.
	EditedTo   json.Number `json:"edited_to"`
	RevertedTo int64       `json:"reverted_to"`
}

// Drift is step 5.
var Drift = &Step{Number: 5, Title: "The deleted quota is back seconds later", File: DriftFile, Timeline: true,
	Teaches: "The controller does not know who deleted the quota; its next pass finds desired\n" +
		"≠ actual and creates it again: same name, new uid. A hand edit is undone the\n" +
		"same way.",
	// Its keys as LAB.md names them, in its order, and their JSON types.
	Shape: []evidence.Key{
		{Name: "deleted_uid", Kind: evidence.String},
		{Name: "restored_uid", Kind: evidence.String},
		{Name: "restore_seconds", Kind: evidence.Integer},
		{Name: "edited_to", Kind: evidence.IntegerOrString},
		{Name: "reverted_to", Kind: evidence.Integer},
	},
	Explanation: Explanation{
		Commands: []string{
			"kubectl get resourcequota team-quota -n team-alpha -o jsonpath='{.metadata.uid}'",
			"kubectl delete resourcequota team-quota -n team-alpha",
			"kubectl get resourcequota team-quota -n team-alpha -w   # back, with a new uid",
			"kubectl patch resourcequota team-quota -n team-alpha --type=merge -p '{\"spec\":{\"hard\":{\"pods\":\"99\"}}}'",
			"kubectl get resourcequota team-quota -n team-alpha -o jsonpath='{.spec.hard.pods}' # 6 again",
		},
		LookAt: "Nobody tells the controller the quota was deleted or edited; its next pass compares\n" +
			"and finds a difference. `kubectl describe teamspace alpha` shows the controller's\n" +
			"Events, and the quota's managedFields show who wrote each field.",
	},
	Rules: []Rule{
		{Key: "deleted_uid", ID: "step5.deleted_uid", Hint: Stale,
			Title: "drift.json deleted_uid is reconcile.json quota_uid: the quota step 3 made was deleted", Expected: "reconcile.json quota_uid",
			Judge: func(v any, in *Inputs) Verdict {
				q, why := in.Value(ReconcileFile, "quota_uid")
				if why != "" {
					return Skipped(why)
				}
				return Same(q, v)
			}},
		{Key: "restored_uid", ID: "step5.restored_uid_new", Hint: Stale,
			Title: "drift.json restored_uid is a new uid: the restored quota is a new object", Expected: "a uid other than deleted_uid",
			Judge: func(v any, in *Inputs) Verdict {
				d, why := in.Value(DriftFile, "deleted_uid")
				if why != "" {
					return Skipped(why)
				}
				return Holds(v != "" && v != d, i18n.T("lab.want.uid_other_than", i18n.Args{"UID": Show(d)}), Show(v))
			}},
		{Key: "restore_seconds", ID: "step5.restore_seconds",
			Title: "drift.json restore_seconds is a whole number of seconds, at least 1", Expected: "an integer ≥ 1",
			Judge: func(v any, _ *Inputs) Verdict { return Holds(v.(int64) >= 1, "an integer ≥ 1", Show(v)) }},
		{Key: "edited_to", ID: "step5.edited_to",
			Title: "drift.json edited_to is 99", Expected: "99",
			Judge: func(v any, _ *Inputs) Verdict {
				// LAB.md gives no type for it: 99 and "99" both say it.
				return Holds(v == int64(99) || v == "99", "99", Show(v))
			}},
		{Key: "reverted_to", ID: "step5.reverted_to",
			Title: "drift.json reverted_to is 6: the hand edit went back to the spec of step 2", Expected: "6", Judge: is(6)},
	},
}

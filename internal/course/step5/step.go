// Package step5 is step 5 of the lab, drift: everything of it in one
// place (see package course).
package step5

import (
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
)

// Step is step 5 of the lab: what it teaches, the file it writes and that
// file's shape, the rule for every key, and its explanation.
var Step = &lab.Step{Number: 5, Title: "The deleted quota is back seconds later", File: lab.DriftFile, Timeline: true,
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
	Explanation: lab.Explanation{
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
	Rules: []lab.Rule{
		{Key: "deleted_uid", ID: "step5.deleted_uid", Mistake: lab.MistakeStale, Hint: lab.Stale,
			Title: "drift.json deleted_uid is reconcile.json quota_uid: the quota step 3 made was deleted", Expected: "reconcile.json quota_uid",
			Judge: func(v any, in *lab.Inputs) lab.Verdict {
				q, why := in.Value(lab.ReconcileFile, "quota_uid")
				if why != "" {
					return lab.Skipped(why)
				}
				return lab.Same(q, v)
			}},
		{Key: "restored_uid", ID: "step5.restored_uid_new", Mistake: lab.MistakeStale, Hint: lab.Stale,
			Title: "drift.json restored_uid is a new uid: the restored quota is a new object", Expected: "a uid other than deleted_uid",
			Judge: func(v any, in *lab.Inputs) lab.Verdict {
				d, why := in.Value(lab.DriftFile, "deleted_uid")
				if why != "" {
					return lab.Skipped(why)
				}
				return lab.Holds(v != "" && v != d, i18n.T("lab.want.uid_other_than", i18n.Args{"UID": lab.Show(d)}), lab.Show(v))
			}},
		{Key: "restore_seconds", ID: "step5.restore_seconds",
			Title: "drift.json restore_seconds is a whole number of seconds, at least 1", Expected: "an integer ≥ 1",
			Judge: func(v any, _ *lab.Inputs) lab.Verdict {
				return lab.Holds(v.(int64) >= 1, "an integer ≥ 1", lab.Show(v))
			}},
		{Key: "edited_to", ID: "step5.edited_to",
			Title: "drift.json edited_to is 99", Expected: "99",
			Judge: func(v any, _ *lab.Inputs) lab.Verdict {
				// LAB.md gives no type for it: 99 and "99" both say it.
				return lab.Holds(v == int64(99) || v == "99", "99", lab.Show(v))
			}},
		{Key: "reverted_to", ID: "step5.reverted_to",
			Title: "drift.json reverted_to is 6: the hand edit went back to the spec of step 2", Expected: "6", Judge: lab.Is(6)},
	},
}

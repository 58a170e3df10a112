// Package step5 is the lab's step 5, drift reverted: all of it in one
// folder, the step (step.go), its grading (grade.go), its probes (probe*.go)
// and its run (run*.go); package course lists it in the one table.
package step5

import (
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
)

// Step is step 5 of the lab: the file it writes and that file's shape, the
// rule for every key, and the commands of its explanation. Its words, and
// its rules', are the catalog's (step5.*, check.rule.step5.*).
var Step = &lab.Step{Number: 5, File: lab.DriftFile, Timeline: true,
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
			"kubectl get resourcequota team-quota -n team-alpha -w   #",
			"kubectl patch resourcequota team-quota -n team-alpha --type=merge -p '{\"spec\":{\"hard\":{\"pods\":\"99\"}}}'",
			"kubectl get resourcequota team-quota -n team-alpha -o jsonpath='{.spec.hard.pods}' #",
		},
	},
	Rules: []lab.Rule{
		{Key: "deleted_uid", ID: "step5.deleted_uid", Mistake: lab.MistakeStale, Hint: lab.Stale,
			Judge: func(v any, in *lab.Inputs) lab.Verdict {
				q, why := in.Value(lab.ReconcileFile, "quota_uid")
				if why != "" {
					return lab.Skipped(why)
				}
				return lab.Same(q, v)
			}},
		{Key: "restored_uid", ID: "step5.restored_uid_new", Mistake: lab.MistakeStale, Hint: lab.Stale,
			Judge: func(v any, in *lab.Inputs) lab.Verdict {
				d, why := in.Value(lab.DriftFile, "deleted_uid")
				if why != "" {
					return lab.Skipped(why)
				}
				return lab.Holds(v != "" && v != d, i18n.T("lab.want.uid_other_than", i18n.Args{"UID": lab.Show(d)}), lab.Show(v))
			}},
		// The lab text asks for the seconds measured, "restore_seconds
		// (integer)", and says no more of rounding: a restore under a
		// second is 0 by `$(( $(date +%s) - start ))` and 1 rounded up,
		// and both are that measurement. Only a negative one is none.
		{Key: "restore_seconds", ID: "step5.restore_seconds",
			Judge: func(v any, _ *lab.Inputs) lab.Verdict {
				return lab.HoldsExpected(v.(int64) >= 0, lab.Show(v))
			}},
		{Key: "edited_to", ID: "step5.edited_to", Expected: "99",
			Judge: func(v any, _ *lab.Inputs) lab.Verdict {
				// LAB.md gives no type for it: 99 and "99" both say it.
				return lab.Holds(v == int64(99) || v == "99", "99", lab.Show(v))
			}},
		{Key: "reverted_to", ID: "step5.reverted_to", Expected: "6", Judge: lab.Is(6)},
	},
}

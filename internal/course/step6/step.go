// Package step6 is the lab's step 6, cleanup through the finalizer: all of
// it in one folder, the step (step.go), its grading (grade.go), its probes
// (probe*.go) and its run (run*.go); package course lists it in the one
// table.
package step6

import (
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
)

// Step is step 6 of the lab: the file it writes and that file's shape, the
// rule for every key, and the commands of its explanation. Its words, and
// its rules', are the catalog's (step6.*, check.rule.step6.*).
var Step = &lab.Step{Number: 6, File: lab.CleanupFile, Timeline: true,
	// Its keys as LAB.md names them, in its order, and their JSON types.
	Shape: []evidence.Key{
		{Name: "uid", Kind: evidence.String},
		{Name: "blocked_seen", Kind: evidence.Bool},
		{Name: "namespace_gone", Kind: evidence.Bool},
	},
	Explanation: lab.Explanation{
		Commands: []string{
			"#",
			"kubectl apply -f /root/cnpa-op/beta.yaml           #",
			"kubectl get namespace team-beta",
			"kubectl delete teamspace beta --wait=false",
			"kubectl get teamspace beta -o jsonpath='{.metadata.deletionTimestamp} {.metadata.finalizers}'",
			"cat /root/cnpa-op/archive/beta.json",
			"kubectl get namespace team-beta -w                 #",
		},
	},
	Rules: []lab.Rule{
		{Key: "uid", ID: "step6.uid", Mistake: lab.MistakeStale, Hint: lab.Stale,
			Judge: func(v any, in *lab.Inputs) lab.Verdict {
				if in.ArchiveProblem != "" {
					return lab.Skipped(i18n.T("lab.see_check", i18n.Args{"Why": in.ArchiveProblem, "ID": "step6.archive_record"}))
				}
				return lab.Same(in.ArchiveUID, v)
			}},
		{Key: "blocked_seen", ID: "step6.blocked_seen", Expected: "true", Judge: lab.Is(true)},
		{Key: "namespace_gone", ID: "step6.namespace_gone", Mistake: lab.MistakeNoOwner, Expected: "true", Judge: lab.Is(true)},
	},
}

// Package step6 is step 6 of the lab, cleanup: everything of it in one
// place (see package course).
package step6

import (
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
)

// Step is step 6 of the lab: what it teaches, the file it writes and that
// file's shape, the rule for every key, and its explanation.
var Step = &lab.Step{Number: 6, Title: "Cleanup before deletion", File: lab.CleanupFile, Timeline: true,
	Teaches: "Deleting an object with finalizers only sets deletionTimestamp; it goes when the\n" +
		"list is empty. The controller archives beta, then removes only its finalizer;\n" +
		"team-beta goes by garbage collection through its ownerReference, not by the\n" +
		"controller.",
	// Its keys as LAB.md names them, in its order, and their JSON types.
	Shape: []evidence.Key{
		{Name: "uid", Kind: evidence.String},
		{Name: "blocked_seen", Kind: evidence.Bool},
		{Name: "namespace_gone", Kind: evidence.Bool},
	},
	Explanation: lab.Explanation{
		Commands: []string{
			"# reconcile.sh: add platform.labhub.io/cleanup (keeping other finalizers); on deletion\n" +
				"#   write /root/cnpa-op/archive/<name>.json, then remove only that finalizer",
			"kubectl apply -f /root/cnpa-op/beta.yaml           # pods: 2, cpu: \"500m\"",
			"kubectl get namespace team-beta",
			"kubectl delete teamspace beta --wait=false",
			"kubectl get teamspace beta -o jsonpath='{.metadata.deletionTimestamp} {.metadata.finalizers}'",
			"cat /root/cnpa-op/archive/beta.json",
			"kubectl get namespace team-beta -w                 # Terminating, then gone",
		},
		LookAt: "Right after the delete, beta is still there with a deletionTimestamp: the finalizer\n" +
			"holds it until the archive record is written. team-beta then goes by garbage\n" +
			"collection, which rescans on its own period: it can take up to a minute.",
	},
	Rules: []lab.Rule{
		{Key: "uid", ID: "step6.uid", Mistake: lab.MistakeStale, Hint: lab.Stale,
			Title: "cleanup.json uid is the uid archived in archive/beta.json", Expected: "archive/beta.json uid",
			Judge: func(v any, in *lab.Inputs) lab.Verdict {
				if in.ArchiveProblem != "" {
					return lab.Skipped(i18n.T("lab.see_check", i18n.Args{"Why": in.ArchiveProblem, "ID": "step6.archive_record"}))
				}
				return lab.Same(in.ArchiveUID, v)
			}},
		{Key: "blocked_seen", ID: "step6.blocked_seen",
			Title: "cleanup.json blocked_seen is true: beta waited for its finalizer", Expected: "true", Judge: lab.Is(true)},
		{Key: "namespace_gone", ID: "step6.namespace_gone", Mistake: lab.MistakeNoOwner,
			Title: "cleanup.json namespace_gone is true: team-beta went by garbage collection", Expected: "true", Judge: lab.Is(true)},
	},
}

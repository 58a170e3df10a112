package lab

import (
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/i18n"
)

// CleanupFile is the evidence file step 6 writes, as LAB.md names it.
const CleanupFile = "cleanup.json"

// CleanupRecord is step 6's cleanup.json.
type CleanupRecord struct {
	UID           string `json:"uid"`
	BlockedSeen   bool   `json:"blocked_seen"`
	NamespaceGone bool   `json:"namespace_gone"`
}

// Cleanup is step 6.
var Cleanup = &Step{Number: 6, Title: "Cleanup before deletion", File: CleanupFile, Timeline: true,
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
	Explanation: Explanation{
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
	Rules: []Rule{
		{Key: "uid", ID: "step6.uid", Hint: Stale,
			Title: "cleanup.json uid is the uid archived in archive/beta.json", Expected: "archive/beta.json uid",
			Judge: func(v any, in *Inputs) Verdict {
				if in.ArchiveProblem != "" {
					return Skipped(i18n.T("lab.see_check", i18n.Args{"Why": in.ArchiveProblem, "ID": "step6.archive_record"}))
				}
				return Same(in.ArchiveUID, v)
			}},
		{Key: "blocked_seen", ID: "step6.blocked_seen",
			Title: "cleanup.json blocked_seen is true: beta waited for its finalizer", Expected: "true", Judge: is(true)},
		{Key: "namespace_gone", ID: "step6.namespace_gone",
			Title: "cleanup.json namespace_gone is true: team-beta went by garbage collection", Expected: "true", Judge: is(true)},
	},
}

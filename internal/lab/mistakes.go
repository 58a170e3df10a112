package lab

import "github.com/labhub/cnpa/internal/teamspace"

// The mistakes LAB.md warns about, each worded once: the steps' diagnosis
// (package steps) and the grader's hints (package check) put these words
// around what they observed, so that a learner reads the same advice for
// the same mistake wherever it is caught.
const (
	// KeepOtherFinalizers is the finalizer patch that overwrites the whole
	// list, deleting other controllers' finalizers.
	KeepOtherFinalizers = "add " + teamspace.Finalizer + " to every TeamSpace without a deletionTimestamp, " +
		"keeping the other finalizers (merge it into the list; never overwrite the list)"
	// ArchiveThenRelease is letting a TeamSpace go before its record is
	// written, or taking other controllers' finalizers with ours.
	ArchiveThenRelease = "for a TeamSpace with a deletionTimestamp, write archive/<name>.json first and then remove only " +
		teamspace.Finalizer
	// StatusViaSubresource is status patched to the main endpoint: with a
	// status subresource the server drops it and prints only `patched (no
	// change)`.
	StatusViaSubresource = "status sent to the main endpoint is dropped (`patched (no change)`); write it through the " +
		"status subresource, `kubectl patch teamspace <name> --subresource=status --type=merge -p '{\"status\":{...}}'`"
)

// The classic mistakes as names, in few words, for counting them (the
// constants above are the advice): what an instructor counts across a
// class ("7 learners: status sent to the main endpoint"). Each is one of
// LAB.md's warnings or one of the learner corpus's mistakes.
const (
	MistakeStatusMain     = "status sent to the main endpoint"
	MistakeNoOwner        = "namespace without an ownerReference to its TeamSpace"
	MistakeQuotaSpec      = "quota not taken from the spec (hard-coded pods or spec.cpu ignored)"
	MistakeWritesEachPass = "a pass writes although nothing changed"
	MistakeFinalizerList  = "finalizer list overwritten: other controllers' finalizers lost"
	MistakeNoArchive      = "finalizer removed without the archive record"
	MistakeEdge           = "edge-triggered: a deleted quota, or a change made while stopped, is missed"
	MistakeNotRunning     = "controller not running"
	MistakeStale          = "evidence does not describe this cluster (edited, copied or left from an earlier run)"
	MistakeCRD            = "CRD not as LAB.md step 1 asks"
)

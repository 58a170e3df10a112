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

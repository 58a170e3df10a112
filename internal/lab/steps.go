package lab

import (
	"fmt"

	"github.com/labhub/cnpa/internal/evidence"
)

// Step is one step of the lab as LAB.md gives it: what it is, not how it
// runs (package steps holds the runners, package check the graders).
type Step struct {
	Number  int
	Title   string
	Teaches string
	// File is the evidence file the step writes; empty for a step that
	// writes none (step 4 installs the service).
	File string
	// OnceOnly: the step measures a cluster that has not been through it
	// yet, so it cannot run twice on one cluster; once its own file is
	// written and whole, a rerun keeps it.
	OnceOnly bool
	// Timeline: the step records the controller's reaction to its action
	// as a timeline (<dir>/.cnpa/timeline-step<N>.json).
	Timeline bool
	// Computed: the step's file is computed from the other files, so a
	// rerun recomputes it and nothing depends on it.
	Computed bool
}

// The steps, in LAB.md's words.
var (
	CRD = &Step{Number: 1, Title: "Registering a type does nothing by itself", File: evidence.BeforeFile, OnceOnly: true,
		Teaches: "A CRD only registers a new noun with the API server. Creating a TeamSpace stores it,\n" +
			"but nobody acts on it yet: namespace team-alpha does not exist until a controller runs."}
	Generation = &Step{Number: 2, Title: "What bumps metadata.generation", File: evidence.GenerationFile, OnceOnly: true,
		Teaches: "Only a spec change bumps generation; a label moves resourceVersion only. With the\n" +
			"status subresource on, status sent to the main endpoint is dropped without an error."}
	Reconcile = &Step{Number: 3, Title: "The same result however often it runs", File: evidence.ReconcileFile,
		Teaches: "reconcile.sh asks \"is desired equal to actual now?\", never \"what changed?\". Its first run\n" +
			"creates team-alpha and team-quota; a second run finds nothing to do and writes nothing."}
	Service = &Step{Number: 4, Title: "Not once, but continuously", Timeline: true,
		Teaches: "cnpa-op.service runs the reconcile loop forever (Restart=always). A new TeamSpace gets\n" +
			"its namespace and quota within seconds with nobody acting, as the lab's grader checks."}
	Drift = &Step{Number: 5, Title: "The deleted quota is back seconds later", File: evidence.DriftFile, Timeline: true,
		Teaches: "The controller does not know who deleted the quota; its next pass finds desired ≠ actual\n" +
			"and creates it again: same name, new uid. A hand edit is undone the same way."}
	Cleanup = &Step{Number: 6, Title: "Cleanup before deletion", File: evidence.CleanupFile, Timeline: true,
		Teaches: "Deleting an object with finalizers only sets deletionTimestamp; it goes when the list is\n" +
			"empty. The controller archives beta, then removes only its finalizer; team-beta goes by\n" +
			"garbage collection through its ownerReference, not by the controller."}
	Catchup = &Step{Number: 7, Title: "No change missed while stopped", File: evidence.CatchupFile, OnceOnly: true, Timeline: true,
		Teaches: "While the controller is down, observedGeneration < generation says \"not acted on yet\".\n" +
			"Started again, one pass reads the current state and catches up; it need not know what\n" +
			"changed, or how often, while it was down."}
	Report = &Step{Number: 8, Title: "Leave what the controller did as values", File: evidence.ReportFile, Computed: true,
		Teaches: "report.json condenses the lab into values computed from the files above: the controller\n" +
			"is level-triggered, so it converges from the current state whatever happened in between."}
)

// Steps is every step in lab order: Steps[i].Number is i+1 (TestSteps).
var Steps = []*Step{CRD, Generation, Reconcile, Service, Drift, Cleanup, Catchup, Report}

// Get returns step n, or an error naming the valid range.
func Get(n int) (*Step, error) {
	if n < 1 || n > len(Steps) {
		return nil, fmt.Errorf("there is no step %d: the lab has steps %s (or `all`)", n, Range(" to "))
	}
	return Steps[n-1], nil
}

// StepOf returns the step that writes file, or nil for a file no step
// writes (the archive records are the controller's).
func StepOf(file string) *Step {
	for _, s := range Steps {
		if s.File != "" && s.File == file {
			return s
		}
	}
	return nil
}

// Range is the lab's step numbers as first, sep, last: "1..8" with "..",
// "1 to 8" with " to ", for usage strings and messages.
func Range(sep string) string { return span(Steps, sep) }

// TimelineSteps are the steps that record a timeline, in lab order.
func TimelineSteps() []*Step {
	var out []*Step
	for _, s := range Steps {
		if s.Timeline {
			out = append(out, s)
		}
	}
	return out
}

// TimelineRange is TimelineSteps as first, sep, last ("4-7" with "-").
func TimelineRange(sep string) string { return span(TimelineSteps(), sep) }

func span(steps []*Step, sep string) string {
	return fmt.Sprintf("%d%s%d", steps[0].Number, sep, steps[len(steps)-1].Number)
}

// Numbers is every step's number, in lab order (what `all` runs).
func Numbers() []int {
	out := make([]int, len(Steps))
	for i, s := range Steps {
		out[i] = s.Number
	}
	return out
}

// Later is the steps after s, in lab order.
func (s *Step) Later() []*Step { return Steps[s.Number:] }

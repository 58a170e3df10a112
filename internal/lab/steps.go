package lab

import (
	"errors"
	"fmt"
	"github.com/labhub/cnpa/internal/i18n"
	"slices"

	"github.com/labhub/cnpa/internal/evidence"
)

// Step is one step of the lab as LAB.md gives it: what it is, not how it
// runs (package steps holds the runners, package judge the grader's verdicts).
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
	// Shape is File's keys, in LAB.md's order, and their JSON types.
	Shape []evidence.Key
	// Rules are what each key of File must hold, one per key of Shape in
	// its order (TestRulesCoverShapes); their File and Step are the
	// step's (Rules, the lab's whole list, fills them in).
	Rules []Rule
	// Explanation is what `cnpa explain N` adds to Teaches.
	Explanation Explanation
}

// Steps is every step in lab order: Steps[i].Number is i+1 (TestSteps).
// Each is in a file of its own (step5_drift.go): what it teaches, the file
// it writes and that file's shape and record, the rule for every key, and
// its explanation.
var Steps = []*Step{CRD, Generation, Reconcile, Service, Drift, Cleanup, Catchup, Report}

// Files is every evidence file the steps write, in lab order (the archive
// records are the controller's).
var Files = files()

func files() []string {
	var out []string
	for _, s := range Steps {
		if s.File != "" {
			out = append(out, s.File)
		}
	}
	return out
}

// ShapeOf is the shape of the evidence file a step writes; nil for any
// other name.
func ShapeOf(file string) []evidence.Key {
	if s := StepOf(file); s != nil {
		return s.Shape
	}
	return nil
}

// ReadFile reads dir/file, one of Files, checks it against its step's
// Shape, and decodes it into v when the shape holds. A missing file is
// reported as os.ErrNotExist (wrapped).
func ReadFile(dir, file string, v any) ([]evidence.Problem, error) {
	shape := ShapeOf(file)
	if shape == nil {
		return nil, fmt.Errorf("%s is not an evidence file of the lab", file)
	}
	return evidence.Read(dir, file, shape, v)
}

// AnyWritten tells whether dir holds any evidence file, or an archive
// record: whether the lab has started there, by cnpa or by hand.
func AnyWritten(dir string) bool {
	return evidence.AnyWritten(dir, append(slices.Clone(Files), BetaArchive))
}

// Get returns step n, or an error naming the valid range.
func Get(n int) (*Step, error) {
	if n < 1 || n > len(Steps) {
		return nil, errors.New(i18n.T("lab.hint.no_step", i18n.Args{"N": n, "First": Steps[0].Number, "Last": Steps[len(Steps)-1].Number}))
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

package lab

import (
	"fmt"
	"slices"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/i18n"
)

// Step is one step of the lab as LAB.md gives it: what it is, not how it
// runs. Each step's value is in its folder under package course, beside
// its grading, its probes and its run. Its words are the catalog's alone,
// in every language, English included: stepN.title, stepN.teaches and
// the explanation's (see Explanation), said by Heading, Teaching and
// Explain.
type Step struct {
	Number int
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
	// InstallsService: the step installs the controller as a service
	// (step 4), which explains itself differently without systemd.
	InstallsService bool
	// Shape is File's keys, in LAB.md's order, and their JSON types.
	Shape []evidence.Key
	// Rules are what each key of File must hold, one per key of Shape in
	// its order (TestRulesCoverShapes); NewTable fills in their File and
	// Step.
	Rules []Rule
	// Explanation is what `cnpa explain N` adds to the teaching.
	Explanation Explanation
}

// Table is the lab's steps in lab order: Table[i].Number is i+1. There is
// one, course.Steps; the commands hand it down to whatever reads the
// steps, so nothing below package course names a step by itself.
type Table []*Step

// NewTable is steps as a table: it checks their numbers and fills in each
// rule's File and Step.
func NewTable(steps ...*Step) Table {
	for i, s := range steps {
		if s.Number != i+1 {
			panic(fmt.Sprintf("lab: step %d is number %d in the table", s.Number, i+1))
		}
		for j := range s.Rules {
			s.Rules[j].File, s.Rules[j].Step = s.File, s.Number
		}
	}
	return Table(steps)
}

// LabStep is s itself. A step of another package's table embeds a *Step
// (judge.Step, steps.Step, check.Step) and so has it too: TableOf makes a
// Table of any of them.
func (s *Step) LabStep() *Step { return s }

// TableOf is the lab's steps of a table whose steps embed one, in its
// order: each package's view of course.Steps back as lab's.
func TableOf[S interface{ LabStep() *Step }](steps []S) Table {
	out := make(Table, len(steps))
	for i, s := range steps {
		out[i] = s.LabStep()
	}
	return out
}

// Files is every evidence file the steps write, in lab order (the archive
// records are the controller's).
func (t Table) Files() []string {
	var out []string
	for _, s := range t {
		if s.File != "" {
			out = append(out, s.File)
		}
	}
	return out
}

// Rules is every key of every evidence file, in lab order: LAB.md's
// expected values, one row each.
func (t Table) Rules() []Rule {
	var out []Rule
	for _, s := range t {
		out = append(out, s.Rules...)
	}
	return out
}

// For returns the rules of one evidence file, in LAB.md's key order.
func (t Table) For(file string) []Rule {
	if s := t.StepOf(file); s != nil {
		return s.Rules
	}
	return nil
}

// ShapeOf is the shape of the evidence file a step writes; nil for any
// other name.
func (t Table) ShapeOf(file string) []evidence.Key {
	if s := t.StepOf(file); s != nil {
		return s.Shape
	}
	return nil
}

// ReadFile reads dir/file, one of Files, checks it against its step's
// Shape, and decodes it into v when the shape holds. A missing file is
// reported as os.ErrNotExist (wrapped).
func (t Table) ReadFile(dir, file string, v any) ([]evidence.Problem, error) {
	shape := t.ShapeOf(file)
	if shape == nil {
		return nil, fmt.Errorf("%s is not an evidence file of the lab", file)
	}
	return evidence.Read(dir, file, shape, v)
}

// AnyWritten tells whether dir holds any evidence file, or an archive
// record: whether the lab has started there, by cnpa or by hand.
func (t Table) AnyWritten(dir string) bool {
	return evidence.AnyWritten(dir, append(slices.Clone(t.Files()), BetaArchive))
}

// NoStepError is a step number the table does not have.
type NoStepError struct{ N, First, Last int }

func (e *NoStepError) Error() string {
	return i18n.T("lab.hint.no_step", i18n.Args{"N": e.N, "First": e.First, "Last": e.Last})
}

// Get returns step n, or a *NoStepError naming the valid range.
func (t Table) Get(n int) (*Step, error) {
	if n < 1 || n > len(t) {
		return nil, &NoStepError{N: n, First: t[0].Number, Last: t[len(t)-1].Number}
	}
	return t[n-1], nil
}

// StepOf returns the step that writes file, or nil for a file no step
// writes (the archive records are the controller's).
func (t Table) StepOf(file string) *Step {
	for _, s := range t {
		if s.File != "" && s.File == file {
			return s
		}
	}
	return nil
}

// Range is the lab's step numbers as first, sep, last: "1..8" with "..",
// "1 to 8" with " to ", for usage strings and messages.
func (t Table) Range(sep string) string { return t.span(sep) }

// TimelineSteps are the steps that record a timeline, in lab order.
func (t Table) TimelineSteps() Table {
	var out Table
	for _, s := range t {
		if s.Timeline {
			out = append(out, s)
		}
	}
	return out
}

// TimelineRange is TimelineSteps as first, sep, last ("4-7" with "-").
func (t Table) TimelineRange(sep string) string { return t.TimelineSteps().span(sep) }

func (t Table) span(sep string) string {
	return fmt.Sprintf("%d%s%d", t[0].Number, sep, t[len(t)-1].Number)
}

// Numbers is every step's number, in lab order (what `all` runs).
func (t Table) Numbers() []int {
	out := make([]int, len(t))
	for i, s := range t {
		out[i] = s.Number
	}
	return out
}

// Later is the steps after s, in lab order.
func (t Table) Later(s *Step) Table { return t[s.Number:] }

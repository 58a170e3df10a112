// Package course is the lab's one step table. Each step is one folder,
// course/stepN: what it is and the file it writes (step.go; its words are
// the catalog's, stepN.* and check.rule.stepN.*), how that file and the
// cluster are graded (grade.go), its live probes' rows and hands
// (probe.go) with their code (probe_<name>.go), and how cnpa drives it
// (run.go, run_*.go where it is long). The commands take Steps from here
// and hand it down: packages lab, judge, check and steps know no step by
// name, only the table they are given.
package course

import (
	"context"
	"fmt"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/course/step1"
	"github.com/labhub/cnpa/internal/course/step2"
	"github.com/labhub/cnpa/internal/course/step3"
	"github.com/labhub/cnpa/internal/course/step4"
	"github.com/labhub/cnpa/internal/course/step5"
	"github.com/labhub/cnpa/internal/course/step6"
	"github.com/labhub/cnpa/internal/course/step7"
	"github.com/labhub/cnpa/internal/course/step8"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/steps"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Steps is the lab's steps, in lab order: the one table.
var Steps = NewTable(
	&Step{Lab: step1.Step, Grade: step1.Grade, Run: step1.Run, Again: step1.Again},
	&Step{Lab: step2.Step, Grade: step2.Grade, Run: step2.Run, Again: step2.Again},
	&Step{Lab: step3.Step, Grade: step3.Grade, Hands: step3.Hands, Run: step3.Run},
	&Step{Lab: step4.Step, Grade: step4.Grade, Hands: step4.Hands, Run: step4.Run},
	&Step{Lab: step5.Step, Grade: step5.Grade, Hands: step5.Hands, Run: step5.Run},
	&Step{Lab: step6.Step, Grade: step6.Grade, Hands: step6.Hands, Run: step6.Run},
	&Step{Lab: step7.Step, Grade: step7.Grade, Run: step7.Run},
	&Step{Lab: step8.Step, Grade: step8.Grade, Run: step8.Run},
)

// Step is one step of the lab, whole: each part as the package that uses
// it has it, all from the step's folder.
type Step struct {
	// Lab is what the step is: its file, shape, rules and commands.
	Lab *lab.Step
	// Grade is what `cnpa check` grades for it: its file key by key, the
	// facts of the cluster it leaves, and its probes' rows.
	Grade *judge.Step
	// Hands are its probes' code, bound to their rows.
	Hands []check.Hand
	// Run drives it; Again says whether it can run again on the cluster
	// (nil: unless it is OnceOnly).
	Run   func(ctx context.Context, env *steps.Lab, s *steps.Step) (*steps.Result, error)
	Again func(alpha *teamspace.TeamSpace) bool
}

// Table is the steps with each package's view of them, made once.
type Table struct {
	steps   []*Step
	lab     lab.Table
	checker check.Table
	runners steps.Table
}

// NewTable is the table of steps, in lab order; it panics on a step out of
// its place or whose parts are of another step (a programming error,
// caught by every test that loads the package).
func NewTable(all ...*Step) *Table {
	t := &Table{steps: all}
	for _, s := range all {
		if s.Grade.Step != s.Lab {
			panic(fmt.Sprintf("course: step %d is graded as another step", s.Lab.Number))
		}
		t.lab = append(t.lab, s.Lab)
		t.checker = append(t.checker, &check.Step{Step: s.Grade, Hands: s.Hands})
		t.runners = append(t.runners, &steps.Step{Step: s.Lab, Run: s.Run, Again: s.Again})
	}
	t.lab = lab.NewTable(t.lab...)
	return t
}

// Lab is the steps as package lab has them: shapes, rules and words.
func (t *Table) Lab() lab.Table { return t.lab }

// Grader is the steps as package judge grades them.
func (t *Table) Grader() judge.Table { return t.checker.Grader() }

// Checker is the steps as package check grades them, with the probes'
// hands.
func (t *Table) Checker() check.Table { return t.checker }

// Runners is the steps as package steps runs them.
func (t *Table) Runners() steps.Table { return t.runners }

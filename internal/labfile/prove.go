package labfile

import (
	"context"
	"fmt"
	"os"
	"strings"
)

// A lab is proved by its cases, each run twice to catch a flaky check:
//
//   - the reference (solution) passes every check;
//   - the unsolved state passes no step, and fails each check it names;
//   - each mutant (its run, in place of the solution) fails the check it names,
//     no other check of that step, and nothing of an earlier step.
//
// The lab's cleanup runs first, so that a case starts clean. Each run:
// the resources applied, the case's commands, every step run
// into a fresh evidence dir, the lab graded; then the lab's cleanup.

// Case is one case of a lab's proof.
type Case struct {
	// Name is "solution", "unsolved" or "mutant/<name>".
	Name string
	// Run are its commands.
	Run []string
	// Check is the check a mutant must fail; Fails the checks the
	// unsolved state must fail.
	Check string
	Fails []string
}

// Cases are the lab's cases: the reference, the unsolved state, the
// mutants in file order.
func (l *Lab) Cases() []Case {
	cs := []Case{{Name: "solution", Run: l.Solution}, {Name: "unsolved", Run: l.Unsolved.Run, Fails: l.Unsolved.Fails}}
	for _, m := range l.Mutants {
		cs = append(cs, Case{Name: "mutant/" + m.Name, Run: m.Run, Check: m.Check})
	}
	return cs
}

// Outcome is one run of a case: whether it held and, when not, why, in
// message ids and args (worded when shown).
type Outcome struct {
	Case string
	Run  int
	OK   bool
	// Failed are the checks that failed.
	Failed []string
	// Why is the message id of what did not hold, with its Args.
	Why  string
	Args map[string]any
}

// Prove runs every case of the lab twice (runs of 1 once, for a quick
// look) against e's cluster, cleaning up after each; it calls done with
// each outcome as it comes. It returns the outcomes; only a context ended
// or resources that cannot be applied are errors. The lab's resources are
// removed at the end.
func (e *Engine) Prove(ctx context.Context, runs int, done func(Outcome)) (outs []Outcome, err error) {
	defer func() {
		if rerr := e.Cluster.Remove(context.WithoutCancel(ctx)); rerr != nil && err == nil {
			err = rerr
		}
	}()
	// Start clean: what an earlier run or a learner left is removed the
	// way the lab removes it after each case.
	if err := e.Cluster.Apply(ctx); err != nil {
		return nil, err
	}
	if err := e.Commands(ctx, os.TempDir(), e.Lab.Cleanup); err != nil {
		return nil, err
	}
	for _, c := range e.Lab.Cases() {
		for n := 1; n <= runs; n++ {
			o, err := e.runCase(ctx, c, n)
			if err != nil {
				return outs, err
			}
			outs = append(outs, o)
			if done != nil {
				done(o)
			}
		}
	}
	return outs, nil
}

// runCase runs case c once and judges it.
func (e *Engine) runCase(ctx context.Context, c Case, n int) (o Outcome, err error) {
	o = Outcome{Case: c.Name, Run: n}
	dir, err := os.MkdirTemp("", "cnpa-lab-test-")
	if err != nil {
		return o, err
	}
	defer os.RemoveAll(dir)
	if err := e.Cluster.Apply(ctx); err != nil {
		return o, err
	}
	defer func() {
		// The cleanup runs on every path, Ctrl-C included; its failure
		// is the case's, since the next case would start unclean.
		if cerr := e.Commands(context.WithoutCancel(ctx), dir, e.Lab.Cleanup); cerr != nil && o.OK {
			o.OK, o.Why, o.Args = false, "labfile.case.cleanup", map[string]any{"Err": cerr.Error()}
		}
	}()
	if err := e.Commands(ctx, dir, c.Run); err != nil {
		if ctx.Err() != nil {
			return o, ctx.Err()
		}
		o.Why, o.Args = "labfile.case.commands", map[string]any{"Err": err.Error()}
		return o, nil
	}
	for _, s := range e.Lab.Steps {
		if _, _, err := e.RunStep(ctx, s, dir); err != nil {
			if ctx.Err() != nil {
				return o, ctx.Err()
			}
			o.Why, o.Args = "labfile.case.step", map[string]any{"Step": s.ID, "Err": err.Error()}
			return o, nil
		}
	}
	rep, err := e.Grade(ctx, dir, "")
	if err != nil {
		return o, err
	}
	o.Failed = rep.failedChecks()
	o.Why, o.Args = e.Lab.judge(c, rep)
	o.OK = o.Why == ""
	return o, nil
}

// judge says what of case c did not hold in rep: a message id and args,
// "" when it held.
func (l *Lab) judge(c Case, rep *Report) (string, map[string]any) {
	switch {
	case c.Name == "solution":
		if bad := rep.notPassed(); len(bad) > 0 {
			return "labfile.case.solution", map[string]any{"Checks": strings.Join(bad, ", ")}
		}
	case c.Check == "":
		for _, s := range rep.Steps {
			if s.Passed() {
				return "labfile.case.unsolved_passes", map[string]any{"Step": s.Step}
			}
		}
		for _, f := range c.Fails {
			if st := rep.Status(f); st != Fail {
				return "labfile.case.unsolved_not_failed", map[string]any{"Check": f, "Status": string(st)}
			}
		}
	default:
		sid, _, _ := strings.Cut(c.Check, ".")
		at := l.StepIndex(sid)
		if st := rep.Status(c.Check); st != Fail {
			return "labfile.case.mutant_missed", map[string]any{"Check": c.Check, "Status": string(st)}
		}
		for i, s := range rep.Steps {
			for _, r := range s.Checks {
				switch {
				case i < at && r.Status != Pass:
					return "labfile.case.mutant_earlier", map[string]any{"Check": r.Check, "Status": string(r.Status)}
				case i == at && r.Check != c.Check && r.Status == Fail:
					return "labfile.case.mutant_also", map[string]any{"Check": r.Check}
				}
			}
		}
	}
	return "", nil
}

// notPassed are the ids of the checks that did not pass, with status.
func (r *Report) notPassed() []string {
	var out []string
	for _, s := range r.Steps {
		for _, c := range s.Checks {
			if c.Status != Pass {
				out = append(out, fmt.Sprintf("%s (%s)", c.Check, c.Status))
			}
		}
	}
	return out
}

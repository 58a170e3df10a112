package judge

import (
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
)

// Where says where a probe can run.
type Where int

const (
	// Local: on the learner's machine, beside the controller (`cnpa
	// check`, `cnpa submit`).
	Local Where = 1 << iota
	// Remote: from another machine that reaches the learner's cluster but
	// not the VM (`cnpa class grade --live`).
	Remote
)

// Probe is one check made by exercising the lab rather than from the
// evidence and the facts: a rerun of reconcile.sh, or temporary
// TeamSpaces (cnpa-check-*) the running controller must serve. Its row
// says what it grades and what to do when it fails; its step has it in
// Step.Probes. The row and its hand, the code that runs it (check.Hand),
// are both in the step's folder (course/stepN/probe*.go).
type Probe struct {
	ID string
	// Step is the number of the step it grades.
	Step int
	// Title is the message id of what it grades (check.title.<id>), said
	// in the chosen language when the check is made.
	Title string
	// Hint is the advice when it fails (a verdict may override it).
	Hint func(f *Facts) string
	// Where it can run: Local, Remote or both.
	Where Where
	// Controller: it exercises the running controller, so it is skipped
	// without a CRD or a running controller (whose own checks fail).
	Controller bool
	// Script: it runs the learner's reconcile.sh itself, acting as the
	// controller, so a caller that must not act (cnpa watch on a change of
	// the cluster, or while the lab has the service stopped) leaves it out
	// (check.Options.Leave).
	Script bool
	// Mistake is the classic mistake its failure points to, when the
	// verdict names none.
	Mistake lab.Mistake
}

// RunsAt tells whether the probe can run at w.
func (p *Probe) RunsAt(w Where) bool { return p.Where&w != 0 }

// Check is the probe's check for its verdict, diagnosed against f.
func (p *Probe) Check(v lab.Verdict, f *Facts) Check {
	return newCheck(p.ID, p.Step, i18n.T(p.Title, i18n.Args{"Script": lab.ScriptName, "Foreign": ForeignFinalizer}), func() string { return p.Hint(f) }, p.Mistake, v, f)
}

// ForeignFinalizer stands for another controller's finalizer, which ours
// must keep (the finalizer probe's).
const ForeignFinalizer = "example.com/keep"

// ProbeIDs are the checks made by probes rather than from the evidence and
// the facts: what Judge cannot judge again.
func (t Table) ProbeIDs() []string { return t.probeIDs(Local | Remote) }

// RemoteIDs are the checks a grader on another machine makes with its own
// probes on the learner's cluster.
func (t Table) RemoteIDs() []string { return t.probeIDs(Remote) }

func (t Table) probeIDs(w Where) []string {
	var ids []string
	for _, p := range t.Probes() {
		if p.RunsAt(w) {
			ids = append(ids, p.ID)
		}
	}
	return ids
}

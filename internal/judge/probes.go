package judge

import (
	"path/filepath"

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
// says what it grades and what to do when it fails; its hands, the one
// function that runs it, are package check's (probe_*.go).
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

// The probes, one row each, in the order package check runs them: the
// reruns first; then the temporary TeamSpaces one at a time, step 4's
// first (how long it takes sets the foreign-namespace probe's wait); the
// foreign namespace last and alone (a controller that stops its pass there
// must cost no other verdict).
var (
	ProbeScriptRuns = &Probe{ID: "step3.script_runs", Step: 3, Where: Local,
		Title: "check.title.step3.script_runs", Hint: scriptHint}
	ProbeRerunWritesNothing = &Probe{ID: "step3.rerun_writes_nothing", Step: 3, Where: Local, Mistake: lab.MistakeWritesEachPass,
		Title: "check.title.step3.rerun_writes_nothing", Hint: writesHint}
	ProbeConverges = &Probe{ID: "step4.new_teamspace_converges", Step: 4, Where: Local | Remote, Controller: true,
		Title: "check.title.step4.new_teamspace_converges",
		Hint:  func(*Facts) string { return i18n.T("check.probe.converges.hint") }}
	ProbeDrift = &Probe{ID: "step5.drift_reverted_live", Step: 5, Where: Local | Remote, Controller: true, Mistake: lab.MistakeEdge,
		Title: "check.title.step5.drift_reverted_live",
		Hint:  driftHint}
	ProbeFinalizerAdded = &Probe{ID: "step6.finalizer_added_keeps_foreign", Step: 6, Where: Local | Remote, Controller: true,
		Title: "check.title.step6.finalizer_added_keeps_foreign", Hint: finalizerHint}
	ProbeDeleteArchives = &Probe{ID: "step6.delete_archives", Step: 6, Where: Local | Remote, Controller: true,
		Title: "check.title.step6.delete_archives", Hint: finalizerHint}
	ProbeForeignNamespace = &Probe{ID: "step3.foreign_namespace_left_alone", Step: 3, Where: Local, Controller: true,
		Title: "check.title.step3.foreign_namespace_left_alone",
		Hint:  func(*Facts) string { return i18n.T("check.probe.foreign.hint") }}
)

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

// driftHint is the advice when the drift probe fails: what the
// controller must do.
func driftHint(f *Facts) string {
	must := i18n.T("check.probe.drift.must")
	if f.Engine == lab.EngineOwn {
		return ControllerAdvice(f, must)
	}
	return i18n.T("check.probe.the_controller", i18n.Args{"Must": must})
}

// finalizerMust is what the controller must do for the finalizer probe:
// the advice for both mistakes the lab text warns about, worded once
// (package lab).
func finalizerMust() string {
	return i18n.T("check.probe.finalizer.must", i18n.Args{"Keep": lab.Say(lab.KeepOtherFinalizers), "Archive": lab.Say(lab.ArchiveThenRelease)})
}

// finalizerHint is the advice when the finalizer probe fails.
func finalizerHint(f *Facts) string {
	if f.Engine == lab.EngineOwn {
		return ControllerAdvice(f, finalizerMust())
	}
	return i18n.T("check.probe.finalizer.hint", i18n.Args{"Must": finalizerMust()})
}

// scriptPath is reconcile.sh's path in the evidence dir.
func scriptPath(f *Facts) string { return filepath.Join(f.Dir, lab.ScriptName) }

// scriptHint is the advice when reconcile.sh is not there to rerun.
func scriptHint(f *Facts) string {
	if f.Engine == lab.EngineOwn {
		return i18n.T("check.probe.script.hint_own", i18n.Args{"Script": lab.ScriptName, "Path": scriptPath(f), "Step": LabStep(3)})
	}
	return i18n.T("check.probe.script.hint", i18n.Args{"Script": lab.ScriptName})
}

// writesHint is the advice when a rerun of reconcile.sh wrote.
func writesHint(f *Facts) string {
	fix := i18n.T("check.probe.writes.hint", i18n.Args{"Script": lab.ScriptName})
	if f.Engine != lab.EngineOwn {
		if why := f.Authors[lab.ScriptName]; why != "" {
			// Step 3 never overwrites a script of the learner's.
			path := scriptPath(f)
			fix += i18n.T("check.probe.writes.theirs", i18n.Args{"Why": why, "Engine": f.Engine,
				"Move": "mv " + lab.QuoteArg(path) + " " + lab.QuoteArg(path) + ".mine"})
		} else {
			fix += i18n.T("check.probe.writes.ours")
		}
	}
	return fix
}

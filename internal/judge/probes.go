package judge

import (
	"path/filepath"

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
	ID    string
	Step  *lab.Step
	Title string
	// Hint is the advice when it fails (a verdict may override it).
	Hint func(f *Facts) string
	// Where it can run: Local, Remote or both.
	Where Where
	// Controller: it exercises the running controller, so it is skipped
	// without a CRD or a running controller (whose own checks fail).
	Controller bool
}

// RunsAt tells whether the probe can run at w.
func (p *Probe) RunsAt(w Where) bool { return p.Where&w != 0 }

// Check is the probe's check for its verdict, diagnosed against f.
func (p *Probe) Check(v Verdict, f *Facts) Check {
	return newCheck(p.ID, p.Step.Number, p.Title, func() string { return p.Hint(f) }, mistakeOf[p.ID], v, f)
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
	ProbeScriptRuns = &Probe{ID: "step3.script_runs", Step: lab.Reconcile, Where: Local,
		Title: lab.ScriptName + " runs to its end, twice", Hint: scriptHint}
	ProbeRerunWritesNothing = &Probe{ID: "step3.rerun_writes_nothing", Step: lab.Reconcile, Where: Local,
		Title: "running " + lab.ScriptName + " twice more writes nothing (TeamSpaces, their namespaces, quotas)", Hint: writesHint}
	ProbeConverges = &Probe{ID: "step4.new_teamspace_converges", Step: lab.Service, Where: Local | Remote, Controller: true,
		Title: "a new TeamSpace gets its namespace, quota and status by itself",
		Hint: func(*Facts) string {
			return "is the controller running and reconciling? `cnpa service status`, `cnpa service logs`"
		}}
	ProbeDrift = &Probe{ID: "step5.drift_reverted_live", Step: lab.Drift, Where: Local | Remote, Controller: true,
		Title: "a temporary TeamSpace's deleted quota comes back as a new object, and a hand edit to it goes back",
		Hint:  driftHint}
	ProbeFinalizerAdded = &Probe{ID: "step6.finalizer_added_keeps_foreign", Step: lab.Cleanup, Where: Local | Remote, Controller: true,
		Title: "a TeamSpace with a foreign finalizer (" + ForeignFinalizer + ") gets ours too and keeps the other", Hint: finalizerHint}
	ProbeDeleteArchives = &Probe{ID: "step6.delete_archives", Step: lab.Cleanup, Where: Local | Remote, Controller: true,
		Title: "deleted, it is archived to archive/<name>.json and loses only our finalizer", Hint: finalizerHint}
	ProbeForeignNamespace = &Probe{ID: "step3.foreign_namespace_left_alone", Step: lab.Reconcile, Where: Local, Controller: true,
		Title: "a namespace team-<name> that existed before its TeamSpace is not adopted",
		Hint: func(*Facts) string {
			return "create team-<name> only when it does not exist, and never add an ownerReference to a namespace you did not make"
		}}
)

// Probes is every probe, in the order they run.
var Probes = []*Probe{ProbeScriptRuns, ProbeRerunWritesNothing, ProbeConverges, ProbeDrift, ProbeFinalizerAdded, ProbeDeleteArchives, ProbeForeignNamespace}

// ProbeIDs are the checks made by probes rather than from the evidence and
// the facts: what Judge cannot judge again.
var ProbeIDs = probeIDs(Local | Remote)

// RemoteIDs are the checks a grader on another machine makes with its own
// probes on the learner's cluster.
var RemoteIDs = probeIDs(Remote)

func probeIDs(w Where) []string {
	var ids []string
	for _, p := range Probes {
		if p.RunsAt(w) {
			ids = append(ids, p.ID)
		}
	}
	return ids
}

// driftMust is what the controller must do for the drift probe.
const driftMust = "must recreate a deleted quota and put back a hand edit on its next pass"

// driftHint is the advice when the drift probe fails.
func driftHint(f *Facts) string {
	if f.Engine == lab.EngineOwn {
		return controllerAdvice(f, driftMust)
	}
	return "the controller " + driftMust
}

// finalizerMust is what the controller must do for the finalizer probe:
// the advice for both mistakes LAB.md warns about, worded once (package
// lab).
const finalizerMust = "must " + lab.KeepOtherFinalizers + " and, " + lab.ArchiveThenRelease

// finalizerHint is the advice when the finalizer probe fails.
func finalizerHint(f *Facts) string {
	if f.Engine == lab.EngineOwn {
		return controllerAdvice(f, finalizerMust)
	}
	return "the controller " + finalizerMust + "; run `cnpa step 6` (it turns finalizer handling on)"
}

// scriptPath is reconcile.sh's path in the evidence dir.
func scriptPath(f *Facts) string { return filepath.Join(f.Dir, lab.ScriptName) }

// scriptHint is the advice when reconcile.sh is not there to rerun.
func scriptHint(f *Facts) string {
	if f.Engine == lab.EngineOwn {
		return "with --engine own, " + lab.ScriptName + " is yours: put it back at " + scriptPath(f) + " (executable), as LAB.md step 3 asks"
	}
	return "run `cnpa step 3` again: it installs " + lab.ScriptName
}

// writesHint is the advice when a rerun of reconcile.sh wrote.
func writesHint(f *Facts) string {
	fix := "a pass must compare desired with actual and write only what differs: make " + lab.ScriptName + " skip objects that already match"
	if f.Engine != lab.EngineOwn {
		if why := f.Authors[lab.ScriptName]; why != "" {
			// Step 3 never overwrites a script of the learner's.
			path := scriptPath(f)
			fix += " (" + why + "; cnpa's " + f.Engine + " engine has one that does: move yours away, `mv " + lab.QuoteArg(path) + " " +
				lab.QuoteArg(path) + ".mine`, then `cnpa step 3` installs it)"
		} else {
			fix += " (`cnpa step 3` installs one that does)"
		}
	}
	return fix
}

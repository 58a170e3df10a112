package judge

import (
	"path/filepath"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
)

// HintStartService is the advice when the controller is not running.
func HintStartService() string { return i18n.T("check.hint.start_service") }

// startOver is the way back to a lab that passes: reset, then the whole
// lab again. Reset keeps the lab's choices (the engine among them) and
// moves the learner's own evidence files aside into <dir>/own-<time>/, so
// the new run measures every step again; naming the engine does no harm.
func (ev *Evidence) startOver() string {
	cmd := "cnpa step all"
	if ev.engine != "" && ev.engine != lab.EngineGo {
		cmd += " --engine " + ev.engine
	}
	var theirs []string
	for _, f := range ev.steps.Files() {
		if !ev.Records[f].Missing() && ev.Theirs(f) {
			theirs = append(theirs, f)
		}
	}
	if len(theirs) == 0 {
		return i18n.T("check.hint.start_over", i18n.Args{"Cmd": cmd})
	}
	return i18n.T("check.hint.start_over_theirs", i18n.Args{"Files": i18n.List(theirs), "Aside": filepath.Join(ev.Dir, "own-<time>"), "Cmd": cmd})
}

// ControllerHint is the advice when the running controller did not do its
// part: with the own engine, the learner's script is the controller and
// what it must do (message mustID) is the point; else cnpa's service may
// just be stopped.
func ControllerHint(mustID string) func(*Evidence, *Facts) string {
	return func(_ *Evidence, f *Facts) string { return ControllerAdvice(f, i18n.T(mustID)) }
}

// ControllerAdvice is controllerHint's text for the facts at hand.
func ControllerAdvice(f *Facts, must string) string {
	if f.Engine == lab.EngineOwn {
		return i18n.T("check.hint.own_controller", i18n.Args{"Script": filepath.Join(f.Dir, lab.ScriptName), "Must": must, "Service": lab.ServiceName})
	}
	return HintStartService()
}

// Redo says how to get step n's evidence written (again). A OnceOnly step
// (lab.Step) needs the cluster as it was before it, and a step whose file a
// later step's file depends on keeps its old file; in both cases only
// starting over helps.
func (ev *Evidence) Redo(n int) string {
	s, err := ev.steps.Get(n)
	if err != nil {
		return i18n.T("check.redo.run", i18n.Args{"N": n})
	}
	if s.Computed {
		if ev.Theirs(s.File) {
			return i18n.T("check.redo.recompute_force", i18n.Args{"N": n, "File": s.File})
		}
		return i18n.T("check.redo.recompute", i18n.Args{"N": n, "File": s.File})
	}
	own, later := "", ""
	for _, f := range ev.steps.Files() {
		present := !ev.Records[f].Missing()
		switch w := ev.steps.StepOf(f).Number; {
		case w == n && present:
			own = f
		case w > n && present && later == "" && !ev.Theirs(f):
			// The learner's file of a later step holds the step back no
			// more than a missing one (steps.laterEvidence).
			later = f
		}
	}
	switch {
	case own == "" && later == "":
		return i18n.T("check.redo.run", i18n.Args{"N": n})
	case own != "" && s.OnceOnly && ev.Theirs(own):
		// The learner's file: a value is fixed by writing it; the step
		// itself cannot run again on this cluster.
		return i18n.T("check.redo.yours", i18n.Args{"File": own, "StartOver": ev.startOver()})
	case s.OnceOnly:
		return i18n.T("check.redo.once_only", i18n.Args{"N": n, "StartOver": ev.startOver()})
	case later != "":
		return i18n.T("check.redo.later", i18n.Args{"Later": later, "N": n, "StartOver": ev.startOver()})
	case ev.Theirs(own):
		return i18n.T("check.redo.force", i18n.Args{"N": n, "File": own})
	}
	return i18n.T("check.redo.again", i18n.Args{"N": n})
}

// Stale is the hint for a value that disagrees with the cluster or another
// file: it was edited, or is left from an earlier run.
func (ev *Evidence) Stale(n int, file string) string {
	return i18n.T("check.hint.stale", i18n.Args{"File": file, "Redo": ev.Redo(n)})
}

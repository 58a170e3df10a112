package judge

import (
	"path/filepath"
	"strings"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
)

// hintStartService is the advice when the controller is not running.
func hintStartService() string { return i18n.T("check.hint.start_service") }

// startOver is the way back to a lab that passes: reset, then the whole
// lab again. Reset keeps the lab's choices (the engine among them) and
// moves the learner's own evidence files aside into <dir>/own-<time>/, so
// the new run measures every step again; naming the engine does no harm.
func (ev *evidenceSet) startOver() string {
	cmd := "cnpa step all"
	if ev.engine != "" && ev.engine != lab.EngineGo {
		cmd += " --engine " + ev.engine
	}
	var theirs []string
	for _, f := range lab.Files {
		if !ev.Records[f].Missing() && ev.theirs(f) {
			theirs = append(theirs, f)
		}
	}
	if len(theirs) == 0 {
		return i18n.T("check.hint.start_over", i18n.Args{"Cmd": cmd})
	}
	return i18n.T("check.hint.start_over_theirs", i18n.Args{"Files": strings.Join(theirs, ", "), "Aside": filepath.Join(ev.Dir, "own-<time>"), "Cmd": cmd})
}

// controllerHint is the advice when the running controller did not do its
// part: with the own engine, the learner's script is the controller and
// what it must do (message mustID) is the point; else cnpa's service may
// just be stopped.
func controllerHint(mustID string) func(*evidenceSet, *Facts) string {
	return func(_ *evidenceSet, f *Facts) string { return controllerAdvice(f, i18n.T(mustID)) }
}

// controllerAdvice is controllerHint's text for the facts at hand.
func controllerAdvice(f *Facts, must string) string {
	if f.Engine == lab.EngineOwn {
		return i18n.T("check.hint.own_controller", i18n.Args{"Script": filepath.Join(f.Dir, lab.ScriptName), "Must": must, "Service": lab.ServiceName})
	}
	return hintStartService()
}

// redo says how to get step n's evidence written (again). A OnceOnly step
// (lab.Step) needs the cluster as it was before it, and a step whose file a
// later step's file depends on keeps its old file; in both cases only
// starting over helps.
func (ev *evidenceSet) redo(n int) string {
	s, err := lab.Get(n)
	if err != nil {
		return i18n.T("check.redo.run", i18n.Args{"N": n})
	}
	if s.Computed {
		if ev.theirs(s.File) {
			return i18n.T("check.redo.recompute_force", i18n.Args{"N": n, "File": s.File})
		}
		return i18n.T("check.redo.recompute", i18n.Args{"N": n, "File": s.File})
	}
	own, later := "", ""
	for _, f := range lab.Files {
		present := !ev.Records[f].Missing()
		switch w := lab.StepOf(f).Number; {
		case w == n && present:
			own = f
		case w > n && present && later == "" && !ev.theirs(f):
			// The learner's file of a later step holds the step back no
			// more than a missing one (steps.laterEvidence).
			later = f
		}
	}
	switch {
	case own == "" && later == "":
		return i18n.T("check.redo.run", i18n.Args{"N": n})
	case own != "" && s.OnceOnly && ev.theirs(own):
		// The learner's file: a value is fixed by writing it; the step
		// itself cannot run again on this cluster.
		return i18n.T("check.redo.yours", i18n.Args{"File": own, "StartOver": ev.startOver()})
	case s.OnceOnly:
		return i18n.T("check.redo.once_only", i18n.Args{"N": n, "StartOver": ev.startOver()})
	case later != "":
		return i18n.T("check.redo.later", i18n.Args{"Later": later, "N": n, "StartOver": ev.startOver()})
	case ev.theirs(own):
		return i18n.T("check.redo.force", i18n.Args{"N": n, "File": own})
	}
	return i18n.T("check.redo.again", i18n.Args{"N": n})
}

// stale is the hint for a value that disagrees with the cluster or another
// file: it was edited, or is left from an earlier run.
func (ev *evidenceSet) stale(n int, file string) string {
	return i18n.T("check.hint.stale", i18n.Args{"File": file, "Redo": ev.redo(n)})
}

package judge

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/labhub/cnpa/internal/lab"
)

// hintStartService is the advice when the controller is not running.
const hintStartService = "the controller is not running: `cnpa service start` (logs: `cnpa service logs`)"

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
		return "start over: `cnpa reset --yes`, then `" + cmd + "`"
	}
	return fmt.Sprintf("start over: `cnpa reset --yes` (it moves your own %s aside into %s/), then `%s`",
		strings.Join(theirs, ", "), filepath.Join(ev.Dir, "own-<time>"), cmd)
}

// controllerHint is the advice when the running controller did not do its
// part: with the own engine, the learner's script is the controller and
// what it must do is the point; else cnpa's service may just be stopped.
func controllerHint(must string) func(*evidenceSet, *Facts) string {
	return func(_ *evidenceSet, f *Facts) string { return controllerAdvice(f, must) }
}

// controllerAdvice is controllerHint's text for the facts at hand.
func controllerAdvice(f *Facts, must string) string {
	if f.Engine == lab.EngineOwn {
		return "your " + filepath.Join(f.Dir, lab.ScriptName) + " " + must +
			"; it runs in a loop as " + lab.ServiceName + " (`cnpa service status`, `cnpa service logs` shows its last passes)"
	}
	return hintStartService
}

// redo says how to get step n's evidence written (again). A OnceOnly step
// (lab.Step) needs the cluster as it was before it, and a step whose file a
// later step's file depends on keeps its old file; in both cases only
// starting over helps.
func (ev *evidenceSet) redo(n int) string {
	s, err := lab.Get(n)
	if err != nil {
		return fmt.Sprintf("run `cnpa step %d`", n)
	}
	if s.Computed {
		if ev.theirs(s.File) {
			return fmt.Sprintf("run `cnpa step %d --force` again: it recomputes %s from the other files (yours, changed since cnpa wrote it, is kept as %s.bak-<time>)", n, s.File, s.File)
		}
		return fmt.Sprintf("run `cnpa step %d` again: it recomputes %s from the other files", n, s.File)
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
		return fmt.Sprintf("run `cnpa step %d`", n)
	case own != "" && s.OnceOnly && ev.theirs(own):
		// The learner's file: a value is fixed by writing it; the step
		// itself cannot run again on this cluster.
		return fmt.Sprintf("%s is yours: write the value each ✗ line of it expects; or %s", own, ev.startOver())
	case s.OnceOnly:
		return fmt.Sprintf("the cluster has moved past step %d, so it cannot be repeated: %s", n, ev.startOver())
	case later != "":
		return fmt.Sprintf("%s of a later step exists, so `cnpa step %d` would keep what it wrote: %s", later, n, ev.startOver())
	case ev.theirs(own):
		return fmt.Sprintf("run `cnpa step %d --force` again (%s changed since cnpa wrote it: --force keeps yours as %s.bak-<time>)", n, own, own)
	}
	return fmt.Sprintf("run `cnpa step %d` again", n)
}

// stale is the hint for a value that disagrees with the cluster or another
// file: it was edited, or is left from an earlier run.
func (ev *evidenceSet) stale(n int, file string) string {
	return file + " does not describe this cluster (edited, or left from an earlier run): " + ev.redo(n)
}

package check

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/service"
)

// hintStartService is the advice when the controller is not running.
const hintStartService = "the controller is not running: `cnpa service start` (logs: `cnpa service logs`)"

// startOver is the way back to a lab that passes: reset, then the whole
// lab again. Reset keeps the lab's choices (the engine among them) and
// moves the learner's own evidence files aside into <dir>/own-<time>/, so
// the new run measures every step again; naming the engine does no harm.
func (ev *evidenceSet) startOver() string {
	cmd := "cnpa step all"
	if ev.engine != "" && ev.engine != labenv.EngineGo {
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

// theirs tells whether the evidence file is the learner's now: cnpa's
// manifest does not say cnpa wrote what it holds (edited by hand, say).
// A step refuses to overwrite such a file unless --force.
func (ev *evidenceSet) theirs(file string) bool {
	why, err := evidence.Theirs(ev.Dir, file)
	return err == nil && why != ""
}

// controllerHint is the advice when the running controller did not do its
// part: with the own engine, the learner's script is the controller and
// what it must do is the point; else cnpa's service may just be stopped.
func controllerHint(must string) func(*evidenceSet, *facts) string {
	return func(_ *evidenceSet, f *facts) string { return controllerAdvice(f, must) }
}

// controllerAdvice is controllerHint's text for the facts at hand.
func controllerAdvice(f *facts, must string) string {
	if f.engine == labenv.EngineOwn {
		return "your " + filepath.Join(f.dir, labenv.ScriptName) + " " + must +
			"; it runs in a loop as " + service.Name + " (`cnpa service status`, `cnpa service logs` shows its last passes)"
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

// stepChecks is what `cnpa check` grades for one step: the evidence file
// the step writes, judged key by key by the lab's rules (package lab),
// then the facts of the live cluster and the machine that step leaves.
type stepChecks struct {
	// step is the step graded; its File (none for step 4) is judged key
	// by key.
	step *lab.Step
	live []liveCheck
}

// liveCheck is one fact of the cluster or the machine, graded like a key.
type liveCheck struct {
	id, title string
	// titleFor, when set, words the title from the facts instead.
	titleFor func(f *facts) string
	// hint is the advice when the check fails (a verdict may override it).
	hint  func(ev *evidenceSet, f *facts) string
	judge func(ev *evidenceSet, f *facts) verdict
}

// hintText is a hint that depends on nothing.
func hintText(s string) func(*evidenceSet, *facts) string {
	return func(*evidenceSet, *facts) string { return s }
}

// withLive is the steps with live checks, in lab order (one file per
// step: step1.go, step3.go, …). A step whose file says it all (2, 8) has
// none, and its file is judged by the lab's rules alone.
var withLive = []*stepChecks{step1Checks, step3Checks, step4Checks, step5Checks, step6Checks, step7Checks}

// checksOf is step s's checks: its live checks, if it has any.
func checksOf(s *lab.Step) *stepChecks {
	for _, c := range withLive {
		if c.step == s {
			return c
		}
	}
	return &stepChecks{step: s}
}

// evaluate judges the evidence against itself and against the facts. It
// reads nothing and writes nothing, so it is tested without a cluster.
func evaluate(ev *evidenceSet, f *facts) []Check {
	ev.engine = f.engine // for the hints
	c := &checker{}
	in := ev.inputs(f)
	for _, step := range lab.Steps {
		s := checksOf(step)
		if file := s.step.File; file != "" {
			rec := ev.Records[file]
			c.file(rec, ev.redo(s.step.Number))
			for _, r := range lab.For(file) {
				c.rule(ev, rec, r, in)
			}
		}
		for _, l := range s.live {
			title := l.title
			if l.titleFor != nil {
				title = l.titleFor(f)
			}
			c.add(l.id, s.step.Number, title, l.hint(ev, f), l.judge(ev, f))
		}
	}
	return c.checks
}

// rule adds the check of one evidence key: when the key is missing or of
// the wrong type it fails here, else the lab's rule decides.
func (c *checker) rule(ev *evidenceSet, rec *lab.Record, r lab.Rule, in *lab.Inputs) {
	// A file of the learner's is fixed by writing the right value, named
	// with its key, when the rule wants one value (a JSON value, not
	// words); only what compares with a gone cluster asks for more.
	theirs := ev.theirs(r.File)
	hintOf := func(h lab.Hint, want string) string {
		switch {
		case h == lab.StartOver:
			return ev.startOver()
		case theirs && json.Valid([]byte(want)) && lab.StepOf(r.File).Computed:
			return lab.WriteValue(r.File, r.Key, want) + ", or " + ev.redo(r.Step)
		case theirs && json.Valid([]byte(want)):
			return lab.WriteValue(r.File, r.Key, want)
		case h == lab.Stale:
			return ev.stale(r.Step, r.File)
		}
		return ev.redo(r.Step)
	}
	c.key(rec, r.Key, r.ID, r.Title, r.Expected, hintOf(r.Hint, r.Expected), func(v any) verdict {
		j := r.Judge(v, in)
		out := verdict{ok: j.OK, want: j.Want, got: j.Got, skip: j.Skip}
		h := r.Hint
		if j.Hint != nil {
			h = *j.Hint
		}
		out.hint = hintOf(h, j.Want)
		return out
	})
}

// inputs is what the rules compare with: the other records, the archive
// record, report.json as computed, and the live alpha.
func (ev *evidenceSet) inputs(f *facts) *lab.Inputs {
	in := &lab.Inputs{Alpha: f.alpha, Value: func(file, key string) (any, string) { return ev.Records[file].Get(key) }}
	if ev.archiveProblem != "" {
		in.ArchiveProblem = ev.archiveProblem
	} else {
		in.ArchiveUID = ev.Archive.UID
	}
	report, err := lab.ComputeReport(ev.State)
	if err == nil {
		in.Report, err = lab.Values(lab.ReportFile, report)
	}
	if err != nil {
		in.ReportProblem = ev.reportInputsProblem(err).Error()
	}
	return in
}

// reportInputsProblem names the inputs at fault when report.json cannot be
// computed: their own checks fail and say why.
func (ev *evidenceSet) reportInputsProblem(err error) error {
	var bad []string
	for _, f := range []string{lab.BeforeFile, lab.GenerationFile, lab.DriftFile, lab.CatchupFile} {
		if r := ev.Records[f]; r.Problem != "" || len(r.KeyProblems) > 0 || len(r.Extra) > 0 {
			bad = append(bad, f)
		}
	}
	if ev.archiveProblem != "" {
		bad = append(bad, "archive/beta.json")
	}
	if len(bad) > 0 {
		return fmt.Errorf("%s, which report.json is computed from, fails its own checks", strings.Join(bad, ", "))
	}
	return err
}

package judge

import (
	"encoding/json"
	"errors"
	"strings"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
)

// stepChecks is what `cnpa check` grades for one step: the evidence file
// the step writes, judged key by key by the lab's rules (package lab),
// then the facts of the live cluster and the machine that step leaves.
type stepChecks struct {
	// step is the step graded; its File (none for step 4) is judged key
	// by key.
	step  *lab.Step
	facts []factCheck
}

// factCheck is one fact of the cluster or the machine, graded like a key.
type factCheck struct {
	// id is the check's; title the message id of what must hold (its
	// words are the chosen language's), args its placeholders.
	id, title string
	args      i18n.Args
	// titleFor, when set, words the title from the facts instead.
	titleFor func(f *Facts) string
	// hint is the advice when the check fails (a verdict may override it).
	hint  func(ev *evidenceSet, f *Facts) string
	judge func(ev *evidenceSet, f *Facts) Verdict
	// vm: only the learner's machine can see this fact (the unit file, the
	// service manager's view), never the cluster (VMIDs).
	vm bool
	// mistake is the classic mistake its failure points to, when the
	// verdict names none.
	mistake lab.Mistake
}

// hintText is a hint that depends on nothing.
func hintText(s string) func(*evidenceSet, *Facts) string {
	return func(*evidenceSet, *Facts) string { return s }
}

// withFacts is the steps with fact checks, in lab order (one file per
// step: step1.go, step3.go, …). A step whose file says it all (2, 8) has
// none, and its file is judged by the lab's rules alone.
var withFacts = []*stepChecks{step1Checks, step3Checks, step4Checks, step5Checks, step6Checks, step7Checks}

// checksOf is step s's checks: its fact checks, if it has any.
func checksOf(s *lab.Step) *stepChecks {
	for _, c := range withFacts {
		if c.step == s {
			return c
		}
	}
	return &stepChecks{step: s}
}

// VMIDs are the checks only the learner's VM can judge: the unit file and
// the service manager's view of the service. Judge judges them again from
// the recorded facts; graded live from another machine, they are the
// learner's own run's, as reported.
var VMIDs = func() []string {
	var ids []string
	for _, s := range withFacts {
		for _, l := range s.facts {
			if l.vm {
				ids = append(ids, l.id)
			}
		}
	}
	return ids
}()

// Judge judges the evidence st against itself and against the facts f:
// every check of the files and of the cluster and the machine as f
// shows them, each failure diagnosed. It reads no cluster and runs
// nothing, so it is tested without one; the probes (package check) add
// their checks to the report it returns. Judged again against facts an
// earlier run recorded (a submission's), it grades that run again.
func Judge(st *lab.State, f *Facts) *Report {
	ev := gradeState(st, f)
	c := &checker{facts: f}
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
		for _, l := range s.facts {
			var title string
			if l.titleFor != nil {
				title = l.titleFor(f)
			} else {
				title = i18n.T(l.title, l.args)
			}
			mistake := l.mistake
			if mistake.IsZero() {
				mistake = mistakeOf[l.id]
			}
			c.checks = append(c.checks, newCheck(l.id, s.step.Number, title, func() string { return l.hint(ev, f) }, mistake, l.judge(ev, f), f))
		}
	}
	rep := &Report{Dir: st.Dir, Checks: c.checks}
	rep.Finish(0)
	return rep
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
			return i18n.T("check.either", i18n.Args{"A": lab.WriteValue(r.File, r.Key, want), "B": ev.redo(r.Step)})
		case theirs && json.Valid([]byte(want)):
			return lab.WriteValue(r.File, r.Key, want)
		case h == lab.Stale:
			return ev.stale(r.Step, r.File)
		}
		return ev.redo(r.Step)
	}
	expected := RuleExpected(r)
	c.key(rec, r.Key, r.ID, RuleTitle(r), expected, func() string { return hintOf(r.Hint, r.Expected) }, func(v any) Verdict {
		j := r.Judge(v, in)
		out := Verdict{OK: j.OK, Want: j.Want, Got: j.Got, Skip: j.Skip}
		if j.Want == r.Expected {
			// The rule's words for what it wants, in the title's language.
			out.Want = expected
		}
		h := r.Hint
		if j.Hint != nil {
			h = *j.Hint
		}
		out.Hint = hintOf(h, j.Want)
		return out
	})
}

// inputs is what the rules compare with: the other records, the archive
// record, report.json as computed, and the live alpha.
func (ev *evidenceSet) inputs(f *Facts) *lab.Inputs {
	in := &lab.Inputs{Alpha: f.Alpha, Value: func(file, key string) (any, string) { return ev.Records[file].Get(key) }}
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
		bad = append(bad, lab.BetaArchive)
	}
	if len(bad) > 0 {
		return errors.New(i18n.T("check.report_inputs_fail", i18n.Args{"Files": strings.Join(bad, ", ")}))
	}
	return err
}

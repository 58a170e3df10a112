package judge

import (
	"encoding/json"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
)

// Step is what `cnpa check` grades for one step: the evidence file the
// step writes, judged key by key by the lab's rules, then the facts of the
// live cluster and the machine that step leaves, and the probes that
// exercise the lab. Each step's is in its folder under package course.
type Step struct {
	*lab.Step
	Facts []Fact
	// Probes are the step's live probes' rows (their hands are package
	// check's Hand values, in the same folder).
	Probes []*Probe
}

// Table is the grader's steps, in lab order (course.Steps.Grader()).
type Table []*Step

// Lab is the table's steps as package lab has them.
func (t Table) Lab() lab.Table { return lab.TableOf(t) }

// Probes is every probe's row, in lab order.
func (t Table) Probes() []*Probe {
	var out []*Probe
	for _, s := range t {
		out = append(out, s.Probes...)
	}
	return out
}

// Fact is one fact of the cluster or the machine, graded like a key.
type Fact struct {
	// ID is the check's; Title the message id of what must hold (its
	// words are the chosen language's), Args its placeholders.
	ID, Title string
	Args      i18n.Args
	// TitleFor, when set, words the title from the facts instead.
	TitleFor func(f *Facts) string
	// Hint is the advice when the check fails (a verdict may override it).
	Hint  func(ev *Evidence, f *Facts) string
	Judge func(ev *Evidence, f *Facts) lab.Verdict
	// VM: only the learner's machine can see this fact (the unit file, the
	// service manager's view), never the cluster (Table.VMIDs).
	VM bool
	// Mistake is the classic mistake its failure points to, when the
	// verdict names none.
	Mistake lab.Mistake
}

// HintText is a hint that depends on nothing.
func HintText(s string) func(*Evidence, *Facts) string {
	return func(*Evidence, *Facts) string { return s }
}

// VMIDs are the checks only the learner's VM can judge: the unit file and
// the service manager's view of the service. Judge judges them again from
// the recorded facts; graded live from another machine, they are the
// learner's own run's, as reported.
func (t Table) VMIDs() []string {
	var ids []string
	for _, s := range t {
		for _, l := range s.Facts {
			if l.VM {
				ids = append(ids, l.ID)
			}
		}
	}
	return ids
}

// Judge judges the evidence st against itself and against the facts f:
// every check of the files and of the cluster and the machine as f
// shows them, each failure diagnosed. It reads no cluster and runs
// nothing, so it is tested without one; the probes (package check) add
// their checks to the report it returns. Judged again against facts an
// earlier run recorded (a submission's), it grades that run again.
func (t Table) Judge(st *lab.State, f *Facts) *Report {
	ev := gradeState(t.Lab(), st, f)
	c := &checker{facts: f}
	in := ev.inputs(f)
	for _, s := range t {
		if file := s.File; file != "" {
			rec := ev.Records[file]
			c.file(rec, ev.Redo(s.Number))
			for _, r := range s.Rules {
				c.rule(ev, rec, r, in)
			}
		}
		for _, l := range s.Facts {
			var title string
			if l.TitleFor != nil {
				title = l.TitleFor(f)
			} else {
				title = i18n.T(l.Title, l.Args)
			}
			c.checks = append(c.checks, newCheck(l.ID, s.Number, title, func() string { return l.Hint(ev, f) }, l.Mistake, l.Judge(ev, f), f))
		}
	}
	rep := &Report{Dir: st.Dir, Checks: c.checks}
	rep.Finish(0)
	return rep
}

// rule adds the check of one evidence key: when the key is missing or of
// the wrong type it fails here, else the lab's rule decides.
func (c *checker) rule(ev *Evidence, rec *lab.Record, r lab.Rule, in *lab.Inputs) {
	// A file of the learner's is fixed by writing the right value, named
	// with its key, when the rule wants one value (a JSON value, not
	// words); only what compares with a gone cluster asks for more.
	theirs := ev.Theirs(r.File)
	hintOf := func(h lab.Hint, want string) string {
		switch {
		case h == lab.StartOver:
			return ev.startOver()
		case theirs && json.Valid([]byte(want)) && ev.steps.StepOf(r.File).Computed:
			return r.WhySaid() + i18n.T("check.redo.or_compute", i18n.Args{"Write": lab.WriteValue(r.File, r.Key, want), "N": r.Step, "File": r.File})
		case theirs && json.Valid([]byte(want)):
			return r.WhySaid() + lab.WriteValue(r.File, r.Key, want)
		case h == lab.Stale:
			return r.WhySaid() + ev.Stale(r.Step, r.File)
		}
		return r.WhySaid() + ev.Redo(r.Step)
	}
	expected := RuleExpected(r)
	c.key(rec, r.Key, r.ID, RuleTitle(r), expected, func() string { return hintOf(r.Hint, r.Expected) }, r.Mistake, func(v any) lab.Verdict {
		// What it wants is the verdict's, or the rule's own expected
		// value as shown (Apply), in the title's language.
		j := r.Apply(v, in)
		out := lab.Verdict{OK: j.OK, Want: j.Want, Got: j.Got, Skip: j.Skip}
		h := r.Hint
		if j.Hint != nil {
			h = *j.Hint
		}
		out.Advice = hintOf(h, j.Want)
		return out
	})
}

// inputs is what the rules compare with: the other records, the archive
// record, report.json as computed, and the live alpha.
func (ev *Evidence) inputs(f *Facts) *lab.Inputs {
	in := &lab.Inputs{Alpha: f.Alpha, Value: func(file, key string) (any, string) { return ev.Records[file].Get(key) }, QuotaRead: true}
	if f.Quota != nil {
		in.QuotaUID = string(f.Quota.UID)
	}
	if ev.ArchiveProblem != "" {
		in.ArchiveProblem = ev.ArchiveProblem
	} else {
		in.ArchiveUID = ev.Archive.UID
	}
	report, err := lab.ComputeReport(ev.State)
	if err == nil {
		in.Report, err = ev.steps.Values(lab.ReportFile, report)
	}
	if err != nil {
		in.ReportProblem = ev.reportInputsProblem(err).Error()
	}
	return in
}

// reportInputsProblem names the inputs at fault when report.json cannot be
// computed: their own checks fail and say why.
func (ev *Evidence) reportInputsProblem(err error) error {
	var bad []string
	for _, f := range []string{lab.BeforeFile, lab.GenerationFile, lab.DriftFile, lab.CatchupFile} {
		if r := ev.Records[f]; r.Problem != "" || len(r.KeyProblems) > 0 || len(r.Extra) > 0 {
			bad = append(bad, f)
		}
	}
	if ev.ArchiveProblem != "" {
		bad = append(bad, lab.BetaArchive)
	}
	if len(bad) > 0 {
		return i18n.NewError("check.report_inputs_fail", i18n.Args{"Files": i18n.List(bad)})
	}
	return err
}

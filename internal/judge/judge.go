// Package judge is the grader's judgement, apart from its hands: the
// results (Check, Report, Status), the facts the evidence is judged
// against (Facts), the verdicts of the lab's rules and of the fact tables
// (Judge), the live probes' rows (probes.go; each step's are in its
// folder under package course), the diagnosis of the classic mistakes,
// and the text, JSON and JUnit outputs. It reads the
// evidence as package lab read it and the facts as given: it asks no
// cluster and runs nothing, so `cnpa check` (package check, the hands),
// `cnpa submit`, the submission file, `cnpa report` and `cnpa class grade`
// share it without linking the probing machinery.
//
// Every check is reported, not only the first that fails, each with what
// was expected, what was found, what to do, and the classic mistake it
// points to.
package judge

import (
	"fmt"
	"sort"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
)

// Status is the outcome of one check.
type Status string

const (
	// Pass: the check holds.
	Pass Status = "pass"
	// Fail: it does not; the hint says what to do.
	Fail Status = "fail"
	// Skip: it could not be evaluated because something it reads is
	// missing or broken, and that thing's own check fails. A report with a
	// skip therefore always has a failure too.
	Skip Status = "skip"
	// Note: the check looks at something the lab text does not ask for, and it
	// does not hold. Check.Note says what that would mean on a real
	// platform; a note never counts as a failure.
	Note Status = "note"
)

// Check is one graded fact: as `cnpa check` reports it, as a submission
// records it, and as `cnpa class grade` grades it again. Its words (Title,
// Expected and Actual when they are words, Hint, Note) are in the language
// cnpa spoke when the check was made (package i18n); its ID, Step, Status
// and Diagnosis are the same in every language.
type Check struct {
	// ID is stable across runs and releases, e.g. step5.restored_uid_new.
	ID   string `json:"id"`
	Step int    `json:"step"`
	// Title says in words what must hold.
	Title    string `json:"title"`
	Status   Status `json:"status"`
	Expected string `json:"expected"`
	Actual   string `json:"actual"`
	Hint     string `json:"hint,omitempty"`
	// Note tells what cnpa's own engines do beyond what the lab text asks,
	// or what a check the lab text does not ask for found; it is shown beside the
	// check and never fails it.
	Note string `json:"note,omitempty"`
	// Diagnosis is the classic mistake a failed check points to (Diagnose),
	// zero when it points to none; it is written as the mistake's name.
	Diagnosis lab.Mistake `json:"diagnosis,omitzero"`
	// AsReported: the check is the learner's own run's, taken from the
	// submission (`cnpa class grade`): it looks at what only the VM can
	// see, or needs a probe that could not be made here.
	AsReported bool `json:"as_reported,omitempty"`
	// Recorded is the status the submission recorded, when the grade
	// differs from it.
	Recorded Status `json:"recorded,omitempty"`

	// mistake is the one the verdict itself named (or its row), before the
	// facts are consulted: kept so that a check can be diagnosed again
	// against other facts (Diagnose).
	mistake lab.Mistake
	// notDone: the check of a step's file failed because the file is
	// missing (LabDiagnosis: "step N not done").
	notDone bool
}

// Report is the result of one run of the grader.
type Report struct {
	Dir    string `json:"dir"`
	Server string `json:"server"`
	// Step is the one step checked, 0 for all.
	Step    int     `json:"step,omitempty"`
	Checks  []Check `json:"checks"`
	Passed  int     `json:"passed"`
	Failed  int     `json:"failed"`
	Skipped int     `json:"skipped"`
	// Notes counts the checks with status note: not failures.
	Notes int `json:"notes"`
	// Stress is the last `cnpa stress`, when it ran: a section of its own,
	// outside every count above and the exit code (the lab's 8 steps do
	// not ask for it).
	Stress *StressReport `json:"stress,omitempty"`
	// StressPoints is each fault's points when the instructor's policy
	// counts stress in the grade (0: it does not).
	StressPoints float64 `json:"stress_points,omitempty"`
}

// OK tells whether no check failed.
func (r *Report) OK() bool { return r.Failed == 0 }

// FailedIDs lists the ids of the failed checks, in report order.
func (r *Report) FailedIDs() []string {
	var ids []string
	for _, c := range r.Checks {
		if c.Status == Fail {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

// Finish keeps the checks of one step (0: all), orders them by step
// (stable within a step) and counts them.
func (r *Report) Finish(step int) {
	r.Step = step
	kept := r.Checks[:0]
	for _, c := range r.Checks {
		if step == 0 || c.Step == step {
			kept = append(kept, c)
		}
	}
	r.Checks = kept
	sort.SliceStable(r.Checks, func(i, j int) bool { return r.Checks[i].Step < r.Checks[j].Step })
	r.Passed, r.Failed, r.Skipped, r.Notes = 0, 0, 0, 0
	for _, c := range r.Checks {
		switch c.Status {
		case Pass:
			r.Passed++
		case Fail:
			r.Failed++
		case Skip:
			r.Skipped++
		case Note:
			r.Notes++
		}
	}
}

// show renders a value as JSON, as the lab's rules do.
var show = lab.Show

// newCheck is the check of one verdict: its status, and for a failure the
// hint (the verdict's, else hint()) and the diagnosis against f. mistake
// is what the check's row names when it fails (the verdict may name
// another).
func newCheck(id string, step int, title string, hint func() string, mistake lab.Mistake, v lab.Verdict, f *Facts) Check {
	ch := Check{ID: id, Step: step, Title: title, Expected: v.Want, Actual: v.Got, Note: v.Note}
	switch {
	case v.Skip != "":
		ch.Status, ch.Actual = Skip, i18n.T("check.not_checked", i18n.Args{"Why": v.Skip})
		return ch
	case v.OK:
		ch.Status = Pass
		return ch
	case v.Optional:
		ch.Status = Note
	default:
		ch.Status = Fail
	}
	ch.Hint = v.Advice
	if ch.Hint == "" && hint != nil {
		ch.Hint = hint()
	}
	ch.mistake = mistake
	if !v.Mistake.IsZero() {
		ch.mistake = v.Mistake
	}
	ch.Diagnosis = Diagnose(ch, f)
	return ch
}

// checker collects checks in the order they are made.
type checker struct {
	facts  *Facts
	checks []Check
}

func (c *checker) add(id string, step int, title string, hint func() string, mistake lab.Mistake, v lab.Verdict) {
	c.checks = append(c.checks, newCheck(id, step, title, hint, mistake, v, c.facts))
}

// text is a hint that is known already.
func text(s string) func() string { return func() string { return s } }

// file adds stepN.file: the record exists, is one JSON object, and has no
// key the lab text does not name (a missing or mistyped key fails that
// key's own check instead).
func (c *checker) file(r *lab.Record, hint string) {
	title := i18n.T("check.file.title", i18n.Args{"File": r.File})
	v := lab.Holds(true, i18n.T("check.file.want"), i18n.T("check.file.got"))
	switch {
	case r.Problem != "":
		v = lab.Holds(false, v.Want, r.Found())
	case len(r.Extra) > 0:
		v = lab.Holds(false, v.Want, fmt.Sprint(r.Extra))
		hint = i18n.T("check.file.hint_extra", i18n.Args{"Hint": hint})
	}
	c.add(fmt.Sprintf("step%d.file", r.Step), r.Step, title, text(hint), lab.Mistake{}, v)
	if r.Missing() {
		c.checks[len(c.checks)-1].notDone = true
	}
}

// key adds the check that owns one key of a record: when the key is missing
// or of the wrong type it fails here (expected: want), else judge decides.
func (c *checker) key(r *lab.Record, key, id, title, want string, hint func() string, mistake lab.Mistake, judge func(v any) lab.Verdict) {
	var v lab.Verdict
	switch {
	case r.Problem != "":
		v = lab.Skipped(r.Unusable())
	case r.KeyProblems[key] != "":
		v = lab.Holds(false, want, r.KeyFound(key))
	default:
		v = judge(r.Values[key])
	}
	c.add(id, r.Step, title, hint, mistake, v)
}

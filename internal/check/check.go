// Package check grades the lab the way its grader does, and then some: every
// evidence file is read strictly, every value is compared with what a
// correct run yields, with the other files and with the live cluster, and
// the running controller is exercised with temporary TeamSpaces. Edited or
// stale evidence fails; every check is reported, not only the first that
// fails, each with what was expected, what was found and what to do.
package check

import (
	"fmt"
	"sort"

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
	// Note: the check looks at something LAB.md does not ask for, and it
	// does not hold. Check.Note says what that would mean on a real
	// platform; a note never counts as a failure.
	Note Status = "note"
)

// Check is one graded fact.
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
	// Note tells what cnpa's own engines do beyond what LAB.md asks, or
	// what a check LAB.md does not ask for found; it is shown beside the
	// check and never fails it.
	Note string `json:"note,omitempty"`
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

// finish keeps the checks of one step (0: all), orders them by step (stable
// within a step) and counts them.
func (r *Report) finish(step int, checks []Check) {
	r.Step = step
	r.Checks = r.Checks[:0]
	for _, c := range checks {
		if step == 0 || c.Step == step {
			r.Checks = append(r.Checks, c)
		}
	}
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

// verdict is what a judge function decides. A non-empty skip means it could
// not decide, and why.
type verdict struct {
	ok        bool
	want, got string
	skip      string
	// hint overrides the check's hint for this outcome.
	hint string
	// note is what cnpa's engines add beyond LAB.md, or what a check of
	// something LAB.md does not ask found (see Check.Note).
	note string
	// optional: LAB.md does not ask for what this checks, so when it does
	// not hold the check is a note, not a failure.
	optional bool
}

// same compares two values by their JSON form, so 6 and int64(6) are equal
// and "6" and 6 are not, as the lab's types demand.
func same(want, got any) verdict {
	w, g := show(want), show(got)
	return verdict{ok: w == g, want: w, got: g}
}

// holds reports a condition with its own wording for both sides.
func holds(ok bool, want, got string) verdict { return verdict{ok: ok, want: want, got: got} }

func skipped(why string) verdict { return verdict{skip: why} }

// show renders a value as JSON, as the lab's rules do.
var show = lab.Show

// checker collects checks in the order they are made.
type checker struct {
	checks []Check
}

func (c *checker) add(id string, step int, title, hint string, v verdict) {
	ch := Check{ID: id, Step: step, Title: title, Expected: v.want, Actual: v.got, Hint: hint, Note: v.note}
	if v.hint != "" {
		ch.Hint = v.hint
	}
	switch {
	case v.skip != "":
		ch.Status, ch.Actual, ch.Hint = Skip, "not checked: "+v.skip, ""
	case v.ok:
		ch.Status, ch.Hint = Pass, ""
	case v.optional:
		ch.Status = Note
	default:
		ch.Status = Fail
	}
	c.checks = append(c.checks, ch)
}

// file adds stepN.file: the record exists, is one JSON object, and has no
// key LAB.md does not name (a missing or mistyped key fails that key's own
// check instead).
func (c *checker) file(r *lab.Record, hint string) {
	title := r.File + " exists, is one JSON object and has no keys beyond LAB.md's"
	v := holds(true, "a JSON object with the keys LAB.md names", "a JSON object, no keys beyond LAB.md's")
	switch {
	case r.Problem != "":
		v = holds(false, v.want, r.File+" "+r.Problem)
	case len(r.Extra) > 0:
		v = holds(false, v.want, fmt.Sprint(r.Extra))
		hint = "remove what LAB.md does not name; better, let cnpa write it: " + hint
	}
	c.add(fmt.Sprintf("step%d.file", r.Step), r.Step, title, hint, v)
}

// key adds the check that owns one key of a record: when the key is missing
// or of the wrong type it fails here (expected: want), else judge decides.
func (c *checker) key(r *lab.Record, key, id, title, want, hint string, judge func(v any) verdict) {
	var v verdict
	switch {
	case r.Problem != "":
		v = skipped(r.Unusable())
	case r.KeyProblems[key] != "":
		v = holds(false, want, key+" "+r.KeyProblems[key])
	default:
		v = judge(r.Values[key])
	}
	c.add(id, r.Step, title, hint, v)
}

// Package steps is what the lab's step runs share. Each step's run is in
// its folder (course/stepN/run.go): it does what the lab text says,
// measures what it shows, writes its evidence file and says what the
// values mean. This package holds what every run uses to do so: the Lab it
// works on, its Result and ✓/✗ Lines, whether evidence already written is
// kept (Keep), the Shell view that shows each action as a learner's
// command, the waits, the cluster reads and the diagnoses; and RunAll,
// which runs them in order. It names no step: the runs are handed down
// in a Table (course.Steps.Runners()).
package steps

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/timeline"
)

// Step is one lab step: what it is (package lab) and how it runs. Each
// step's is made in its folder under package course.
type Step struct {
	*lab.Step
	Run func(ctx context.Context, env *Lab, s *Step) (*Result, error)
	// Again tells whether the step can run again on the cluster, alpha
	// being the live alpha (nil when there is none); nil: a step that is
	// not OnceOnly always can.
	Again func(alpha *teamspace.TeamSpace) bool
}

// Table is the runners, in lab order (course.Steps.Runners()).
type Table []*Step

// Lab is the table's steps as package lab has them.
func (t Table) Lab() lab.Table { return lab.TableOf(t) }

// Get returns step n, or an error naming the valid range.
func (t Table) Get(n int) (*Step, error) {
	if _, err := t.Lab().Get(n); err != nil {
		return nil, err
	}
	return t[n-1], nil
}

// Line is one ✓/✗ line of a step's output: an observed value beside the
// value a correct run yields. It is not a verdict of a rule (lab.Verdict):
// it is how a step says one, and -o json keeps it as it is (its fields'
// names are the output's: "name", "got", "want", "ok", under "verdicts").
type Line struct {
	Name string `json:"name"`
	// Label is Name in the learner's language, when Name is words rather
	// than an evidence key; -o json keeps Name, in English, as it is.
	Label string `json:"-"`
	Got   any    `json:"got"`
	Want  any    `json:"want"`
	OK    bool   `json:"ok"`
}

// Result is what a step observed and wrote.
type Result struct {
	Step     int      `json:"step"`
	Title    string   `json:"title"`
	File     string   `json:"file,omitempty"`
	Evidence any      `json:"evidence,omitempty"`
	Verdicts []Line   `json:"verdicts"`
	Notes    []string `json:"notes,omitempty"`
	// Kept is true when the step found its evidence already written (its
	// own, once-only or depended on by a later file, or the learner's),
	// judged it against the cluster, and left it as it was.
	Kept bool `json:"kept,omitempty"`
	// Fixes say, for each verdict that does not hold, what to do: the key
	// and the value to write in a file of the learner's, or how to measure
	// it again. Printed after the verdicts.
	Fixes []string `json:"fixes,omitempty"`
	// Timeline is the controller's reaction to the step's action (steps 4
	// to 7), as saved under <dir>/.cnpa/.
	Timeline *timeline.Timeline `json:"timeline,omitempty"`
}

// OK tells whether every verdict holds.
func (r *Result) OK() bool {
	for _, v := range r.Verdicts {
		if !v.OK {
			return false
		}
	}
	return true
}

// Check adds a line that holds when got and want print the same. The
// result methods are exported for the steps' runs (course/stepN): each
// run words its own lines, and this package prints and judges them.
func (r *Result) Check(name string, got, want any) {
	r.Verdict(name, fmt.Sprint(got) == fmt.Sprint(want), got, want)
}

// Verdict adds a line whose sides are worded apart from the judgement: the
// observed value (a path, a duration) beside what was expected.
func (r *Result) Verdict(name string, ok bool, got, want any) {
	r.Verdicts = append(r.Verdicts, Line{Name: name, Got: got, Want: want, OK: ok})
}

// VerdictT is Verdict for a line named by words, message id of the
// catalog: the JSON names it in English, the ✓/✗ table in the learner's
// language.
func (r *Result) VerdictT(id string, ok bool, got, want any) {
	r.Verdicts = append(r.Verdicts, Line{Name: i18n.English.T(id), Label: Say(id), Got: got, Want: want, OK: ok})
}

// Judge adds a verdict line for every key of the step's evidence file, as
// the lab's rules (package lab) judge it: the value written (ev) beside
// what a correct run holds. st is the evidence dir as read once after the
// step wrote its file, what the rules compare with; alpha is the live
// alpha, nil when it is gone.
func (r *Result) Judge(st *lab.State, file string, ev any, alpha *teamspace.TeamSpace) error {
	_, err := r.judged(st, file, ev, alpha)
	return err
}

// judged is Judge, returning the rules' verdicts as well (their hints).
func (r *Result) judged(st *lab.State, file string, ev any, alpha *teamspace.TeamSpace) ([]lab.Judged, error) {
	values, err := st.Steps().Values(file, ev)
	if err != nil {
		return nil, err
	}
	judged := st.Steps().Judge(file, values, st.Inputs(alpha))
	for _, j := range judged {
		got, ok := values[j.Key], j.OK
		if raw, isRaw := got.(json.RawMessage); isRaw {
			got = string(raw)
		}
		if j.Skip != "" {
			got, ok = Say("steps.not_checked", "Why", j.Skip), false
		}
		// The expected side is a JSON value where the rule has one ("3",
		// "\"6\""), else words, said by lab.Rule.Apply.
		var want any = j.Want
		if json.Valid([]byte(j.Want)) {
			_ = json.Unmarshal([]byte(j.Want), &want)
		}
		r.Verdicts = append(r.Verdicts, Line{Name: j.Key, Got: got, Want: want, OK: ok})
	}
	return judged, nil
}

// Note adds a note, printed after the lines.
func (r *Result) Note(format string, a ...any) { r.Notes = append(r.Notes, fmt.Sprintf(format, a...)) }

// NoteUnshown is a note that repeats what the shown commands and their
// answers say already: kept only where they are not shown (--quiet, -o
// json), so that the default output says each fact once.
func (r *Result) NoteUnshown(env *Lab, format string, a ...any) {
	if env.Show == nil {
		r.Note(format, a...)
	}
}

// LaterEvidence returns the first evidence file of a step after s that
// exists and is cnpa's, or "". A file of the learner's (edited by hand,
// or never cnpa's) depends on nothing cnpa measured: `cnpa reset` moves
// it aside, and starting over must not stop at it. Exported for step 3,
// which reruns a changed script over evidence a later file depends on.
func LaterEvidence(env *Lab, s *Step) string {
	dir := env.Dir
	for _, s := range env.Steps.Lab().Later(s.Step) {
		if s.File == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, s.File)); err != nil {
			continue
		}
		if why, err := evidence.Theirs(dir, s.File); err == nil && why == "" {
			return s.File
		}
	}
	return ""
}

// StartOver is the way back when the cluster has moved past what a step
// needs: reset (which moves the learner's own evidence aside and keeps
// the lab's choices), then the whole lab. Exported for the runs that
// find the cluster past them (steps 3 and 7), in the same words.
func StartOver(env *Lab) string {
	return Say("steps.start_over", "Own", filepath.Join(env.Dir, "own-<time>")+"/")
}

// Keep decides whether step s runs, or keeps the evidence file it finds
// (decoded into v); every run but step 4's asks it first, and returns
// its result when it says ok (or its error). Phases:
//  1. no file: the step runs, unless a later step's file that cnpa wrote
//     depends on it: then only starting over helps;
//  2. the learner's file (evidence.Theirs) with --force: the step runs,
//     and writing keeps theirs as <file>.bak-<time>, as --force says;
//  3. a damaged file: cnpa's is written again by the run (unless a later
//     file depends on it); the learner's fails the step, one ✗ per key
//     that does not fit LAB.md, each with the value to write;
//  4. a whole file of the learner's, of a OnceOnly step, or one a later
//     file depends on, is judged against the cluster key by key (the lab's
//     rules, with the live alpha): every key holds, and it is kept (✓
//     lines, exit 0); cnpa's own that no longer matches, with nothing
//     depending on it, is measured again; else ✗ per key, each with its
//     fix, and the step fails: it never says "kept" over evidence that no
//     longer describes the cluster;
//  5. cnpa's own file of a step that can run again: the step runs.
func Keep(ctx context.Context, env *Lab, s *Step, v any) (*Result, bool, error) {
	path := filepath.Join(env.Dir, s.File)
	later := LaterEvidence(env, s)
	if _, err := os.Lstat(path); err != nil {
		if later != "" {
			return nil, false, errors.New(Say("steps.keep.missing", "File", s.File, "Later", later, "StartOver", StartOver(env)))
		}
		return nil, false, nil
	}
	why, err := evidence.Theirs(env.Dir, s.File)
	if err != nil {
		return nil, false, err
	}
	theirs := why != ""
	if theirs && env.Force {
		return nil, false, nil
	}
	alpha, err := teamspace.Get(ctx, env.Clients.Dynamic, "alpha")
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, false, err
	}
	again := repeatable(s, alpha)
	problems, err := env.Steps.Lab().ReadFile(env.Dir, s.File, v)
	if err != nil || len(problems) > 0 {
		switch {
		case theirs:
			return damaged(env, s, why, problems, err, again), true, nil
		case later != "":
			return nil, false, errors.New(Say("steps.keep.damaged", "File", s.File, "Later", later, "StartOver", StartOver(env)))
		}
		return nil, false, nil
	}
	if !theirs && !s.OnceOnly && later == "" {
		return nil, false, nil
	}
	r := &Result{Step: s.Number, Title: s.EnglishTitle(), File: path, Evidence: v, Kept: true}
	judged, err := r.judged(env.Steps.Lab().Read(env.Dir), s.File, v, alpha)
	if err != nil {
		return nil, false, err
	}
	switch {
	case r.OK() && theirs:
		r.Note("%s", Say("steps.keep.yours_holds", "Path", path, "Why", why))
	case r.OK() && later != "":
		r.Note("%s", Say("steps.keep.later_holds", "File", s.File, "Later", later))
	case r.OK():
		r.Note("%s", Say("steps.keep.once_holds", "File", s.File, "N", s.Number))
	case !theirs && later == "":
		// cnpa's own record of a cluster that is gone: measure again.
		return nil, false, nil
	default:
		// Neither kept nor written: the file stays as it is, unused.
		r.Kept, r.File = false, ""
		if theirs {
			r.Note("%s", Say("steps.keep.yours_fails", "Path", path, "Why", why))
		} else {
			r.Note("%s", Say("steps.keep.stale", "Path", path, "Later", later))
		}
		for _, j := range judged {
			if !j.OK {
				r.Fixes = append(r.Fixes, fixFor(env, s, j, theirs, later, again))
			}
		}
		if theirs && later == "" && again && !slices.ContainsFunc(r.Fixes, func(f string) bool { return strings.Contains(f, "--force") }) {
			r.Fixes = append(r.Fixes, Say("steps.fix.or", "Fix", againWithForce(s)))
		}
	}
	return r, true, nil
}

// repeatable tells whether step s can run again on the cluster, alpha
// being the live alpha (nil when there is none): a OnceOnly step needs
// the cluster as it was before it (step 1: no alpha, or one untouched;
// step 2: alpha untouched), the others can always run again.
func repeatable(s *Step, alpha *teamspace.TeamSpace) bool {
	if s.Again != nil {
		return s.Again(alpha)
	}
	return !s.OnceOnly
}

// damaged is the failed step for the learner's own evidence file that
// does not fit LAB.md's shape: one ✗ per key with the value to write, and
// how --force measures it again instead.
func damaged(env *Lab, s *Step, why string, problems []evidence.Problem, err error, again bool) *Result {
	r := &Result{Step: s.Number, Title: s.EnglishTitle()}
	if err != nil {
		r.Verdict(s.File, false, err.Error(), Say("steps.want.json_object"))
	}
	for _, p := range problems {
		if p.Key == "" {
			r.Verdict(s.File, false, p.Detail, Say("steps.want.json_object"))
			r.Fixes = append(r.Fixes, fmt.Sprintf("%s: %s", s.File, p.String()))
			continue
		}
		want := ""
		for _, rule := range s.Rules {
			if rule.Key == p.Key {
				want = rule.ExpectedSaid()
			}
		}
		r.Verdict(p.Key, false, p.Detail, want)
		if want != "" {
			r.Fixes = append(r.Fixes, lab.WriteValue(s.File, p.Key, want))
		} else {
			r.Fixes = append(r.Fixes, Say("steps.fix.remove_key", "File", s.File, "Key", p.Key))
		}
	}
	path := filepath.Join(env.Dir, s.File)
	if again {
		r.Note("%s", Say("steps.damaged.again", "Path", path, "Why", why, "Again", againWithForce(s)))
	} else {
		// The cluster has moved past the step: writing the value is the fix.
		r.Note("%s", Say("steps.damaged", "Path", path, "Why", why))
	}
	return r
}

// againWithForce is how the learner has cnpa write step s's file in place
// of theirs, in words that say what --force does.
func againWithForce(s *Step) string {
	id := "steps.again.measure"
	if s.Computed {
		id = "steps.again.compute"
	}
	return Say(id, "N", s.Number, "File", s.File)
}

// fixFor is the advice for one key of a file that does not hold: what
// it compares with is gone from the cluster (alpha), and a new measurement
// helps (--force, when the step can run again; else starting over); or
// the learner's value is wrong, and the value to write is the fix; or
// cnpa's own file, which a later file depends on, no longer matches, and
// starting over is the way.
func fixFor(env *Lab, s *Step, j lab.Judged, theirs bool, later string, again bool) string {
	switch {
	case j.Skip != "":
		return j.Key + ": " + Say("steps.not_checked", "Why", j.Skip)
	case j.Verdict.Hint != nil && *j.Verdict.Hint == lab.StartOver && theirs && again:
		return Say("steps.fix.no_value", "Key", j.Key, "Got", j.Got, "Fix", againWithForce(s))
	case j.Verdict.Hint != nil && *j.Verdict.Hint == lab.StartOver:
		return Say("steps.fix.no_value", "Key", j.Key, "Got", j.Got, "Fix", StartOver(env))
	case theirs:
		return j.WhySaid() + lab.WriteValue(s.File, j.Key, j.Want)
	}
	return Say("steps.fix.stale", "Key", j.Key, "File", s.File, "Later", later, "StartOver", StartOver(env))
}

// Package steps drives the lab's eight steps against a live cluster: each
// does what LAB.md says, measures what it shows, writes its evidence file
// and says what the values mean.
package steps

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/reaction"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/timeline"
)

// Step is one lab step: what it is (package lab) and how it runs.
type Step struct {
	*lab.Step
	Run func(ctx context.Context, env *labenv.Env, s *Step) (*Result, error)
}

// Verdict is one observed value beside the value a correct run yields.
type Verdict struct {
	Name string `json:"name"`
	Got  any    `json:"got"`
	Want any    `json:"want"`
	OK   bool   `json:"ok"`
}

// Result is what a step observed and wrote.
type Result struct {
	Step     int       `json:"step"`
	Title    string    `json:"title"`
	File     string    `json:"file,omitempty"`
	Evidence any       `json:"evidence,omitempty"`
	Verdicts []Verdict `json:"verdicts"`
	Notes    []string  `json:"notes,omitempty"`
	// Kept is true when the step found its evidence already written and a
	// later step depending on it, and left it as it was.
	Kept bool `json:"kept,omitempty"`
	// Timeline is the controller's reaction to the step's action (steps 4
	// to 7), as saved under <dir>/.cnpa/.
	Timeline *timeline.Timeline `json:"timeline,omitempty"`
	// reaction records it while the step runs (see timeline.go).
	reaction *reaction.Recorder
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

func (r *Result) check(name string, got, want any) {
	r.verdict(name, fmt.Sprint(got) == fmt.Sprint(want), got, want)
}

// verdict adds a line whose sides are worded apart from the judgement: the
// observed value (a path, a duration) beside what was expected.
func (r *Result) verdict(name string, ok bool, got, want any) {
	r.Verdicts = append(r.Verdicts, Verdict{Name: name, Got: got, Want: want, OK: ok})
}

// judge adds a verdict line for every key of the step's evidence file, as
// the lab's rules (package lab) judge it: the value written (ev) beside
// what a correct run holds. st is the evidence dir as read once after the
// step wrote its file, what the rules compare with; alpha is the live
// alpha, nil when it is gone.
func (r *Result) judge(st *lab.State, file string, ev any, alpha *teamspace.TeamSpace) error {
	values, err := lab.Values(file, ev)
	if err != nil {
		return err
	}
	for _, j := range lab.Judge(file, values, st.Inputs(alpha)) {
		got, ok := values[j.Key], j.OK
		if raw, isRaw := got.(json.RawMessage); isRaw {
			got = string(raw)
		}
		if j.Skip != "" {
			got, ok = "not checked: "+j.Skip, false
		}
		// The expected side is a JSON value where the rule has one ("3",
		// "\"6\""), else words ("an integer ≥ 1").
		var want any = j.Want
		if json.Valid([]byte(j.Want)) {
			_ = json.Unmarshal([]byte(j.Want), &want)
		}
		r.Verdicts = append(r.Verdicts, Verdict{Name: j.Key, Got: got, Want: want, OK: ok})
	}
	return nil
}

func (r *Result) note(format string, a ...any) { r.Notes = append(r.Notes, fmt.Sprintf(format, a...)) }

// noteUnshown is a note that repeats what the shown commands and their
// answers say already: kept only where they are not shown (--quiet, -o
// json), so that the default output says each fact once.
func (r *Result) noteUnshown(env *labenv.Env, format string, a ...any) {
	if env.Show == nil {
		r.note(format, a...)
	}
}

// All is the runners, in lab order: All[i] runs lab.Steps[i]
// (TestRegistry).
var All = []*Step{step1, step2, step3, step4, step5, step6, step7, step8}

// Get returns step n, or an error naming the valid range.
func Get(n int) (*Step, error) {
	if _, err := lab.Get(n); err != nil {
		return nil, err
	}
	return All[n-1], nil
}

// laterEvidence returns the first evidence file of a step after s that
// exists and is cnpa's, or "". A file of the learner's (edited by hand,
// or never cnpa's) depends on nothing cnpa measured: `cnpa reset` keeps
// it, and starting over must not stop at it; the step that writes it
// refuses to overwrite it unless --force.
func laterEvidence(dir string, s *lab.Step) string {
	for _, s := range s.Later() {
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

// startOver is the way back when the cluster has moved past what a step
// needs: reset, then the whole lab. Reset forgets the engine (it removes
// the state file), so another than the default is named.
func startOver(env *labenv.Env) string {
	cmd := "cnpa step all"
	if env.Engine != labenv.EngineGo {
		cmd += " --engine " + env.Engine
	}
	return "start over: `cnpa reset --yes`, then `" + cmd + "`"
}

// keep re-reads the step's evidence when a later step already depends on
// it: re-running would rewrite values later files are checked against.
//
// A OnceOnly step (lab.Step) measures a cluster that has not been through
// it yet, so it cannot run twice: once its own evidence is written and
// whole, it is kept too. That is what lets a learner who fixes reconcile.sh at step 3
// run `cnpa step all` again.
func keep(env *labenv.Env, s *Step, v any) (*Result, bool, error) {
	later := laterEvidence(env.Dir, s.Step)
	if later == "" && s.OnceOnly {
		if problems, err := lab.ReadFile(env.Dir, s.File, v); err == nil && len(problems) == 0 {
			r := &Result{Step: s.Number, Title: s.Title, File: filepath.Join(env.Dir, s.File), Evidence: v, Kept: true}
			r.note("%s already written, and step %d cannot run twice on one cluster: kept as it is (start over with `cnpa reset --yes`)", s.File, s.Number)
			return r, true, nil
		}
	}
	if later == "" {
		return nil, false, nil
	}
	problems, err := lab.ReadFile(env.Dir, s.File, v)
	if err != nil || len(problems) > 0 {
		return nil, false, fmt.Errorf("%s is missing or damaged but %s of a later step exists: start over with `cnpa reset --yes`", s.File, later)
	}
	r := &Result{Step: s.Number, Title: s.Title, File: filepath.Join(env.Dir, s.File), Evidence: v, Kept: true}
	r.note("%s already written and %s depends on it: kept as it is (start over with `cnpa reset --yes`)", s.File, later)
	return r, true, nil
}

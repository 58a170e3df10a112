package steps

import (
	"context"
	"errors"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/teamspace"
)

// TestRunSteps: the run stops at the first step that fails, by error or
// by verdict; a step that errs is in the results with its error; the
// hooks see each step start and each finished step's result.
func TestRunSteps(t *testing.T) {
	boom := errors.New("boom")
	fake := func(n int, ok bool, err error) *Step {
		return &Step{Step: &lab.Step{Number: n}, Run: func(_ context.Context, _ *Lab, s *Step) (*Result, error) {
			if err != nil {
				return nil, err
			}
			r := &Result{Step: s.Number, Title: s.EnglishTitle()}
			r.Verdict("v", ok, "got", "want")
			return r, nil
		}}
	}
	tests := []struct {
		name        string
		run         []*Step
		started     string
		done        string
		results     int
		failed      int
		err         error
		errorResult bool
	}{
		{"all pass", []*Step{fake(1, true, nil), fake(2, true, nil), fake(3, true, nil)}, "123", "123", 3, 0, nil, false},
		{"a verdict fails", []*Step{fake(1, true, nil), fake(2, false, nil), fake(3, true, nil)}, "12", "12", 2, 2, nil, false},
		{"an error", []*Step{fake(1, true, nil), fake(2, true, boom), fake(3, true, nil)}, "12", "1", 2, 2, boom, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var started, done string
			out := runSteps(context.Background(), nil, tt.run,
				func(s *Step) { started += strconv.Itoa(s.Number) }, func(r *Result) { done += strconv.Itoa(r.Step) })
			failed := 0
			if out.Failed != nil {
				failed = out.Failed.Number
			}
			if started != tt.started || done != tt.done || len(out.Results) != tt.results || failed != tt.failed || out.Err != tt.err {
				t.Errorf("got started %q done %q, %d results, failed %d, err %v; want %q %q, %d, %d, %v",
					started, done, len(out.Results), failed, out.Err, tt.started, tt.done, tt.results, tt.failed, tt.err)
			}
			if last := out.Results[len(out.Results)-1]; tt.errorResult && (len(last.Notes) != 1 || last.Notes[0] != "error: boom") {
				t.Errorf("the failed step's result: got notes %q, want [\"error: boom\"]", last.Notes)
			}
		})
	}
	if out := RunAll(context.Background(), &Lab{Steps: Table{fake(1, true, nil)}}, []int{1, 2}, nil, nil); out.Err == nil || out.Failed != nil || len(out.Results) != 0 {
		t.Errorf("RunAll with a number that names no step: got %+v, want an error and nothing run", out)
	}
}

// The advice for a key of a kept file that does not hold fits the fix:
// the value to write in the learner's file; a new measurement with
// --force when what it compares with is gone and the step can run again;
// starting over only when the cluster cannot repeat the step.
func TestFixFor(t *testing.T) {
	env := &Lab{Env: &labenv.Env{Dir: "/lab"}}
	startOver := lab.StartOver
	gone := lab.Judged{Rule: lab.Rule{Key: "uid"}, Verdict: lab.Verdict{Want: "the live alpha's uid", Got: "TeamSpace alpha does not exist", Hint: &startOver}}
	wrong := lab.Judged{Rule: lab.Rule{Key: "status_via_main"}, Verdict: lab.Verdict{Want: "null", Got: `""`}}
	for _, c := range []struct {
		name   string
		s      *Step
		j      lab.Judged
		theirs bool
		later  string
		again  bool
		want   string
	}{
		{"a wrong value by hand", step2, wrong, true, "", false, "write `\"status_via_main\": null` in generation.json"},
		{"alpha gone after a reset, by hand", step1, gone, true, "", true,
			"uid: TeamSpace alpha does not exist, so no value of it can hold: measure it again: `cnpa step 1 --force` (it keeps yours as before.json.bak-<time>)"},
		{"alpha gone, cluster past the step", step2, gone, true, "", false,
			"uid: TeamSpace alpha does not exist, so no value of it can hold: start over: `cnpa reset --yes` (it moves your own evidence files aside into /lab/own-<time>/ and keeps the engine), then `cnpa step all`"},
		{"cnpa's own, a later file depends on it", step3, wrong, false, "drift.json", false,
			"status_via_main: reconcile.json no longer describes this cluster and drift.json depends on it: start over: `cnpa reset --yes` (it moves your own evidence files aside into /lab/own-<time>/ and keeps the engine), then `cnpa step all`"},
	} {
		if got := fixFor(env, c.s, c.j, c.theirs, c.later, c.again); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.name, got, c.want)
		}
	}
	// A step with its own Again asks it; any other can run again unless
	// it is OnceOnly (step 1's and step 2's Again are course's).
	alpha := &teamspace.TeamSpace{ObjectMeta: metav1.ObjectMeta{Name: "alpha", Generation: 2}}
	never := &Step{Step: step1.Step, Again: func(*teamspace.TeamSpace) bool { return false }}
	for _, c := range []struct {
		s    *Step
		want bool
	}{{never, false}, {step1, false}, {step5, true}, {step8, true}} {
		if got := repeatable(c.s, alpha); got != c.want {
			t.Errorf("repeatable(step %d): got %v, want %v", c.s.Number, got, c.want)
		}
	}
}

// The steps of these tests, as much of each as they read.
var (
	step1 = &Step{Step: &lab.Step{Number: 1, File: lab.BeforeFile, OnceOnly: true}}
	step2 = &Step{Step: &lab.Step{Number: 2, File: lab.GenerationFile, OnceOnly: true}}
	step3 = &Step{Step: &lab.Step{Number: 3, File: lab.ReconcileFile}}
	step5 = &Step{Step: &lab.Step{Number: 5, File: lab.DriftFile, Timeline: true}}
	step8 = &Step{Step: &lab.Step{Number: 8, File: lab.ReportFile, Computed: true}}
)

package course_test

import (
	"slices"
	"testing"

	"github.com/labhub/cnpa/internal/course"
	"github.com/labhub/cnpa/internal/course/step1"
	"github.com/labhub/cnpa/internal/course/step2"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/teamspace"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestEveryRowHasItsHand: each probe row of a step is filled by exactly
// one hand of the same step, the rows a hand fills are next to each other
// in the step's rows and run in the same places, and no hand fills a row
// of another step: a new probe is one row and one hand, in one folder.
func TestEveryRowHasItsHand(t *testing.T) {
	for _, s := range course.Steps.Checker() {
		filled := map[string]int{}
		for _, h := range s.Hands {
			if len(h.Rows) == 0 || h.Run == nil {
				t.Errorf("step %d: a hand with no rows or no code", s.Number)
				continue
			}
			at := slices.Index(s.Probes, h.Rows[0])
			for i, row := range h.Rows {
				filled[row.ID]++
				if at < 0 || at+i >= len(s.Probes) || s.Probes[at+i] != row {
					t.Errorf("step %d: hand for %s: row %s is not next in the step's rows", s.Number, h.Rows[0].ID, row.ID)
				}
				if row.Where != h.Rows[0].Where || row.Controller != h.Rows[0].Controller {
					t.Errorf("step %d: hand for %s: row %s runs elsewhere than its first", s.Number, h.Rows[0].ID, row.ID)
				}
				if row.Step != s.Number {
					t.Errorf("step %d: row %s says step %d", s.Number, row.ID, row.Step)
				}
			}
		}
		for _, p := range s.Probes {
			if filled[p.ID] != 1 {
				t.Errorf("step %d: row %s is filled by %d hands, want 1", s.Number, p.ID, filled[p.ID])
			}
		}
	}
	// Step 4's probe keeps its converged TeamSpace for the one hand that
	// takes it, the drift probe's: with none it is deleted unused, with
	// two they would race for it.
	var takers []string
	for _, h := range course.Steps.Checker().Hands() {
		if h.TakesHandedOn {
			takers = append(takers, h.Rows[0].ID)
		}
	}
	if !slices.Equal(takers, []string{"step5.drift_reverted_live"}) {
		t.Errorf("hands that take step 4's TeamSpace: %v, want the drift probe's alone", takers)
	}
	grader := course.Steps.Grader()
	drift := "step5.drift_reverted_live"
	if !slices.Contains(grader.ProbeIDs(), drift) || !slices.Contains(grader.RemoteIDs(), drift) {
		t.Errorf("the drift probe must run in `cnpa check` and from another machine: probes %v, remote %v", grader.ProbeIDs(), grader.RemoteIDs())
	}
}

// TestEveryStepIsWhole: every step has each of its parts, each the same
// step's, and its number is its place.
func TestEveryStepIsWhole(t *testing.T) {
	runners, grader := course.Steps.Runners(), course.Steps.Grader()
	for i, s := range course.Steps.Lab() {
		switch {
		case s.Number != i+1:
			t.Errorf("step %d at place %d", s.Number, i+1)
		case runners[i].Step != s || runners[i].Run == nil:
			t.Errorf("step %d: its run is another step's, or none", s.Number)
		case grader[i].Step != s:
			t.Errorf("step %d: graded as another step", s.Number)
		}
		for _, r := range s.Rules {
			if r.File != s.File || r.Step != s.Number {
				t.Errorf("step %d: rule %s says %s of step %d", s.Number, r.ID, r.File, r.Step)
			}
		}
	}
	var _ judge.Table = grader
}

// TestAgain: step 1 can run again while alpha is missing or untouched,
// step 2 only while alpha is at generation 1.
func TestAgain(t *testing.T) {
	alpha := func(gen int64) *teamspace.TeamSpace {
		return &teamspace.TeamSpace{ObjectMeta: metav1.ObjectMeta{Name: "alpha", Generation: gen}}
	}
	for _, c := range []struct {
		again func(*teamspace.TeamSpace) bool
		name  string
		alpha *teamspace.TeamSpace
		want  bool
	}{
		{step1.Again, "step 1", nil, true}, {step1.Again, "step 1", alpha(1), true}, {step1.Again, "step 1", alpha(2), false},
		{step2.Again, "step 2", nil, false}, {step2.Again, "step 2", alpha(1), true}, {step2.Again, "step 2", alpha(2), false},
	} {
		if got := c.again(c.alpha); got != c.want {
			t.Errorf("%s again with alpha %v: got %v, want %v", c.name, c.alpha, got, c.want)
		}
	}
}

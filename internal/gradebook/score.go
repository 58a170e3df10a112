package gradebook

import (
	"math"
	"strconv"
	"strings"

	"github.com/labhub/cnpa/internal/i18n"
)

// Item is one line of a learner's score: a step passed whole, or a
// check with points of its own.
type Item struct {
	// Step is the step's number; for a check, its step.
	Step int
	// Check is the check, nil for a step's item.
	Check *Check
	// Name is what the LMS shows: "Step 3: …" or "step3.id: title".
	Name   string
	Passed bool
	Score  float64
	Max    float64
	// Checks are a step's checks (nil for a check's item).
	Checks []Check
}

// Score is a learner's score under a policy.
type Score struct {
	Items []Item
	// Raw is the sum of the items' scores; Max of their maxima.
	Raw, Max float64
	// DaysLate is how many days (or parts of one) after the due date the
	// submission was made; Penalty the points it costs.
	DaysLate int
	Penalty  float64
	// Total is Raw less Penalty, never below 0.
	Total float64
	// SelfReported is how much of Raw is `cnpa stress` results as the
	// learner's own run reported them: nothing cnpa can verify.
	SelfReported float64
}

// ScoreOf is r's score under p (nil: a point per step passed whole, as
// the gradebook's steps_passed). Phases:
//  1. each step's item: its points when every check of it passes;
//  2. each check with points of its own;
//  3. each `cnpa stress` fault, when the policy gives them points;
//  4. the late rule, on the submission's time.
//
// A row that is not verified (graded 0: unverified), missing or
// unreadable scores 0 of the same maximum: a check the policy gives
// points that the row does not have is an item failed "not graded", so
// that every row of a class has one maximum. Every number is rounded to
// six decimals (clean), so that 0.1 × 8 is 0.8, not 0.7999999999999999.
func ScoreOf(r *Result, p *Policy) Score {
	var s Score
	for i := range r.StepPassed {
		n := i + 1
		it := Item{Step: n, Name: stepName(r, n), Max: p.stepPoints(n), Passed: r.StepPassed[i] && r.Verified}
		for _, c := range r.Checks {
			if c.Step == n {
				it.Checks = append(it.Checks, c)
			}
		}
		s.Items = append(s.Items, it)
	}
	has := map[string]bool{}
	for i := range r.Checks {
		c := &r.Checks[i]
		has[c.ID] = true
		if pts := p.checkPoints(c.ID); pts > 0 {
			s.Items = append(s.Items, Item{Step: c.Step, Check: c, Name: c.ID + ": " + c.Title, Max: pts, Passed: c.Passed() && r.Verified})
		}
	}
	if p != nil {
		for _, id := range sortedKeys(p.Checks) {
			if pts := p.Checks[id]; pts > 0 && !has[id] {
				c := &Check{ID: id, Step: stepOf(id), Title: id, Status: StatusFail, Actual: i18n.T("gradebook.not_graded")}
				s.Items = append(s.Items, Item{Step: c.Step, Check: c, Name: id, Max: pts})
			}
		}
	}
	stress := len(s.Items)
	if pts := p.StressPoints(); pts > 0 {
		for i := range r.Stress {
			c := &r.Stress[i]
			s.Items = append(s.Items, Item{Check: c, Name: c.ID + ": " + c.Title, Max: pts, Passed: c.Status == StatusPass && r.Verified})
		}
	}
	for i := range s.Items {
		it := &s.Items[i]
		it.Max = clean(it.Max)
		if it.Passed {
			it.Score = it.Max
		}
		s.Raw += it.Score
		s.Max += it.Max
		if i >= stress {
			s.SelfReported += it.Score
		}
	}
	s.Raw, s.Max, s.SelfReported = clean(s.Raw), clean(s.Max), clean(s.SelfReported)
	s.Total = s.Raw
	if p != nil && !p.Due.IsZero() && !r.SubmittedAt.IsZero() && r.SubmittedAt.After(p.Due) {
		s.DaysLate = int(math.Ceil(r.SubmittedAt.Sub(p.Due).Hours() / 24))
		switch {
		case p.Late.MaxDays > 0 && s.DaysLate > p.Late.MaxDays:
			s.Penalty = s.Raw
		default:
			s.Penalty = math.Min(s.Raw, s.Raw*p.Late.PercentPerDay*float64(s.DaysLate)/100)
		}
		s.Penalty = round(s.Penalty)
		s.Total = round(s.Raw - s.Penalty)
	}
	return s
}

// round keeps two decimals: a score an LMS shows.
func round(v float64) float64 { return math.Round(v*100) / 100 }

// clean is v to six decimals: the float sums' noise (0.7999999999999999)
// gone, every point a policy can give kept.
func clean(v float64) float64 { return math.Round(v*1e6) / 1e6 }

// stepOf is check id's step: 5 for "step5.drift_reverted_live", 0 for
// an id of no step.
func stepOf(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(strings.SplitN(id, ".", 2)[0], "step"))
	return n
}

func stepName(r *Result, n int) string {
	if n-1 < len(r.StepTitles) && r.StepTitles[n-1] != "" {
		return r.StepTitles[n-1]
	}
	return "Step " + strconv.Itoa(n)
}

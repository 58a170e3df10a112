package gradebook

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/safefs"
	"github.com/labhub/cnpa/internal/ui"
)

// GradescopeResults is Gradescope's results.json (its autograder
// specification): the top-level score overrides the tests' sum, which
// is how the late rule is applied.
type GradescopeResults struct {
	Score float64 `json:"score"`
	// ExecutionTime is in whole seconds, as the spec's example.
	ExecutionTime int              `json:"execution_time"`
	Output        string           `json:"output"`
	Tests         []GradescopeTest `json:"tests"`
}

// GradescopeTest is one test of results.json.
type GradescopeTest struct {
	Name       string  `json:"name"`
	Score      float64 `json:"score"`
	MaxScore   float64 `json:"max_score"`
	Status     string  `json:"status"`
	Output     string  `json:"output"`
	Visibility string  `json:"visibility"`
}

// ClassroomResult is the result of GitHub Classroom's command grader
// (autograding-command-grader), which its reporter decodes from base64.
type ClassroomResult struct {
	Version  int             `json:"version"`
	Status   string          `json:"status"`
	MaxScore float64         `json:"max_score"`
	Tests    []ClassroomTest `json:"tests"`
}

// ClassroomTest is one test of ClassroomResult.
type ClassroomTest struct {
	Name     string  `json:"name"`
	Status   string  `json:"status"`
	Score    float64 `json:"score"`
	Message  string  `json:"message"`
	TestCode string  `json:"test_code"`
	Filename string  `json:"filename"`
	LineNo   int     `json:"line_no"`
	Duration int     `json:"duration"`
}

// visibilityRank orders Gradescope's visibilities, most shown first.
var visibilityRank = map[string]int{gsVisible: 0, gsAfterDueDate: 1, gsHidden: 2}

// Gradescope is r's results.json under p; took is how long grading took.
// One test per step (its checks in its output) and one per check with
// points of its own; a step's visibility is its least visible check's,
// so that a step never tells what a hidden check found.
func Gradescope(r *Result, p *Policy, took time.Duration) *GradescopeResults {
	s := ScoreOf(r, p)
	out := &GradescopeResults{Score: s.Total, ExecutionTime: int(math.Ceil(took.Seconds())), Output: summary(r, s), Tests: []GradescopeTest{}}
	for _, it := range s.Items {
		t := GradescopeTest{Name: it.Name, Score: it.Score, MaxScore: it.Max, Status: gsStatus(it.Passed), Visibility: gsVisible}
		checks := it.Checks
		if it.Check != nil {
			checks = []Check{*it.Check}
		}
		for _, c := range checks {
			if v := p.gradescopeVisibility(c.ID); visibilityRank[v] > visibilityRank[t.Visibility] {
				t.Visibility = v
			}
		}
		t.Output = checkLines(checks, func(Check) bool { return true })
		out.Tests = append(out.Tests, t)
	}
	if s.Penalty > 0 {
		out.Tests = append(out.Tests, GradescopeTest{Name: i18n.T("gradebook.late_test"), Score: -s.Penalty, MaxScore: 0, Status: "failed",
			Output: lateLine(s), Visibility: gsVisible})
	}
	return out
}

func gsStatus(ok bool) string {
	if ok {
		return "passed"
	}
	return "failed"
}

// Classroom is r's autograding result under p at now: one test per
// step and per check with points, as Gradescope's, the message of a
// check hidden at now withheld (Classroom has no visibility of its
// own), and the late penalty a test of negative score, since the
// reporter sums the tests.
func Classroom(r *Result, p *Policy, now time.Time) *ClassroomResult {
	s := ScoreOf(r, p)
	out := &ClassroomResult{Version: 1, Status: "pass", MaxScore: s.Max, Tests: []ClassroomTest{}}
	if r.Graded == "unreadable" || r.Graded == "missing" {
		out.Status = "error"
	} else if s.Total < s.Max {
		out.Status = "fail"
	}
	for _, it := range s.Items {
		t := ClassroomTest{Name: it.Name, Status: "pass", Score: it.Score}
		if !it.Passed {
			t.Status = "fail"
		}
		checks := it.Checks
		if it.Check != nil {
			checks = []Check{*it.Check}
		}
		t.Message = checkLines(checks, func(c Check) bool { return p.shown(c.ID, now) })
		out.Tests = append(out.Tests, t)
	}
	if s.Penalty > 0 {
		out.Tests = append(out.Tests, ClassroomTest{Name: i18n.T("gradebook.late_test"), Status: "fail", Score: -s.Penalty, Message: lateLine(s)})
	}
	if head := summary(r, s); head != "" && len(out.Tests) > 0 {
		out.Tests[0].Message = head + "\n" + out.Tests[0].Message
	}
	exactSum(out.Tests, s.Total)
	return out
}

// exactSum makes the reporter's "Points X/Y" print the total as cnpa
// does: the reporter adds the tests' scores in order as JavaScript
// numbers (float64), and 0.1 + 0.1 + 0.1 is 0.30000000000000004. When
// that sum is not the total, the last test with points carries the
// difference, within a few units in the last place (its score then
// reads 0.09999999999999998 in the JSON, which only the reporter reads;
// the log prints it clean).
func exactSum(tests []ClassroomTest, total float64) {
	last := -1
	var acc float64
	for i, t := range tests {
		if t.Score != 0 {
			last = i
		}
		acc += t.Score
	}
	if last < 0 || acc == total {
		return
	}
	acc = 0
	for _, t := range tests[:last] {
		acc += t.Score
	}
	v := total - acc
	for range 8 {
		if acc+v == total {
			tests[last].Score = v
			return
		}
		v = math.Nextafter(v, math.Copysign(math.Inf(1), total-(acc+v)))
	}
}

// ClassroomLog is r as lines for the Actions log, which is where a
// Classroom learner reads feedback: the reporter prints only the tests'
// names (and a message only for a test of status error). Nothing in it
// is for the instructor alone: r holds no flags.
func ClassroomLog(r *ClassroomResult) []string {
	var out []string
	for _, t := range r.Tests {
		mark := "✓"
		if t.Status != "pass" {
			mark = "✗"
		}
		out = append(out, mark+" "+t.Name+" ("+fmtPoints(t.Score)+")")
		for _, l := range strings.Split(t.Message, "\n") {
			if l != "" {
				out = append(out, "    "+l)
			}
		}
	}
	return out
}

// summary is the lines above every test, which the learner reads: the
// score, how graded and what that proves, exam mode, and how much of the
// score is stress results the learner reported. The flags are not here:
// they are for the instructor (InstructorNotes), and a learner who reads
// "edited" learns what caught them.
func summary(r *Result, s Score) string {
	lines := []string{i18n.T("gradebook.summary", i18n.Args{"Learner": ui.Clean(r.Learner), "Total": fmtPoints(s.Total), "Max": fmtPoints(s.Max), "Graded": r.Graded})}
	if r.Detail != "" {
		lines = append(lines, ui.Clean(r.Detail))
	}
	if r.Exam {
		lines = append(lines, i18n.T("gradebook.exam"))
	}
	if !r.Verified {
		lines = append(lines, i18n.T("gradebook.unverified"))
	}
	if proves := provesLine(r); proves != "" {
		lines = append(lines, proves)
	}
	if s.SelfReported > 0 || (s.Max > 0 && hasStressItem(s)) {
		lines = append(lines, i18n.T("gradebook.stress_reported", i18n.Args{"Points": fmtPoints(s.SelfReported)}))
	}
	return strings.Join(lines, "\n")
}

// provesLine says what the row's grading proves, and what not.
func provesLine(r *Result) string {
	switch r.Graded {
	case "offline":
		return i18n.T("gradebook.proves.offline")
	case "live":
		return i18n.T("gradebook.proves.live")
	}
	return ""
}

func hasStressItem(s Score) bool {
	for _, it := range s.Items {
		if it.Check != nil && strings.HasPrefix(it.Check.ID, "stress.") {
			return true
		}
	}
	return false
}

// InstructorNotes are the lines an LMS file cannot show the instructor
// without showing the learner: one per flagged learner (copies, edited,
// tampered, not-in-exam-mode, version …), one per learner with points
// from stress results they reported themselves, and what the hash of an
// offline row proves. They go to stderr: with -o gradescope, to the
// autograder's stdout capture, which only instructors see.
func InstructorNotes(rows []*Result, p *Policy) []string {
	var out []string
	offline := false
	for _, r := range rows {
		if len(r.Flags) > 0 {
			out = append(out, i18n.T("gradebook.note.flags", i18n.Args{"Learner": ui.Clean(r.Learner), "Flags": ui.Clean(strings.Join(r.Flags, "; "))}))
		}
		if s := ScoreOf(r, p); s.SelfReported > 0 {
			out = append(out, i18n.T("gradebook.note.stress", i18n.Args{"Learner": ui.Clean(r.Learner), "Points": fmtPoints(s.SelfReported),
				"Total": fmtPoints(s.Total)}))
		}
		offline = offline || r.Graded == "offline"
	}
	if offline {
		out = append(out, i18n.T("gradebook.note.hash"))
	}
	return out
}

func lateLine(s Score) string {
	return i18n.T("gradebook.late", i18n.Args{"Days": s.DaysLate, "Penalty": fmtPoints(s.Penalty)})
}

// checkLines are checks as lines, a check that show refuses withheld.
func checkLines(checks []Check, show func(Check) bool) string {
	var b strings.Builder
	for _, c := range checks {
		mark := "✓"
		if !c.Passed() {
			mark = "✗"
		}
		if c.Status == StatusSkip {
			mark = "–"
		}
		if !show(c) {
			b.WriteString(i18n.T("gradebook.check_hidden", i18n.Args{"ID": c.ID}) + "\n")
			continue
		}
		b.WriteString(mark + " " + c.ID + ": " + c.Title)
		if c.AsReported {
			b.WriteString(" " + i18n.T("gradebook.as_reported"))
		}
		b.WriteString("\n")
		if !c.Passed() {
			b.WriteString("    " + i18n.T("gradebook.expected_found", i18n.Args{"Expected": ui.Clean(c.Expected), "Actual": ui.Clean(c.Actual)}) + "\n")
			if c.Hint != "" {
				b.WriteString("    " + i18n.T("gradebook.hint", i18n.Args{"Hint": ui.Clean(c.Hint)}) + "\n")
			}
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// fmtPoints is points as every format prints them: 0.8, 12, 10.8.
func fmtPoints(v float64) string { return strconv.FormatFloat(clean(v), 'f', -1, 64) }

// WriteGradescope writes results.json, indented.
func WriteGradescope(w io.Writer, r *GradescopeResults) error { return writeJSON(w, r) }

// WriteClassroom writes the autograding result, indented.
func WriteClassroom(w io.Writer, r *ClassroomResult) error { return writeJSON(w, r) }

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// MaxMetadata is the largest submission_metadata.json read.
const MaxMetadata = 8 << 20

// GradescopeSubmittedAt is when Gradescope received the submission: the
// created_at of its /autograder/submission_metadata.json. It is
// Gradescope's word, not the learner's, so the late rule goes by it
// rather than by the time the submission file claims.
func GradescopeSubmittedAt(path string) (time.Time, error) {
	data, err := safefs.ReadFile(path, MaxMetadata)
	if err != nil {
		return time.Time{}, err
	}
	var md struct {
		CreatedAt time.Time `json:"created_at"`
	}
	if err := json.Unmarshal(data, &md); err != nil {
		return time.Time{}, fmt.Errorf("%s: %w", path, err)
	}
	if md.CreatedAt.IsZero() {
		return time.Time{}, i18n.NewError("gradebook.metadata.no_created_at", i18n.Args{"Path": path})
	}
	return md.CreatedAt, nil
}

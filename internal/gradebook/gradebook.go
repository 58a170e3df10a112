// Package gradebook writes a class's grades in the formats an LMS reads
// without an edit: Gradescope's results.json, GitHub Classroom's
// autograding result, and the CSV that Canvas and Moodle import. It also
// owns the instructor's grading policy (points, visibility, late rules,
// exam mode), applied the same in every format.
//
// It is a leaf, as chainsaw's report writers are: it imports only its own
// model (Result) and the words, never the machinery that graded. Package
// class turns its gradebook into Results.
package gradebook

import (
	"strings"
	"time"

	"github.com/labhub/cnpa/internal/ui"
)

// A check's status, as package judge writes it.
const (
	StatusPass = "pass"
	StatusFail = "fail"
	StatusSkip = "skip"
	StatusNote = "note"
)

// Check is one check of a learner, as graded.
type Check struct {
	ID       string
	Step     int
	Title    string
	Status   string
	Expected string
	Actual   string
	Hint     string
	// AsReported: taken from the learner's own run, not judged here.
	AsReported bool
}

// Passed tells whether the check counts as passed: a note never fails.
func (c Check) Passed() bool { return c.Status == StatusPass || c.Status == StatusNote }

// Result is one learner's row, as graded.
type Result struct {
	Learner string
	// Graded is the gradebook's graded column: live, offline,
	// unreachable, missing, unreadable.
	Graded string
	// Detail says why, when graded is not live or offline.
	Detail string
	// Verified is false for a row graded 0 (unverified): no score counts.
	Verified bool
	// StepPassed is, per lab step in order, whether all its checks pass.
	StepPassed []bool
	// StepTitles are the steps' headings, in the reader's language.
	StepTitles []string
	Checks     []Check
	// Flags are the row's flags as the CSV shows them (kind or kind:with).
	Flags []string
	// SubmittedAt is when the submission says it was made; zero for none.
	SubmittedAt time.Time
	// Exam: the submission was taken in exam mode.
	Exam bool
	// Stress are the submission's `cnpa stress` faults, one check each
	// (Step 0), every fault there whether it ran or not; counted only
	// when the policy gives them points.
	Stress []Check
}

// CSVCell is a value as a gradebook cell: cleaned of control characters
// (ui.Clean: the CSV is also read in a terminal), and, as OWASP
// recommends against formula injection, prefixed with ' when it starts
// with =, +, -, @, tab or CR, which a spreadsheet would take for a
// formula (=HYPERLINK(...) leaking the sheet).
func CSVCell(v string) string {
	if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
		v = "'" + v
	}
	return ui.Clean(v)
}

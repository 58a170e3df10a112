package check

import "github.com/labhub/cnpa/internal/judge"

// The results are package judge's. These names stay for the test suites
// that read `cnpa check -o json` into them (test/learners, test/report,
// the class fixtures); new code names judge.
type (
	Report = judge.Report
	Check  = judge.Check
	Status = judge.Status
	Facts  = judge.Facts
)

// The statuses of a check (judge's).
const (
	Pass = judge.Pass
	Fail = judge.Fail
	Skip = judge.Skip
	Note = judge.Note
)

// SaveLast keeps a report for `cnpa report` (judge.SaveLast).
var SaveLast = judge.SaveLast

// JUnitSuites is the JUnit document (judge's), for the suites that parse
// `cnpa check -o junit`.
type JUnitSuites = judge.JUnitSuites

// LastPath is where `cnpa check` keeps its last report (judge.LastPath).
var LastPath = judge.LastPath

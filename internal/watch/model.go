package watch

import (
	"time"

	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
)

// Verdict is one check's outcome as watch reports it; `-o json` prints one
// a line, with these keys, whatever the language.
type Verdict struct {
	Step     int          `json:"step"`
	ID       string       `json:"id"`
	Status   judge.Status `json:"status"`
	Expected string       `json:"expected"`
	Actual   string       `json:"actual"`
	At       time.Time    `json:"at"`
}

// StepStatus is one step's place on the progress line.
type StepStatus int

const (
	// Todo: not judged since watch started.
	Todo StepStatus = iota
	// Passed: its last judgement failed no check.
	Passed
	// Failed: its last judgement failed a check.
	Failed
)

// stepResult is a step's last judgement.
type stepResult struct {
	checks []judge.Check
	status StepStatus
	at     time.Time
}

// Action is what a key asks the loop to do beyond changing the model.
type Action int

const (
	// None: the screen changes, nothing is judged.
	None Action = iota
	// Quit ends watch.
	Quit
	// JudgeCurrent judges the current step again, then the ones after it
	// (the learner moved: n, or a step's number).
	JudgeCurrent
	// CheckAll judges every step (c).
	CheckAll
)

// Model is what watch knows and shows: where the learner is, each step's
// last judgement, the hint level, the notices. It is a plain value the
// loop feeds with events (Key, Judged, Notice); it does no I/O.
type Model struct {
	// steps is the lab's steps (course.Steps).
	steps lab.Table
	// Current is the step the learner is on.
	Current int
	// Hint is how much help is shown: 0 none, 1 the nudge, 2 the commands.
	Hint int
	// List shows every step instead of the current one's checks.
	List bool
	// Judging is the step being judged now, 0 when idle.
	Judging int
	// Down is why the cluster cannot be reached, "" when it can.
	Down string
	// Notices are the latest things watch has to say (a file removed, half
	// written), newest last.
	Notices []string
	results map[int]*stepResult
}

// maxNotices is how many notices the screen keeps.
const maxNotices = 3

// NewModel is a model on step current (clamped to the lab's steps).
func NewModel(steps lab.Table, current int) *Model {
	return &Model{Current: clamp(steps, current), results: map[int]*stepResult{}, steps: steps}
}

func clamp(steps lab.Table, n int) int {
	first, last := steps[0].Number, steps[len(steps)-1].Number
	switch {
	case n < first:
		return first
	case n > last:
		return last
	}
	return n
}

// Key applies one key press and says what the loop must do.
//   - h: the hint, a nudge first, then the commands, then hidden again
//   - n: the next step; 1-8 that step
//   - l: the list of steps, or back
//   - c: check every step
//   - q, Ctrl-C, Ctrl-D: quit
func (m *Model) Key(k rune) Action {
	switch {
	case k == 'q' || k == 3 || k == 4:
		return Quit
	case k == 'h':
		m.Hint = (m.Hint + 1) % 3
	case k == 'l':
		m.List = !m.List
	case k == 'c':
		return CheckAll
	case k == 'n':
		return m.goTo(m.Current + 1)
	case k >= '1' && k <= '9':
		if _, err := m.steps.Get(int(k - '0')); err == nil {
			return m.goTo(int(k - '0'))
		}
	}
	return None
}

func (m *Model) goTo(n int) Action {
	n = clamp(m.steps, n)
	if n == m.Current && !m.List {
		return None
	}
	m.Current, m.Hint, m.List = n, 0, false
	return JudgeCurrent
}

// Notice adds something to say; the oldest goes past maxNotices.
func (m *Model) Notice(s string) {
	m.Notices = append(m.Notices, s)
	if len(m.Notices) > maxNotices {
		m.Notices = m.Notices[len(m.Notices)-maxNotices:]
	}
}

// Judged records step n's report, made at at, and returns its verdicts.
func (m *Model) Judged(n int, rep *judge.Report, at time.Time) []Verdict {
	r := &stepResult{status: Passed, at: at}
	var out []Verdict
	for _, c := range rep.Checks {
		if c.Step != n {
			continue
		}
		r.checks = append(r.checks, c)
		if c.Status == judge.Fail {
			r.status = Failed
		}
		out = append(out, Verdict{Step: n, ID: c.ID, Status: c.Status, Expected: c.Expected, Actual: c.Actual, At: at})
	}
	m.results[n] = r
	return out
}

// Status is step n's place on the progress line.
func (m *Model) Status(n int) StepStatus {
	if r := m.results[n]; r != nil {
		return r.status
	}
	return Todo
}

// Checks are step n's checks as last judged (nil: not yet).
func (m *Model) Checks(n int) []judge.Check {
	if r := m.results[n]; r != nil {
		return r.checks
	}
	return nil
}

// Done counts the steps whose last judgement passed.
func (m *Model) Done() int {
	n := 0
	for _, s := range m.steps {
		if m.Status(s.Number) == Passed {
			n++
		}
	}
	return n
}

// Previous is check id's status in step n's last judgement, "" when it had
// none: plain output says only what changed or fails.
func (m *Model) Previous(n int, id string) judge.Status {
	for _, c := range m.Checks(n) {
		if c.ID == id {
			return c.Status
		}
	}
	return ""
}

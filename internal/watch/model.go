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
	// missing are checks forgotten and not judged since: the step has no
	// mark until they are.
	missing map[string]bool
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
	// Running is the step a `cnpa step` runs now, 0 when none: watch
	// judges nothing until it ends.
	Running int
	// Notices are the latest things watch has to say (a file removed, half
	// written), newest last; noticeKeys says, for each, what it is about,
	// so that it goes when its cause does (Clear).
	Notices    []string
	noticeKeys []string
	results    map[int]*stepResult
	// done are the steps whose evidence is written (Evidence): a step after
	// the current one without it shows no mark, whatever an older
	// judgement said (after a reset, say).
	done map[int]bool
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

// goTo moves to step n and asks for its judgement; the step the learner
// is on, asked for again, is judged again.
func (m *Model) goTo(n int) Action {
	n = clamp(m.steps, n)
	if n != m.Current {
		m.Hint = 0
	}
	m.Current, m.List = n, false
	return JudgeCurrent
}

// Notice adds something to say; the oldest goes past maxNotices.
func (m *Model) Notice(s string) { m.NoticeFor("", s) }

// NoticeFor says s about key (a file's path, say), in place of what was
// said about it before; "" is about nothing in particular, and stays
// until newer notices push it out.
func (m *Model) NoticeFor(key, s string) {
	if key != "" {
		m.Clear(key)
	}
	m.Notices = append(m.Notices, s)
	m.noticeKeys = append(m.noticeKeys, key)
	if len(m.Notices) > maxNotices {
		m.Notices = m.Notices[len(m.Notices)-maxNotices:]
		m.noticeKeys = m.noticeKeys[len(m.noticeKeys)-maxNotices:]
	}
}

// Clear takes away what was said about key: its cause is gone.
func (m *Model) Clear(key string) {
	for i := 0; i < len(m.Notices); i++ {
		if m.noticeKeys[i] == key {
			m.Notices = append(m.Notices[:i:i], m.Notices[i+1:]...)
			m.noticeKeys = append(m.noticeKeys[:i:i], m.noticeKeys[i+1:]...)
			i--
		}
	}
}

// Judged records step n's checks in rep, made at at, and returns their
// verdicts. A check of the step's last judgement that rep does not hold
// is kept: a judgement may leave kinds of probes out (the script's on a
// change of the cluster, the controller's until the files are shown), and
// what they said last stands until they run again.
func (m *Model) Judged(n int, rep *judge.Report, at time.Time) []Verdict {
	r := &stepResult{at: at}
	var out []Verdict
	seen := map[string]bool{}
	for _, c := range rep.Checks {
		if c.Step != n {
			continue
		}
		seen[c.ID] = true
		r.checks = append(r.checks, c)
		out = append(out, Verdict{Step: n, ID: c.ID, Status: c.Status, Expected: c.Expected, Actual: c.Actual, At: at})
	}
	if old := m.results[n]; old != nil {
		for _, c := range old.checks {
			if !seen[c.ID] {
				r.checks = append(r.checks, c)
			}
		}
		for id := range old.missing {
			if !seen[id] {
				if r.missing == nil {
					r.missing = map[string]bool{}
				}
				r.missing[id] = true
			}
		}
	}
	r.status = statusOf(r.checks)
	if len(r.missing) > 0 {
		r.status = Todo
	}
	m.results[n] = r
	return out
}

// statusOf is Passed unless a check fails.
func statusOf(cs []judge.Check) StepStatus {
	for _, c := range cs {
		if c.Status == judge.Fail {
			return Failed
		}
	}
	return Passed
}

// Forget drops the checks ids of step n: what they said is no longer
// true (the script they ran was saved again, and may not run now). The
// step has no mark until they are judged again.
func (m *Model) Forget(n int, ids map[string]bool) {
	r := m.results[n]
	if r == nil {
		return
	}
	var keep []judge.Check
	for _, c := range r.checks {
		if !ids[c.ID] {
			keep = append(keep, c)
		}
	}
	r.checks, r.status, r.missing = keep, Todo, map[string]bool{}
	for id := range ids {
		r.missing[id] = true
	}
}

// Has tells whether step n's checks hold every one of ids.
func (m *Model) Has(n int, ids map[string]bool) bool {
	have := map[string]bool{}
	for _, c := range m.Checks(n) {
		have[c.ID] = true
	}
	for id := range ids {
		if !have[id] {
			return false
		}
	}
	return true
}

// Evidence says which steps' evidence is written (done[n]).
func (m *Model) Evidence(done map[int]bool) { m.done = done }

// StartOver forgets every judgement and puts the learner on step
// current: the lab was reset under watch.
func (m *Model) StartOver(current int) {
	m.results = map[int]*stepResult{}
	m.Current, m.Hint, m.List = clamp(m.steps, current), 0, false
}

// Status is step n's place on the progress line: Todo for a step after
// the current one whose evidence is not written, whatever it was.
func (m *Model) Status(n int) StepStatus {
	if m.done != nil && n > m.Current && !m.done[n] {
		return Todo
	}
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

package watch

import (
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/course"
	"github.com/labhub/cnpa/internal/judge"
)

func report(step int, statuses ...judge.Status) *judge.Report {
	rep := &judge.Report{}
	for i, s := range statuses {
		rep.Checks = append(rep.Checks, judge.Check{ID: "c" + string(rune('a'+i)), Step: step, Status: s,
			Title: "check", Expected: "want", Actual: "got", Hint: "do this"})
	}
	rep.Finish(step)
	return rep
}

func TestKeys(t *testing.T) {
	for _, c := range []struct {
		name    string
		keys    string
		current int
		hint    int
		list    bool
		last    Action
	}{
		{"quit", "q", 3, 0, false, Quit},
		{"ctrl-c", "\x03", 3, 0, false, Quit},
		{"next", "n", 4, 0, false, JudgeCurrent},
		{"next stops at the last step, judged again", "nnnnnnnnnn", 8, 0, false, JudgeCurrent},
		{"a step by number", "6", 6, 0, false, JudgeCurrent},
		{"no step 9", "9", 3, 0, false, None},
		{"the same step again: judged again", "3", 3, 0, false, JudgeCurrent},
		{"the same step keeps the hint", "h3", 3, 1, false, JudgeCurrent},
		{"hint: the nudge", "h", 3, 1, false, None},
		{"hint: the commands", "hh", 3, 2, false, None},
		{"hint: hidden again", "hhh", 3, 0, false, None},
		{"next hides the hint", "hn", 4, 0, false, JudgeCurrent},
		{"list", "l", 3, 0, true, None},
		{"list and back", "ll", 3, 0, false, None},
		{"a step from the list", "l3", 3, 0, false, JudgeCurrent},
		{"check all", "c", 3, 0, false, CheckAll},
		{"other keys", "xA[", 3, 0, false, None},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := NewModel(course.Steps.Lab(), 3)
			var last Action
			for _, k := range c.keys {
				last = m.Key(k)
			}
			if m.Current != c.current || m.Hint != c.hint || m.List != c.list || last != c.last {
				t.Errorf("after %q: current %d hint %d list %v action %v, want %d %d %v %v",
					c.keys, m.Current, m.Hint, m.List, last, c.current, c.hint, c.list, c.last)
			}
		})
	}
}

func TestJudged(t *testing.T) {
	m := NewModel(course.Steps.Lab(), 3)
	if m.Status(3) != Todo || m.Done() != 0 {
		t.Fatalf("fresh model: status %v done %d, want Todo 0", m.Status(3), m.Done())
	}
	at := time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC)
	vs := m.Judged(3, report(3, judge.Pass, judge.Fail), at)
	if len(vs) != 2 || vs[1] != (Verdict{Step: 3, ID: "cb", Status: judge.Fail, Expected: "want", Actual: "got", At: at}) {
		t.Errorf("verdicts %+v", vs)
	}
	if m.Status(3) != Failed {
		t.Errorf("status %v, want Failed", m.Status(3))
	}
	m.Judged(3, report(3, judge.Pass, judge.Pass), at)
	m.Judged(1, report(1, judge.Pass, judge.Note), at)
	if m.Status(3) != Passed || m.Done() != 2 {
		t.Errorf("status %v done %d, want Passed 2", m.Status(3), m.Done())
	}
	if got := m.Previous(3, "cb"); got != judge.Pass {
		t.Errorf("previous %q, want pass", got)
	}
}

func TestNotices(t *testing.T) {
	m := NewModel(course.Steps.Lab(), 1)
	for _, s := range []string{"a", "b", "c", "d", "e"} {
		m.Notice(s)
	}
	if got := len(m.Notices); got != maxNotices || m.Notices[0] != "c" || m.Notices[2] != "e" {
		t.Errorf("notices %v, want the last %d", m.Notices, maxNotices)
	}
}

// A judgement that leaves kinds of probes out keeps what they said last;
// Forget drops it; the step's status is its checks' as merged.
func TestJudgedKeepsWhatALookLeftOut(t *testing.T) {
	m := NewModel(course.Steps.Lab(), 3)
	at := time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC)
	full := report(3, judge.Pass, judge.Fail) // ca: a file's rule, cb: the script's probe
	m.Judged(3, full, at)
	quick := report(3, judge.Pass)
	if vs := m.Judged(3, quick, at); len(vs) != 1 {
		t.Errorf("verdicts %+v: want only the look's own", vs)
	}
	if got := len(m.Checks(3)); got != 2 || m.Status(3) != Failed {
		t.Errorf("checks %d status %v: want cb kept, failing", got, m.Status(3))
	}
	if !m.Has(3, map[string]bool{"cb": true}) {
		t.Error("Has(cb) false")
	}
	m.Forget(3, map[string]bool{"cb": true})
	if m.Has(3, map[string]bool{"cb": true}) || m.Status(3) != Todo {
		t.Errorf("after Forget: checks %+v status %v, want no mark", m.Checks(3), m.Status(3))
	}
	m.Judged(3, quick, at)
	if m.Status(3) != Todo {
		t.Errorf("a look without cb: status %v, want still no mark", m.Status(3))
	}
	m.Judged(3, report(3, judge.Pass, judge.Pass), at)
	if m.Status(3) != Passed {
		t.Errorf("cb judged again: status %v, want Passed", m.Status(3))
	}
}

// A step after the current one whose evidence is not written shows no
// mark, whatever an older judgement said (7✓ 8✓ after a reset); one
// before it shows what it is.
func TestStatusWithoutEvidence(t *testing.T) {
	m := NewModel(course.Steps.Lab(), 8)
	at := time.Now()
	for n := 1; n <= 8; n++ {
		m.Judged(n, report(n, judge.Pass), at)
	}
	m.Evidence(map[int]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 7: true, 8: true})
	if m.Done() != 8 {
		t.Fatalf("done %d, want 8", m.Done())
	}
	m.StartOver(1)
	m.Judged(1, report(1, judge.Fail), at)
	m.Evidence(map[int]bool{})
	for n := 2; n <= 8; n++ {
		if m.Status(n) != Todo {
			t.Errorf("after a reset, step %d: %v, want no mark", n, m.Status(n))
		}
	}
	if m.Status(1) != Failed || m.Current != 1 {
		t.Errorf("step 1: %v on %d, want Failed on 1", m.Status(1), m.Current)
	}
	m.Judged(7, report(7, judge.Pass), at) // a look at every step: 7 passes its rules?
	if m.Status(7) != Todo {
		t.Errorf("step 7 without catchup.json: %v, want no mark", m.Status(7))
	}
}

// A notice about something goes when its cause does, and a new one about
// it replaces the old.
func TestNoticesClear(t *testing.T) {
	m := NewModel(course.Steps.Lab(), 1)
	m.NoticeFor("drift.json", "drift.json is incomplete")
	m.Notice("going on at step 1")
	m.NoticeFor("drift.json", "drift.json was removed")
	if got := strings.Join(m.Notices, "|"); got != "going on at step 1|drift.json was removed" {
		t.Errorf("notices %q", got)
	}
	m.Clear("drift.json")
	if got := strings.Join(m.Notices, "|"); got != "going on at step 1" {
		t.Errorf("after Clear: %q", got)
	}
	for _, s := range []string{"a", "b", "c"} {
		m.NoticeFor(s, s)
	}
	m.Clear("b")
	if got := strings.Join(m.Notices, "|"); got != "a|c" {
		t.Errorf("after pushing out and Clear(b): %q", got)
	}
}

func TestClamp(t *testing.T) {
	if got := NewModel(course.Steps.Lab(), 0).Current; got != 1 {
		t.Errorf("NewModel(course.Steps.Lab(), 0) on %d, want 1", got)
	}
	if got := NewModel(course.Steps.Lab(), 42).Current; got != 8 {
		t.Errorf("NewModel(course.Steps.Lab(), 42) on %d, want 8", got)
	}
}

func TestReadKeysDropsEscapesAndEnter(t *testing.T) {
	ch := make(chan rune, 16)
	readKeys(strings.NewReader("h\n\x1b[C\x1b[1;5Dq\x1bOAc"), ch)
	close(ch)
	var got []rune
	for k := range ch {
		got = append(got, k)
	}
	if string(got) != "hqc" {
		t.Errorf("keys %q, want hqc (Enter ignored, the arrows' bytes dropped)", string(got))
	}
}

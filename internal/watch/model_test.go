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
		{"next stops at the last step", "nnnnnnnnnn", 8, 0, false, None},
		{"a step by number", "6", 6, 0, false, JudgeCurrent},
		{"no step 9", "9", 3, 0, false, None},
		{"the same step again", "3", 3, 0, false, None},
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

package watch

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	fcolor "github.com/fatih/color"

	"github.com/labhub/cnpa/internal/course"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/ui"
)

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// A long value of each kind a check carries: a uid, a path, prose in
// both languages.
func longChecks(step int) *judge.Report {
	rep := &judge.Report{Checks: []judge.Check{
		{ID: "x.uid", Step: step, Status: judge.Fail, Title: strings.Repeat("the namespace owner uid is alpha's ", 4),
			Expected: "6f1c3c2e-0c7b-4d1e-9a55-" + strings.Repeat("0123456789abcdef", 5),
			Actual:   "/root/cnpa-op/" + strings.Repeat("very-long-directory-name/", 6) + "reconcile.sh",
			Hint:     strings.Repeat("ネームスペースのownerReferenceはTeamSpaceのuidを指すこと。", 5)},
		{ID: "x.ja", Step: step, Status: judge.Pass, Title: strings.Repeat("調整ループは望ましい状態と実際の状態を比べる。", 6)},
		{ID: "x.note", Step: step, Status: judge.Note, Title: "a note"},
	}}
	rep.Finish(step)
	return rep
}

func TestScreenFitsEightyColumns(t *testing.T) {
	defer i18n.Set(i18n.Current())
	for _, l := range []i18n.Lang{i18n.English, "ja"} {
		i18n.Set(l)
		for _, color := range []bool{false, true} {
			// fatih/color turns colour off when stdout is no terminal,
			// as under go test: on, the lines carry its codes.
			defer func(was bool) { fcolor.NoColor = was }(fcolor.NoColor)
			fcolor.NoColor = !color
			v := &View{Dir: "/root/cnpa-op/" + strings.Repeat("d", 90), P: ui.New(nil, !color),
				Where: lab.Where{Dir: "/root/cnpa-op", UnitDir: "/etc/systemd/system"}}
			for _, s := range course.Steps.Lab() {
				for _, keys := range []string{"", "h", "hh", "l"} {
					m := NewModel(course.Steps.Lab(), s.Number)
					m.Judged(s.Number, longChecks(s.Number), time.Now())
					m.Down = strings.Repeat("dial tcp 127.0.0.1:6443: connect: connection refused ", 3)
					m.Notice(i18n.T("watch.file.incomplete", i18n.Args{"File": "drift.json"}))
					m.Notice(i18n.T("watch.held.stopped", i18n.Args{"Script": "reconcile.sh", "Unit": "cnpa-op.service"}))
					m.Judging = s.Number
					if s.Number%2 == 0 {
						m.Running = 7
					}
					for _, k := range keys {
						m.Key(k)
					}
					lines := v.Screen(m)
					if len(lines) < 5 {
						t.Fatalf("%s step %d %q: only %d lines", l, s.Number, keys, len(lines))
					}
					for _, line := range lines {
						plain := ansi.ReplaceAllString(line, "")
						if w := ui.Width(plain); w > Columns {
							t.Errorf("%s color=%v step %d keys %q: %d columns: %q", l, color, s.Number, keys, w, plain)
						}
						if !color && plain != line {
							t.Errorf("colour without colour: %q", line)
						}
						if color && strings.Contains(line, markFail) && plain == line {
							t.Errorf("a mark without colour: %q", line)
						}
					}
				}
			}
		}
	}
}

func TestScreenSays(t *testing.T) {
	defer i18n.Set(i18n.Current())
	i18n.Set(i18n.English)
	v := &View{Dir: "/root/cnpa-op", P: ui.New(nil, true), Where: lab.Where{Dir: "/root/cnpa-op", UnitDir: "/etc/systemd/system"}}
	m := NewModel(course.Steps.Lab(), 3)
	m.Judged(1, report(1, judge.Pass), time.Now())
	m.Judged(3, longChecks(3), time.Now())
	screen := strings.Join(v.Screen(m), "\n")
	for _, want := range []string{" 1✓ ", " 2· ", "[3✗]", "1/8 steps pass", "Step 3 · The same result",
		"✗ the namespace owner uid", "found:", "expected: 6f1c3c2e", "✓ 調整ループ", "h hint · n next"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	m.Key('h')
	nudge := strings.Join(v.Screen(m), "\n")
	if !strings.Contains(nudge, "hint: ネームスペース") || strings.Contains(nudge, "$ ") {
		t.Errorf("first h: want the failed check's hint and no command:\n%s", nudge)
	}
	m.Key('h')
	cmds := strings.Join(v.Screen(m), "\n")
	if !strings.Contains(cmds, "$ /root/cnpa-op/reconcile.sh") {
		t.Errorf("second h: want step 3's commands:\n%s", cmds)
	}
	m.Key('l')
	list := strings.Join(v.Screen(m), "\n")
	if !strings.Contains(list, "> ✗ 3  The same result") || !strings.Contains(list, "  · 8  Leave what") {
		t.Errorf("list:\n%s", list)
	}
}

func TestScreenInJapanese(t *testing.T) {
	defer i18n.Set(i18n.Current())
	i18n.Set("ja")
	v := &View{Dir: "/root/cnpa-op", P: ui.New(nil, true)}
	m := NewModel(course.Steps.Lab(), 5)
	screen := strings.Join(v.Screen(m), "\n")
	for _, want := range []string{"ステップ5 · ", "まだ判定していません", "h ヒント"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
}

func TestPlainLinesSayFailuresAndChanges(t *testing.T) {
	defer i18n.Set(i18n.Current())
	i18n.Set(i18n.English)
	v := &View{P: ui.New(nil, true)}
	m := NewModel(course.Steps.Lab(), 3)
	first := v.PlainLines(m, 3, report(3, judge.Pass, judge.Fail))
	m.Judged(3, report(3, judge.Pass, judge.Fail), time.Now())
	if got := strings.Join(first, "\n"); !strings.Contains(got, "step 3: 1 passed, 1 failed") ||
		!strings.Contains(got, "✗ cb: check") || strings.Contains(got, "ca") {
		t.Errorf("first judgement:\n%s", got)
	}
	fixed := v.PlainLines(m, 3, report(3, judge.Pass, judge.Pass))
	if got := strings.Join(fixed, "\n"); !strings.Contains(got, "step 3: 2 passed, 0 failed") ||
		!strings.Contains(got, "✓ cb: check") || strings.Contains(got, "ca") {
		t.Errorf("after the fix:\n%s", got)
	}
	// A look without the probes (ca alone): the counts are still of both
	// checks shown, not of ca alone (found in Japanese: 8 passed, then 5).
	m.Judged(3, report(3, judge.Pass, judge.Pass), time.Now())
	look := report(3, judge.Pass, judge.Pass)
	look.Checks = look.Checks[:1]
	if got := strings.Join(v.PlainLines(m, 3, look), "\n"); !strings.Contains(got, "step 3: 2 passed, 0 failed") {
		t.Errorf("a look without the probes:\n%s", got)
	}
}

func TestJSONOneObjectAVerdict(t *testing.T) {
	at := time.Date(2026, 12, 7, 5, 0, 0, 0, time.UTC)
	var buf bytes.Buffer
	vs := NewModel(course.Steps.Lab(), 3).Judged(3, report(3, judge.Pass, judge.Fail), at)
	if err := WriteJSON(&buf, vs); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("got %d lines, want 2:\n%s", len(lines), buf.String())
	}
	want := `{"step":3,"id":"cb","status":"fail","expected":"want","actual":"got","at":"2026-12-07T05:00:00Z"}`
	if lines[1] != want {
		t.Errorf("got %s, want %s", lines[1], want)
	}
	var keys map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &keys); err != nil || len(keys) != 6 {
		t.Errorf("first line %s: %v, %d keys, want 6", lines[0], err, len(keys))
	}
}

func TestFit(t *testing.T) {
	for _, s := range []string{strings.Repeat("x", 200), strings.Repeat("あ", 100), "short"} {
		for _, l := range fit("> ", s, 20, "  ") {
			if ui.Width(l) > 20 {
				t.Errorf("%q: %d columns", l, ui.Width(l))
			}
		}
	}
	if got := fit("> ", "short", 20, "  "); len(got) != 1 || got[0] != "> short" {
		t.Errorf("fit(short) = %q", got)
	}
}

// While a `cnpa step` runs, the screen says so, in place of "judging".
func TestScreenSaysAStepRuns(t *testing.T) {
	defer i18n.Set(i18n.Current())
	for lang, want := range map[i18n.Lang]string{i18n.English: "`cnpa step 7` is running", i18n.Japanese: "`cnpa step 7`が実行中です"} {
		i18n.Set(lang)
		m := NewModel(course.Steps.Lab(), 3)
		m.Judging, m.Running = 3, 7
		screen := strings.Join((&View{Dir: "/root/cnpa-op", P: ui.New(nil, true)}).Screen(m), "\n")
		if !strings.Contains(screen, want) || strings.Contains(screen, i18n.T("watch.judging", i18n.Args{"N": 3})) {
			t.Errorf("%s: the screen does not say the step runs, or says it judges:\n%s", lang, screen)
		}
	}
}

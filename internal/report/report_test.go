package report

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/course"
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/timeline"
)

func TestLayout(t *testing.T) {
	start := time.Unix(0, 0)
	ms := func(n int) time.Time { return start.Add(time.Duration(n) * time.Millisecond) }
	cases := []struct {
		name      string
		at        []int // entries, in ms
		actors    []string
		wantLog   bool
		wantLanes []string
		wantTicks []string
	}{
		{"reaction within a second", []int{0, 310}, []string{timeline.Controller, timeline.You}, false,
			[]string{timeline.You, timeline.Controller}, []string{"0", "+50 ms", "+100 ms", "+150 ms", "+200 ms", "+250 ms", "+300 ms"}},
		{"garbage collection 45 s after 6 ms", []int{0, 6, 45012}, []string{timeline.You, timeline.Controller, timeline.GarbageCollector}, true,
			[]string{timeline.You, timeline.Controller, timeline.GarbageCollector}, []string{"0", "+1 ms", "+10 ms", "+100 ms", "+1 s", "+10 s"}},
		{"before the action", []int{-2, 0, 3}, []string{timeline.You, timeline.You, "someone"}, false,
			[]string{timeline.You, "someone"}, []string{"−2 ms", "−1 ms", "0", "+1 ms", "+2 ms", "+3 ms"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tl := &timeline.Timeline{Start: start}
			for i, n := range c.at {
				tl.Add(ms(n), c.actors[i], "x", timeline.FromWatch)
			}
			tl.Sorted()
			ch, rows := layout(tl)
			if ch.Log != c.wantLog {
				t.Errorf("log axis: got %v, want %v", ch.Log, c.wantLog)
			}
			var lanes, ticks []string
			for _, l := range ch.Lanes {
				lanes = append(lanes, l.Actor)
			}
			for _, tk := range ch.Ticks {
				ticks = append(ticks, tk.Label)
			}
			if strings.Join(lanes, ",") != strings.Join(c.wantLanes, ",") {
				t.Errorf("lanes: got %v, want %v", lanes, c.wantLanes)
			}
			if strings.Join(ticks, ",") != strings.Join(c.wantTicks, ",") {
				t.Errorf("ticks: got %v, want %v", ticks, c.wantTicks)
			}
			if len(ch.Marks) != len(c.at) || len(rows) != len(c.at) {
				t.Fatalf("marks %d, rows %d: want %d each", len(ch.Marks), len(rows), len(c.at))
			}
			// Time runs left to right, every dot inside the plot, and the
			// action's line where an entry at 0 is.
			for i, m := range ch.Marks {
				if m.X < ch.Left || m.X > ch.Right {
					t.Errorf("dot %d at x=%.1f, outside the plot [%.0f, %.0f]", m.N, m.X, ch.Left, ch.Right)
				}
				if i > 0 && m.X < ch.Marks[i-1].X {
					t.Errorf("dot %d left of dot %d", m.N, ch.Marks[i-1].N)
				}
				if c.at[i] == 0 && m.X != ch.ZeroX {
					t.Errorf("an entry at 0 ms is at x=%.1f, the action's line at %.1f", m.X, ch.ZeroX)
				}
			}
		})
	}
}

func TestStackedDotsDoNotCover(t *testing.T) {
	tl := &timeline.Timeline{Start: time.Unix(0, 0)}
	for i := range 3 {
		tl.Add(tl.Start.Add(time.Duration(i)*time.Millisecond), timeline.Controller, "x", timeline.FromEvent)
	}
	tl.Add(tl.Start.Add(time.Second), timeline.Controller, "x", timeline.FromEvent)
	ch, _ := layout(tl)
	for i := range 3 {
		for j := i + 1; j < 3; j++ {
			a, b := ch.Marks[i], ch.Marks[j]
			if dx, dy := a.X-b.X, a.Y-b.Y; dx*dx+dy*dy < 4*markRadius*markRadius {
				t.Errorf("dots %d and %d cover each other: (%.1f,%.1f) and (%.1f,%.1f)", a.N, b.N, a.X, a.Y, b.X, b.Y)
			}
		}
	}
}

func TestBuildTellsWhatIsMissingOrStale(t *testing.T) {
	dir := t.TempDir()
	page := func() (*Page, string) {
		p := Build(Options{Steps: course.Steps.Lab(), Dir: dir, AlphaUnknown: "no cluster", Now: time.Now(), Version: "test"})
		var b bytes.Buffer
		if err := Write(&b, p); err != nil {
			t.Fatal(err)
		}
		return p, b.String()
	}
	p, html := page()
	if p.Check.Missing == "" || !strings.Contains(html, "`cnpa check` has not been run") {
		t.Errorf("no check report: the page must say so and how to get one")
	}
	for _, s := range p.Steps {
		if s.Status != Missing {
			t.Errorf("step %d of an empty dir: status %s, want %s", s.Number, s.Status, Missing)
		}
	}
	if !strings.Contains(html, "before.json is not written yet: run `cnpa step 1`") {
		t.Errorf("an unwritten file must say which step writes it")
	}

	// A check saved before the evidence was written is stale.
	if err := judge.SaveLast(dir, &judge.Report{Dir: dir, Passed: 1}, time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := evidence.Write(dir, lab.BeforeFile, lab.BeforeRecord{UID: "u", NamespaceExists: true}); err != nil {
		t.Fatal(err)
	}
	p, html = page()
	if p.Check.Stale == "" || !strings.Contains(html, "older than the evidence") || !strings.Contains(p.Check.Stale, "before.json") {
		t.Errorf("check older than before.json: stale %q, want it named on the page", p.Check.Stale)
	}
	s1 := p.Steps[0]
	if s1.Status != Bad || s1.Values[1].Status != Bad || s1.Values[0].Status != Skipped {
		t.Errorf("before.json with namespace_exists true, alpha unknown: step %s, values %+v", s1.Status, s1.Values)
	}

	// A malformed file and a broken timeline are named, not fatal.
	for _, err := range []error{
		os.WriteFile(filepath.Join(dir, lab.GenerationFile), []byte(`{"uid": 1}`), 0o644),
		os.MkdirAll(filepath.Join(dir, lab.OwnDir), 0o755),
		os.WriteFile(timeline.Path(dir, 5), []byte(`{`), 0o644),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	p, _ = page()
	if s := p.Steps[1]; s.Status != Bad || !strings.Contains(s.FileProblem, "generation.json") {
		t.Errorf("malformed generation.json: step 2 %s, problem %q", s.Status, s.FileProblem)
	}
	if s := p.Steps[4]; s.Timeline != nil || !strings.Contains(s.TimelineNote, "run the step again") {
		t.Errorf("broken timeline of step 5: note %q", s.TimelineNote)
	}
}

// The last `cnpa stress` is a section of its own, each fault by name and
// status; without one the page has none.
func TestPageShowsTheLastStress(t *testing.T) {
	dir := t.TempDir()
	render := func() string {
		var b bytes.Buffer
		if err := Write(&b, Build(Options{Steps: course.Steps.Lab(), Dir: dir, AlphaUnknown: "no cluster", Now: time.Now(), Version: "test"})); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	if html := render(); strings.Contains(html, `id="stress"`) {
		t.Error("a page without a stress run has a stress section")
	}
	rep := &judge.StressReport{Engine: "own", Faults: []judge.StressFault{
		{Name: "kill9", Status: judge.Pass},
		{Name: "burst", Status: judge.Fail, Findings: []judge.StressFinding{{Property: judge.StressConverged, Found: "cnpa-check-1: no quota", Expected: "converged"}}, Hint: "compare",
			Log: "E1207 reconcile.sh: line 42: " + strings.Repeat("kubectl: error: the server is currently unable to handle the request ", 4)},
	}}
	rep.Count()
	if err := judge.SaveStress(dir, rep); err != nil {
		t.Fatal(err)
	}
	html := render()
	for _, want := range []string{`id="stress"`, `data-fault="kill9" data-status="pass"`, `data-fault="burst" data-status="fail"`, "cnpa-check-1: no quota", "→ compare"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// The controller's log keeps its lines, wrapped in the page, never
	// wider than it (a line of the log is as long as it comes).
	if !strings.Contains(html, `<pre class="mono">E1207 reconcile.sh`) || !regexp.MustCompile(`pre\.mono \{[^}]*white-space: pre-wrap`).MatchString(html) {
		t.Error("the stress log is not a pre that wraps its lines")
	}
	if !strings.Contains(html, i18n.T("stress.check_heading")) {
		t.Error("the page does not say stress is not part of the lab's grade")
	}
	// Counted by the instructor's policy, the page says how much.
	var b bytes.Buffer
	if err := Write(&b, Build(Options{Steps: course.Steps.Lab(), Dir: dir, AlphaUnknown: "no cluster", Now: time.Now(), Version: "test", StressPoints: 0.5})); err != nil {
		t.Fatal(err)
	}
	if want := i18n.T("stress.check_heading_counted", i18n.Args{"Points": "0.5"}); !strings.Contains(b.String(), want) {
		t.Errorf("the page with stress counted lacks %q", want)
	}
}

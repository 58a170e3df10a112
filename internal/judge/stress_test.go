package judge

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/ui"
)

func sampleStress() *StressReport {
	r := &StressReport{At: time.Date(2026, 12, 6, 20, 0, 0, 0, time.UTC), Engine: "own", Seconds: 61.4, Faults: []StressFault{
		{Name: "kill9", Status: Pass, Injected: map[string]int64{"kill": 3}},
		{Name: "burst", Status: Fail, Injected: map[string]int64{"burst": 1},
			Findings: []StressFinding{{Property: StressConverged, Found: "cnpa-check-1: no quota", Expected: "every TeamSpace converged"}},
			Hint:     "compare desired with actual", Log: "error: boom\nteamspace x patched"},
		{Name: "stale", Status: Skip, Why: "not run"},
		// What a real run says: an API server's refusal, a hint and a log
		// line as long as they come, in the learner's language.
		{Name: "error", Status: Fail, Injected: map[string]int64{"error": 12},
			Findings: []StressFinding{{Property: StressConverged, Found: "cnpa-check-2: " + strings.Repeat("the server could not find the requested resource (get resourcequotas team-quota) ", 3),
				Expected: strings.Repeat("すべてのTeamSpaceがそろう、", 8)}},
			Hint: strings.Repeat("コントローラーは失敗した周回のあとも次の周回で続けなければなりません。", 4),
			Log:  "E1207 " + strings.Repeat("reconcile.sh: line 42: kubectl: error: the server is currently unable to handle the request ", 2)},
		{Name: "drop", Status: Skip, Why: strings.Repeat("この障害はこのクラスターでは注入できませんでした（プロキシーが使えません）。", 3)},
	}}
	r.Count()
	return r
}

func TestStressCounts(t *testing.T) {
	r := sampleStress()
	if r.Passed != 1 || r.Failed != 2 || r.Skipped != 2 || r.OK() {
		t.Errorf("counts %d/%d/%d OK %v, want 1/2/2 and not OK", r.Passed, r.Failed, r.Skipped, r.OK())
	}
	if got := strings.Join(r.FailedFaults(), ","); got != "burst,error" {
		t.Errorf("FailedFaults = %q, want burst", got)
	}
}

func TestStressText(t *testing.T) {
	for _, lang := range []i18n.Lang{i18n.English, i18n.Japanese} {
		i18n.Set(lang)
		var b bytes.Buffer
		WriteStressText(ui.New(&b, true), sampleStress())
		text := b.String()
		for _, want := range []string{"✓ kill9", "kill×3", "✗ burst", "converged:", "cnpa-check-1: no quota",
			"every TeamSpace converged", "→ compare desired with actual", "error: boom", "- stale", "not run"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: the text lacks %q:\n%s", lang, want, text)
			}
		}
		for _, l := range strings.Split(text, "\n") {
			if w := ui.Width(l); w > 80 {
				t.Errorf("%s: a line of %d columns: %q", lang, w, l)
			}
		}
	}
	i18n.Set(i18n.English)
}

// A saved stress result reads back whole; none saved is (nil, nil); and a
// check report carries it apart from its counts.
func TestStressSavedAndInTheCheckReport(t *testing.T) {
	dir := t.TempDir()
	if r, err := LoadStress(dir); r != nil || err != nil {
		t.Fatalf("LoadStress of a dir without one = %v, %v; want nil, nil", r, err)
	}
	if err := SaveStress(dir, sampleStress()); err != nil {
		t.Fatal(err)
	}
	got, err := LoadStress(dir)
	if err != nil || got == nil || len(got.Faults) != 5 || got.Failed != 2 {
		t.Fatalf("LoadStress = %+v, %v", got, err)
	}
	rep := &Report{Passed: 3}
	plain, _ := json.Marshal(rep)
	if strings.Contains(string(plain), "stress") {
		t.Errorf("a check report without stress mentions it: %s", plain)
	}
	rep.Stress = got
	if !rep.OK() {
		t.Error("a failed stress fault fails the lab's grade; it must not")
	}
	var b bytes.Buffer
	WriteText(ui.New(&b, true), rep)
	if !strings.Contains(b.String(), i18n.T("stress.check_heading")) || !strings.Contains(b.String(), "✗ burst") {
		t.Errorf("cnpa check's text has no stress section:\n%s", b.String())
	}
	// Counted by the instructor's policy, the section says so, and says
	// when stress never ran.
	b.Reset()
	rep.StressPoints = 0.5
	WriteText(ui.New(&b, true), rep)
	if !strings.Contains(b.String(), i18n.T("stress.check_heading_counted", i18n.Args{"Points": "0.5"})) || !strings.Contains(b.String(), "✗ burst") {
		t.Errorf("cnpa check's text does not say stress counts 0.5 a fault:\n%s", b.String())
	}
	b.Reset()
	rep.Stress = nil
	WriteText(ui.New(&b, true), rep)
	if !strings.Contains(b.String(), "0.5") || !strings.Contains(b.String(), i18n.T("stress.check_none")) {
		t.Errorf("counted but never run: the text does not say so:\n%s", b.String())
	}
}

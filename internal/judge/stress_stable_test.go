package judge

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/ui"
)

// Each fault says how long the controller took to converge and to be
// stable, in the text (both languages, within 80 columns) and in the
// JSON; a fault that converged and kept writing says it was not stable,
// and fails stable by name.
func TestStressTimes(t *testing.T) {
	conv, stab := 2.14, 9.05
	r := &StressReport{Engine: "own", Faults: []StressFault{
		{Name: "conflict", Status: Pass, Injected: map[string]int64{"conflict": 12, "error": 3}, TimeToConverge: &conv, TimeToStable: &stab, StableFor: 12.5},
		{Name: "poison", Status: Fail, Injected: map[string]int64{"poison": 1}, TimeToConverge: &conv,
			Findings: []StressFinding{{Property: StressStable, Found: "still writing 30 s after it converged", Expected: "no write for 3 whole passes"}}},
	}}
	r.Count()
	for lang, want := range map[i18n.Lang][]string{
		i18n.English:  {"converged 2.1 s, stable 9.1 s", "converged 2.1 s, not stable", "stable:"},
		i18n.Japanese: {"収束 2.1 秒、安定 9.1 秒", "収束 2.1 秒、安定せず", "stable:"},
	} {
		i18n.Set(lang)
		var b bytes.Buffer
		WriteStressText(ui.New(&b, true), r)
		for _, w := range want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s: the text lacks %q:\n%s", lang, w, b.String())
			}
		}
		for _, l := range strings.Split(b.String(), "\n") {
			if w := ui.Width(l); w > 80 {
				t.Errorf("%s: a line of %d columns: %q", lang, w, l)
			}
		}
	}
	i18n.Set(i18n.English)
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`"time_to_converge":2.14`, `"time_to_stable":9.05`, `"stable_for":12.5`} {
		if !bytes.Contains(data, []byte(w)) {
			t.Errorf("the JSON lacks %s: %s", w, data)
		}
	}
	// Not converged: neither time.
	if data, _ := json.Marshal(StressFault{Name: "burst", Status: Fail}); bytes.Contains(data, []byte("time_to")) {
		t.Errorf("a fault that never converged has a time: %s", data)
	}
}

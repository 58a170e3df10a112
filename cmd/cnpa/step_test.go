package main

import (
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/steps"
)

// A step that ends because a verdict did not hold says it failed, naming
// the lines that did not (stuck moment 14: step 7 exited 1 with no such
// sentence), in both languages, in the learner's words where a line has
// them.
func TestStepFailedNamesTheLines(t *testing.T) {
	defer i18n.Set(i18n.Current())
	r := &steps.Result{Verdicts: []steps.Line{
		{Name: "generation", OK: true},
		{Name: "observed_while_stopped", OK: false},
		{Name: "quota_pods_while_stopped", Label: "quota_pods_while_stopped", OK: false},
	}}
	for lang, want := range map[i18n.Lang]string{
		i18n.English:  "step 7 failed: observed_while_stopped, quota_pods_while_stopped not as the lab expects (above)",
		i18n.Japanese: "ステップ7が失敗しました: observed_while_stopped、quota_pods_while_stoppedが、ラボの期待する値と違います（上を参照）",
	} {
		i18n.Set(lang)
		// Japanese is wrapped at 80 columns, each further line indented.
		if got := strings.ReplaceAll(stepFailed(7, failedLines(r)), "\n  ", ""); got != want {
			t.Errorf("%s:\n got %q\nwant %q", lang, got, want)
		}
	}
}

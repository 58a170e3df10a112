package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/reset"
	"github.com/labhub/cnpa/internal/ui"
)

// What reset is about to do fits 80 columns in both languages, names
// listed with the language's separator (issue 57: Japanese lines of 250
// columns, and namespaces said as Go's [a b c]); only a path wider than
// a line stands on one of its own, and never a path is broken.
func TestResetPlanFits80Columns(t *testing.T) {
	defer i18n.Set(i18n.Current())
	dir := "/tmp/a-rather-long-directory-name-as-learners-have/cnpa-op-evidence"
	plan := &reset.Plan{Service: true, Identity: true, CRD: true,
		TeamSpaces: []string{"alpha", "cnpa-check-40deb7", "cnpa-check-f2d004", "gamma"},
		Namespaces: []string{"team-alpha", "team-cnpa-check-40deb7", "team-cnpa-check-f2d004", "team-gamma"},
		Files:      []string{"before.json", "generation.json", "reconcile.json"},
		Aside:      []string{"drift.json", "report.json"}, Kept: []string{"reconcile.sh", "crd.yaml"}}
	for _, lang := range []i18n.Lang{i18n.English, i18n.Japanese} {
		i18n.Set(lang)
		var b bytes.Buffer
		describe(ui.New(&b, true), plan, dir)
		out := b.String()
		if strings.Contains(out, "[") {
			t.Errorf("%s: a list said as Go's [a b]:\n%s", lang, out)
		}
		if strings.Contains(out, "own-<\n") || strings.Contains(out, "）\n") && strings.Contains(out, "\n          を") {
			t.Errorf("%s: a path or a particle broken off:\n%s", lang, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if ui.Width(l) > 80 && strings.Contains(strings.TrimSpace(l), " ") {
				t.Errorf("%s: %d columns: %q", lang, ui.Width(l), l)
			}
		}
	}
}

package steps

import (
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/ssaconflict"
	"github.com/labhub/cnpa/internal/ui"
)

// TestConflictLines: a refused apply as a step says it, in every
// language: the managers, the field, --force-conflicts and client-go's
// Force, its prose within 80 display columns, and the fix as the last
// line, a command.
func TestConflictLines(t *testing.T) {
	c := ssaconflict.Find("error: Apply failed with 2 conflicts: conflicts with \"kubectl-edit\" using v1:\n- .spec.hard.requests.cpu\n" +
		"conflicts with \"kubectl-patch\" using v1:\n- .spec.hard.pods\nPlease review the fields above--they currently have other managers. Here\n")
	if c == nil {
		t.Fatal("no refusal found")
	}
	for _, lang := range []i18n.Lang{i18n.English, i18n.Japanese} {
		t.Run(string(lang), func(t *testing.T) {
			i18n.Set(lang)
			t.Cleanup(func() { i18n.Set(i18n.English) })
			s := ConflictLines(c)
			flat := strings.Join(strings.Fields(s), "")
			for _, want := range []string{`"kubectl-edit"`, `"kubectl-patch"`, ".spec.hard.pods", "--force-conflicts", "Force:true"} {
				if !strings.Contains(flat, want) {
					t.Errorf("does not say %q:\n%s", want, s)
				}
			}
			lines := strings.Split(s, "\n")
			if last := lines[len(lines)-1]; last != "      $ "+ssaconflict.Fix {
				t.Errorf("last line %q, want the fix %q", last, ssaconflict.Fix)
			}
			for _, l := range lines[:len(lines)-1] {
				if w := ui.Width(l); w > 80 {
					t.Errorf("a line %d columns wide, want at most 80: %q", w, l)
				}
			}
		})
	}
}

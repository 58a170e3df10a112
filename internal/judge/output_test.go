package judge

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/ui"
)

// A note keeps its id everywhere, is counted apart, and fails nothing: not
// the report, not its JUnit testcase.
func TestNoteIsNotAFailure(t *testing.T) {
	c := &checker{}
	c.add("step3.foreign_namespace_left_alone", 3, "not adopted", text("leave it alone"), lab.Mistake{},
		lab.Verdict{Want: "no ownerReference", Got: "adopted", Note: "hands a stranger's namespace to the garbage collector", Optional: true})
	c.add("step4.service_active", 4, "running", nil, lab.Mistake{}, lab.Holds(true, "active", "active"))
	r := &Report{Checks: c.checks}
	r.Finish(0)
	if !r.OK() || r.Notes != 1 || r.Passed != 1 || r.Failed != 0 || r.Checks[0].Status != Note {
		t.Fatalf("report %+v: want OK, 1 note, 1 passed", r)
	}
	var text bytes.Buffer
	WriteText(ui.New(&text, true), r)
	for _, want := range []string{"i step3.foreign_namespace_left_alone", "note: hands a stranger's namespace", "1 passed, 0 failed, 1 note"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, text.String())
		}
	}
	var junit bytes.Buffer
	if err := WriteJUnit(&junit, r); err != nil {
		t.Fatal(err)
	}
	var doc JUnitSuites
	if err := xml.Unmarshal(junit.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	tc := doc.Suites[0].Cases[0]
	if doc.Failures != 0 || tc.Name != "step3.foreign_namespace_left_alone" || tc.Failure != nil || !strings.Contains(tc.SystemOut, "note: hands") {
		t.Errorf("JUnit: %d failures, case %+v: want the note as a passing testcase with its id", doc.Failures, tc)
	}
}

// A check's row fits 80 columns even when its text holds a piece wider
// than the column beside the id (found in Japanese: a label, a unit's
// path; 83 and 95 columns): the text then goes under the id.
func TestRowFits80Columns(t *testing.T) {
	for _, text := range []string{
		"team-alphaにラベルplatform.labhub.io/teamspace=alphaがあり、現在のalphaが所有している",
		"unitファイル/tmp/cnpa-cluster-1471233845/systemd/cnpa-op.serviceが存在する",
		"a short one",
	} {
		out := row("✗", "step3.namespace_owned", text)
		for _, l := range strings.Split(out, "\n") {
			if ui.Width(l) > ui.Cols {
				t.Errorf("%d columns: %q\n%s", ui.Width(l), l, out)
			}
		}
		if got := strings.Join(strings.Fields(strings.ReplaceAll(out, "step3.namespace_owned", "")), ""); !strings.Contains(got, strings.ReplaceAll(text, " ", "")) {
			t.Errorf("the text changed: %q", out)
		}
	}
}

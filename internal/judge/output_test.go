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

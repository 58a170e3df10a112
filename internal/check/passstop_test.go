package check

import (
	"bytes"
	"encoding/xml"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/ui"
)

// The log lines that name a TeamSpace's failure, as kubectl, the admission
// policy and cnpa's Go engine print them; a line about a TeamSpace whose
// name only starts the same way is not about it.
func TestLastErrorAbout(t *testing.T) {
	log := strings.Join([]string{
		`namespace/team-cnpa-check-1a2b3c-witness created`,
		`Error from server (Forbidden): namespaces "team-cnpa-check-1a2b3c-foreign" is forbidden: ValidatingAdmissionPolicy 'cnpa-controller-writes' denied request: may not take over namespace`,
		`teamspace cnpa-check-1a2b3c-foreign: not converged this pass`,
		`level=ERROR msg="sync failed" teamspace=alpha err="conflict"`,
		"error: \x1b]0;owned\x07 alphabet",
	}, "\n")
	cases := []struct{ name, want string }{
		{"cnpa-check-1a2b3c-foreign", `Error from server (Forbidden): namespaces "team-cnpa-check-1a2b3c-foreign" is forbidden`},
		{"alpha", `level=ERROR msg="sync failed" teamspace=alpha`},
		{"cnpa-check-1a2b3c-witness", ""},
		{"cnpa-check-1a2b3c", ""},
		{"alphabet", `error: \x1b]0;owned\x07 alphabet`},
	}
	for _, c := range cases {
		got := lastErrorAbout(log, c.name)
		if (c.want == "") != (got == "") || !strings.HasPrefix(got, c.want) {
			t.Errorf("lastErrorAbout(%q) = %q, want a line starting %q", c.name, got, c.want)
		}
	}
}

// The diagnosis names the TeamSpace that ends the pass, its error, those
// that wait behind it, and what a controller does instead.
func TestStoppedPassSays(t *testing.T) {
	s := (&stoppedPass{at: "a-foreign", err: "Error from server (Forbidden)", after: between([]string{"b", "c", "d", "probe"}, "probe")}).String()
	for _, want := range []string{"stops at TeamSpace a-foreign", "Error from server (Forbidden)", "(b, c, …, probe) waits forever", "goes on with the next one"} {
		if !strings.Contains(s, want) {
			t.Errorf("stoppedPass says %q, want it to contain %q", s, want)
		}
	}
}

// The witness waits three times step 4's convergence, within bounds.
func TestWitnessWait(t *testing.T) {
	for _, c := range []struct{ converged, timeout, want time.Duration }{
		{0, 30 * time.Second, 10 * time.Second},
		{2 * time.Second, 30 * time.Second, 10 * time.Second},
		{6 * time.Second, 30 * time.Second, 18 * time.Second},
		{20 * time.Second, 30 * time.Second, 30 * time.Second},
		{0, 5 * time.Second, 5 * time.Second},
	} {
		if got := witnessWait(c.converged, c.timeout); got != c.want {
			t.Errorf("witnessWait(%s, %s) = %s, want %s", c.converged, c.timeout, got, c.want)
		}
	}
}

// A note keeps its id everywhere, is counted apart, and fails nothing: not
// the report, not its JUnit testcase.
func TestNoteIsNotAFailure(t *testing.T) {
	c := &checker{}
	c.add("step3.foreign_namespace_left_alone", 3, "not adopted", "leave it alone",
		verdict{want: "no ownerReference", got: "adopted", note: "hands a stranger's namespace to the garbage collector", optional: true})
	c.add("step4.service_active", 4, "running", "", holds(true, "active", "active"))
	r := &Report{}
	r.finish(0, c.checks)
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

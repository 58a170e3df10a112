package check

import (
	"strings"
	"testing"
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
		got := LastErrorAbout(log, c.name)
		if (c.want == "") != (got == "") || !strings.HasPrefix(got, c.want) {
			t.Errorf("LastErrorAbout(%q) = %q, want a line starting %q", c.name, got, c.want)
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

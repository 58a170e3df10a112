package check

import (
	"slices"
	"strings"
	"testing"
	"time"
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
		{0, 30 * time.Second, 20 * time.Second},
		{2 * time.Second, 30 * time.Second, 20 * time.Second},
		{8 * time.Second, 30 * time.Second, 24 * time.Second},
		{20 * time.Second, 30 * time.Second, 30 * time.Second},
		{0, 5 * time.Second, 5 * time.Second},
	} {
		if got := witnessWait(c.converged, c.timeout); got != c.want {
			t.Errorf("witnessWait(%s, %s) = %s, want %s", c.converged, c.timeout, got, c.want)
		}
	}
}

func TestDiff(t *testing.T) {
	a := &snapshot{rv: map[string]string{"teamspace/a": "1", "namespace/team-a": "2", "teamspace/b": "3"},
		owner: map[string]string{"teamspace/a": "a", "namespace/team-a": "a", "teamspace/b": "b"}}
	b := &snapshot{rv: map[string]string{"teamspace/a": "1", "namespace/team-a": "5", "teamspace/b": "4", "resourcequota/team-b/team-quota": "6"},
		owner: map[string]string{"teamspace/a": "a", "namespace/team-a": "a", "teamspace/b": "b", "resourcequota/team-b/team-quota": "b"}}
	tests := []struct {
		name    string
		excused map[string]string
		want    []string
	}{
		{"nothing excused", nil, []string{"namespace/team-a written (resourceVersion 2→5)", "resourcequota/team-b/team-quota created", "teamspace/b written (resourceVersion 3→4)"}},
		{"b was behind", map[string]string{"b": "quota missing"}, []string{"namespace/team-a written (resourceVersion 2→5)"}},
	}
	for _, tt := range tests {
		if got := diff(a, b, tt.excused); !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %v, want %v", tt.name, got, tt.want)
		}
	}
}

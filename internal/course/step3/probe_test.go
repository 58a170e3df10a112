package step3

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

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

// The writes between two snapshots, one line per object; a TeamSpace
// that was not converged before the first run is excused.
func TestDiff(t *testing.T) {
	a := &check.Snapshot{RV: map[string]string{"teamspace/a": "1", "namespace/team-a": "2", "teamspace/b": "3"},
		Owner: map[string]string{"teamspace/a": "a", "namespace/team-a": "a", "teamspace/b": "b"}}
	b := &check.Snapshot{RV: map[string]string{"teamspace/a": "1", "namespace/team-a": "5", "teamspace/b": "4", "resourcequota/team-b/team-quota": "6"},
		Owner: map[string]string{"teamspace/a": "a", "namespace/team-a": "a", "teamspace/b": "b", "resourcequota/team-b/team-quota": "b"}}
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

// alpha's status as a pass leaves it: a status the server dropped (sent
// to the main endpoint) and one without status.namespace fail, each
// named by its mistake and that mistake's advice, in both languages.
func TestStatusVerdict(t *testing.T) {
	ts := func(observed, gen int64, ns string) *teamspace.TeamSpace {
		a := &teamspace.TeamSpace{}
		a.Name, a.Generation = "alpha", gen
		a.Status.ObservedGeneration, a.Status.Namespace = observed, ns
		return a
	}
	for _, lang := range []i18n.Lang{i18n.English, i18n.Japanese} {
		i18n.Set(lang)
		for _, c := range []struct {
			name    string
			alpha   *teamspace.TeamSpace
			ok      bool
			mistake lab.Mistake
			advice  string
		}{
			{"converged", ts(2, 2, "team-alpha"), true, lab.Mistake{}, ""},
			{"status on the main endpoint", ts(0, 2, ""), false, lab.MistakeStatusMain, lab.MistakeStatusMain.Advise()},
			{"no status.namespace", ts(2, 2, ""), false, lab.MistakeStaleStatus, lab.MistakeStaleStatus.Advise()},
			{"behind", ts(1, 2, "team-alpha"), false, lab.MistakeStaleStatus, lab.MistakeStaleStatus.Advise()},
			{"alpha gone", nil, false, lab.Mistake{}, ""},
		} {
			v := statusVerdict(c.alpha)
			if v.OK != c.ok || v.Mistake != c.mistake || !strings.Contains(v.Advice, c.advice) {
				t.Errorf("%s, %s: got ok=%t mistake=%q advice=%q, want ok=%t mistake=%q advice containing %q",
					lang, c.name, v.OK, v.Mistake.Name, v.Advice, c.ok, c.mistake.Name, c.advice)
			}
			if c.alpha != nil && !strings.Contains(v.Got, `"`+c.alpha.Status.Namespace+`"`) {
				t.Errorf("%s, %s: found %q does not show status.namespace", lang, c.name, v.Got)
			}
		}
	}
	i18n.Set(i18n.English)
}

// A rerun that wrote nothing says which TeamSpaces it converged and
// which are behind still, never that one converged that did not.
func TestNoWrites(t *testing.T) {
	snap := func(pending ...string) *check.Snapshot {
		s := &check.Snapshot{RV: map[string]string{"teamspace/alpha": "1"}, Pending: map[string]string{}}
		for _, p := range pending {
			s.Pending[p] = "status"
		}
		return s
	}
	got := noWrites([]*check.Snapshot{snap("alpha", "beta"), snap("alpha"), snap("alpha")})
	if !strings.Contains(got, "converged [beta]") || !strings.Contains(got, "[alpha] still behind") {
		t.Errorf("got %q, want beta converged and alpha still behind", got)
	}
	if got := noWrites([]*check.Snapshot{snap(), snap(), snap()}); strings.Contains(got, "converged") || strings.Contains(got, "behind") {
		t.Errorf("nothing behind: got %q", got)
	}
}

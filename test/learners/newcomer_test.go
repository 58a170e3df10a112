package learners

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/judge"
	labdata "github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/ui"
)

// The rows of the newcomer's review (../shared/reviews/2026-12-04-newcomer.md)
// that only a running controller shows, reproduced on one control plane as
// the learner met them, then passing (issue 39): row 11 (a `set -e`
// script that calls its reconcile under `||`, so a refused write goes on
// and the note must say so whole), row 15 (step 3 after reconcile.sh
// changed runs the new script) and row 6 (a refused write of the own
// identity explained whole, with its fix, in the terminal and in the JSON).

// underOr is the corpus's valid-set-e-ssa rewritten as row 11's learner
// did, following the idiom of check's note: the loop's body becomes
// reconcile, called as `reconcile "$name" || echo … >&2`. `set -e` does not
// apply inside a function called under `||`, so a refused write no longer
// ends the pass.
func underOr(t *testing.T) []byte {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("cases", "valid-set-e-ssa", "reconcile.sh"))
	if err != nil {
		t.Fatal(err)
	}
	const loop = "for name in $(kubectl get teamspaces -o jsonpath='{.items[*].metadata.name}'); do\n"
	s := string(src)
	if !strings.Contains(s, loop) || !strings.HasSuffix(s, "\ndone\n") || strings.Count(s, "    continue\n") != 1 {
		t.Fatalf("valid-set-e-ssa's reconcile.sh changed: rewrite underOr for it")
	}
	s = strings.Replace(s, loop, "reconcile() {\n  local name=$1 ts uid has_fin i gen\n", 1)
	s = strings.Replace(s, "    continue\n", "    return 0\n", 1)
	s = strings.TrimSuffix(s, "done\n") + "}\n\n" + loop +
		"  reconcile \"$name\" || echo \"$name: not converged\" >&2\ndone\n"
	return []byte(s)
}

// TestNewcomerRows reproduces rows 11, 15 and 6 of the newcomer's review.
func TestNewcomerRows(t *testing.T) {
	t.Parallel()
	l := newLab(t)
	if err := os.MkdirAll(l.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(l.Dir, "reconcile.sh")
	if err := os.WriteFile(script, underOr(t), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.StopService() })
	// The identity the review's learner had: the least-privilege one,
	// whose admission policy refuses taking over a namespace.
	if r := l.Cnpa("step", "all", "--engine", "own", "--service-identity", "own", "--service-manager", "process",
		"--unit-dir", l.UnitDir, "--timeout", stepTimeout, "--quiet"); r.Code != 0 {
		t.Fatalf("cnpa step all with row 11's script: exit %d, want 0\n%s\nservice log:\n%s", r.Code, r, l.ServiceLog(30))
	}
	l.nothingOfCnpasLeft(labdata.ProbePrefix, labdata.TempPrefix)

	t.Run("row 11: the refused takeover's note is whole and names the fix", func(t *testing.T) {
		var rep judge.Report
		r := l.Check(&rep, "--step", "3", "--timeout", checkTimeout, "--service-manager", "process", "--unit-dir", l.UnitDir)
		c := findCheck(&rep, "step3.foreign_namespace_left_alone")
		if c == nil {
			t.Fatalf("no step3.foreign_namespace_left_alone in cnpa check --step 3\n%s", r)
		}
		t.Logf("%s: %s; note: %s", c.ID, c.Status, c.Note)
		for _, want := range []string{"refused", "Skip a team-<name> you do not own", "a controller adopts nothing it did not make"} {
			if !strings.Contains(c.Note, want) {
				t.Errorf("the note does not say %q (whole, in check.json):\n%s", want, c.Note)
			}
		}
		if strings.Contains(c.Note, "…") {
			t.Errorf("the note is cut off:\n%s", c.Note)
		}
		// The terminal's rendering of the same report (cnpa check's text
		// output), in 80 columns: whole, only wrapped.
		if text := terminal(&rep); !strings.Contains(text, "a controller adopts nothing it did not make") {
			t.Errorf("the terminal's note is not whole:\n%s", text)
		}
	})

	t.Run("row 15: step 3 runs a changed reconcile.sh", func(t *testing.T) {
		src, err := os.ReadFile(script)
		if err != nil {
			t.Fatal(err)
		}
		changed := append(src, []byte("# row 15: changed after the lab was done\n")...)
		if err := os.WriteFile(script, changed, 0o755); err != nil {
			t.Fatal(err)
		}
		r := l.Cnpa("step", "3", "--engine", "own", "--service-identity", "own", "--service-manager", "process",
			"--unit-dir", l.UnitDir, "--timeout", stepTimeout)
		if r.Code != 0 {
			t.Fatalf("cnpa step 3 after reconcile.sh changed: exit %d, want 0\n%s", r.Code, r)
		}
		out := strings.Join(strings.Fields(r.Stdout), " ")
		for _, want := range []string{"changed since step 3 ran it: running the new script twice and judging it",
			"reconcile.json is kept as it is, since drift.json of a later step compares with it"} {
			if !strings.Contains(out, want) {
				t.Errorf("step 3 does not say %q:\n%s", want, r.Stdout)
			}
		}
		if strings.Contains(out, "kept as it is (start over") {
			t.Errorf("step 3 kept the evidence without running the new script (row 15):\n%s", r.Stdout)
		}
	})

	t.Run("row 6: a refused write explained whole, with its fix", func(t *testing.T) {
		// The learner's idempotency mistake: a timestamp annotation on
		// the namespace, written every pass (the own identity's policy
		// refuses annotations on team-<name>).
		src, err := os.ReadFile(script)
		if err != nil {
			t.Fatal(err)
		}
		const quotaDone = "YAML\n\n  gen=$(jq .metadata.generation <<<\"$ts\")\n"
		if !strings.Contains(string(src), quotaDone) {
			t.Fatalf("the script changed: rewrite row 6's mistake for it")
		}
		mistake := strings.Replace(string(src), quotaDone, "YAML\n  kubectl annotate namespace \"team-$name\" reconciled-at=\"$(date +%s%N)\" --overwrite\n\n"+
			"  gen=$(jq .metadata.generation <<<\"$ts\")\n", 1)
		if err := os.WriteFile(script, []byte(mistake), 0o755); err != nil {
			t.Fatal(err)
		}
		var rep judge.Report
		r := l.Check(&rep, "--step", "3", "--timeout", checkTimeout, "--service-manager", "process", "--unit-dir", l.UnitDir)
		var refused string
		for _, c := range rep.Checks {
			for _, s := range []string{c.Actual, c.Hint, c.Note} {
				if strings.Contains(s, "refused by the admission policy") {
					refused = s
				}
			}
		}
		if refused == "" {
			t.Fatalf("cnpa check --step 3 -o json explains no refused write:\n%s", r)
		}
		t.Logf("explained: %s", refused)
		for _, want := range []string{"annotations", "Fix: write only what", "no timestamp", "--service-identity admin"} {
			if !strings.Contains(refused, want) {
				t.Errorf("the refusal does not say %q (whole, in check.json):\n%s", want, refused)
			}
		}
		if text := terminal(&rep); !strings.Contains(text, "--service-identity admin`") {
			t.Errorf("the terminal's refusal is not whole:\n%s", text)
		}
	})
}

// terminal is rep as `cnpa check` prints it, its lines joined again with
// single spaces (the text is wrapped, never cut).
func terminal(rep *judge.Report) string {
	var b bytes.Buffer
	judge.WriteText(ui.New(&b, true), rep)
	return strings.Join(strings.Fields(b.String()), " ")
}

package grader

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/course/step4"
	"github.com/labhub/cnpa/internal/course/step5"
	"github.com/labhub/cnpa/internal/judge"
	labdata "github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/ssaconflict"
)

// withoutForce is the corpus's learner script of that case
// (../learners/cases/<name>/reconcile.sh) with its apply's
// --force-conflicts left out: the learner's own file, as they would
// first write it.
func withoutForce(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "learners", "cases", name, "reconcile.sh"))
	if err != nil {
		t.Fatal(err)
	}
	script := strings.ReplaceAll(string(data), " --force-conflicts", "")
	if script == string(data) {
		t.Fatalf("the corpus's %s script has no --force-conflicts to leave out", name)
	}
	return []byte(script)
}

// namesTheConflict holds what a step or check says of a refused apply to
// the words of issue 50: the manager that owns the field, the field, and
// the fix by name (--force-conflicts, client-go's Force: true).
func namesTheConflict(t *testing.T, what, said string, manager string) {
	t.Helper()
	for _, want := range []string{`"` + manager + `"`, ".spec.hard.pods", "--force-conflicts", "Force: true"} {
		if !strings.Contains(said, want) {
			t.Errorf("%s does not say %q:\n%s", what, want, said)
		}
	}
}

// TestStep5TimeoutShowsTheConflict is the newcomer review's row 5 and
// issue 50's refused apply on a real control plane: a learner's
// server-side-apply script without --force-conflicts runs as the service.
// Step 5's hand edit of the quota (kubectl patch, another field manager)
// then makes every later apply fail with a conflict, so the revert never
// comes; the timed-out wait must show that cause from the service's
// output, naming the manager and --force-conflicts before the output
// itself, not only ask whether the controller runs (it does). Then, with
// the same hand edit in place:
//   - cnpa check's drift probe, whose own edit (manager cnpa-check) the
//     script cannot take back, and step5.quota_in_sync say the same;
//   - the script rewritten in `set -euo pipefail` style, whose pass ends
//     at alpha's refused apply: step 4's new TeamSpace is never served,
//     and step 4 and check's step4.new_teamspace_converges say why instead
//     of only "does not converge".
func TestStep5TimeoutShowsTheConflict(t *testing.T) {
	start := time.Now()
	l := newLabCLI(t)
	if code, out, errOut := l.reset(); code != 0 {
		t.Fatalf("reset before the lab: exit %d\n%s%s", code, out, errOut)
	}
	if err := os.MkdirAll(l.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(l.dir, "reconcile.sh")
	if err := os.WriteFile(script, withoutForce(t, "valid-server-side-apply"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"1", "2", "3", "4"} {
		l.must("step", n, "--engine", "own", "--service-manager", "process", "--unit-dir", l.unitDir)
	}
	// The revert never comes: any timeout past a pass or two (3 s apart)
	// shows the refusals in the log.
	code, out, errOut := l.run("step", "5", "--timeout", "10s")
	if code != 1 {
		t.Fatalf("step 5 with a script whose apply conflicts: exit %d, want 1\n%s%s", code, out, errOut)
	}
	for _, want := range []string{"gave up waiting", "the controller's last output", "conflict"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("step 5's timeout lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "is the controller running") {
		t.Errorf("step 5's timeout asks whether the controller runs, while it does:\n%s", errOut)
	}
	namesTheConflict(t, "step 5's diagnosis", beforeOutput(errOut), "kubectl-patch")

	t.Run("check's drift probe and alpha's quota", func(t *testing.T) {
		code, rep := l.check("--step", "5", "--timeout", "10s")
		if code != 1 {
			t.Fatalf("cnpa check --step 5: exit %d, want 1", code)
		}
		for id, manager := range map[string]string{step5.ProbeDrift.ID: "cnpa-check", "step5.quota_in_sync": "kubectl-patch"} {
			c := findCheck(rep, id)
			if c == nil || c.Status != judge.Fail {
				t.Errorf("%s: %+v, want a failure", id, c)
				continue
			}
			t.Logf("%s: found %s; hint %s", id, c.Actual, c.Hint)
			namesTheConflict(t, id+"'s found and hint", c.Actual+"\n"+c.Hint, manager)
			if c.Diagnosis != labdata.MistakeApplyConflict {
				t.Errorf("%s diagnosis %q, want %q", id, c.Diagnosis.Name, labdata.MistakeApplyConflict.Name)
			}
		}
	})

	t.Run("a pass that ends at the refusal: step 4", func(t *testing.T) {
		if err := os.WriteFile(script, withoutForce(t, "valid-set-e-ssa"), 0o755); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := l.run("step", "4", "--engine", "own", "--service-manager", "process", "--unit-dir", l.unitDir, "--timeout", "10s")
		if code != 1 {
			t.Fatalf("step 4 with a pass that ends at alpha's refused apply: exit %d, want 1\n%s%s", code, out, errOut)
		}
		namesTheConflict(t, "step 4's diagnosis", beforeOutput(errOut), "kubectl-patch")
		// Step 3 runs the script itself: its failed pass's own output
		// shows the refusal, said before that output.
		code, out, errOut = l.run("step", "3", "--engine", "own", "--service-manager", "process", "--unit-dir", l.unitDir)
		diag, _, found := strings.Cut(errOut, ssaconflict.Fix)
		if code != 1 || !found {
			t.Fatalf("step 3 with the script refused at alpha: exit %d, want 1 and the fix %q\n%s%s", code, ssaconflict.Fix, out, errOut)
		}
		namesTheConflict(t, "step 3's diagnosis", diag, "kubectl-patch")
		// cnpa check, every step: step 4's new TeamSpace waits behind
		// alpha, whose pass ends at the refusal that step 5's hand edit
		// causes. That is step 5's mistake (issue 57: a consequence is
		// reported at the step whose mistake it is): step 4's probe is
		// not judged, and says why; step 5's quota check and drift probe
		// fail for it, naming the conflict.
		code, rep := l.check("--timeout", "10s")
		if code != 1 {
			t.Fatalf("cnpa check: exit %d, want 1", code)
		}
		c := findCheck(rep, step4.ProbeConverges.ID)
		if c == nil || c.Status != judge.Skip || !strings.Contains(c.Actual, "step 5") {
			t.Errorf("%s: %+v, want it not checked, for step 5", step4.ProbeConverges.ID, c)
		} else {
			t.Logf("%s: %s", c.ID, c.Actual)
		}
		for _, id := range []string{"step5.quota_in_sync", step5.ProbeDrift.ID} {
			c := findCheck(rep, id)
			if c == nil || c.Status != judge.Fail {
				t.Errorf("%s: %+v, want a failure", id, c)
				continue
			}
			t.Logf("%s: found %s; hint %s", id, c.Actual, c.Hint)
			namesTheConflict(t, id+"'s found and hint", c.Actual+"\n"+c.Hint, "kubectl-patch")
			if c.Diagnosis != labdata.MistakeApplyConflict {
				t.Errorf("%s diagnosis %q, want %q", id, c.Diagnosis.Name, labdata.MistakeApplyConflict.Name)
			}
			// The drift probe's refusal of the earlier check is still in
			// the log, but its quota is gone: it says nothing here.
			if strings.Contains(c.Actual, `"cnpa-check" owns`) {
				t.Errorf("%s names the refusal of a quota that is gone: %s", id, c.Actual)
			}
		}
		for _, c := range rep.Checks {
			if c.Status == judge.Fail && c.Step < 5 {
				t.Errorf("%s (step %d) fails for step 5's mistake: %s; hint %s", c.ID, c.Step, c.Actual, c.Hint)
			}
		}
	})
	t.Logf("the whole test: %s", time.Since(start).Round(time.Millisecond))
}

// beforeOutput is a step's error up to the controller's last output: its
// diagnosis, without kubectl's own words (which name --force-conflicts
// whatever cnpa says).
func beforeOutput(errOut string) string {
	diag, _, _ := strings.Cut(errOut, "the controller's last output")
	return diag
}

// findCheck is the check with that id in rep, or nil.
func findCheck(rep *judge.Report, id string) *judge.Check {
	for i := range rep.Checks {
		if rep.Checks[i].ID == id {
			return &rep.Checks[i]
		}
	}
	return nil
}

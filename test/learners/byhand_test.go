package learners

import (
	"os"
	"path/filepath"
	"testing"
)

// TestByHand does the whole lab as LAB.md tells a learner to, with kubectl
// and jq (byhand/lab.sh) and one of the corpus's valid controllers, with no
// `cnpa step` at all; then `cnpa check` must pass everything. The one by
// default is written with `set -euo pipefail`, as most bash is: its pass
// ends at the first failed command, and check's probes must not make it
// fail for that. The loop runs
// as LAB.md's unit would, as a process of its own (there is no systemd
// here). CNPA_BYHAND_ALL=1 does it once with each valid controller of
// the corpus, not only the first.
func TestByHand(t *testing.T) {
	t.Parallel()
	controllers := []string{"valid-set-e-ssa"}
	if os.Getenv("CNPA_BYHAND_ALL") == "1" {
		controllers = append(controllers, "valid-create-patch", "valid-server-side-apply", "valid-jsonpatch-finalizer",
			"valid-set-e-apply", "valid-python", "foreign-namespace-adopted")
	}
	for _, name := range controllers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			byHand(t, filepath.Join("cases", name, "reconcile.sh"))
		})
	}
}

func byHand(t *testing.T, controller string) {
	l := newLab(t)
	script, err := filepath.Abs("byhand/lab.sh")
	if err != nil {
		t.Fatal(err)
	}
	reconcile, err := filepath.Abs(controller)
	if err != nil {
		t.Fatal(err)
	}
	// The loop outlives lab.sh; stop it before the cluster goes.
	t.Cleanup(func() { killGroup(t, filepath.Join(l.Dir, "cnpa-op.pid")) })
	env := append(l.Env, "DIR="+l.Dir, "UNIT_DIR="+l.UnitDir, "RECONCILE="+reconcile, "REGISTER=1")
	r := l.Run(env, "bash", script)
	if r.Code != 0 {
		t.Fatalf("the lab by hand failed\n%s\nloop log:\n%s", r, l.ServiceLog(30))
	}
	chk, rep := l.check()
	if chk.Code != 0 || !rep.OK() {
		t.Errorf("cnpa check after the lab by hand: exit %d, failed %v, want exit 0 and none failed", chk.Code, failedSummary(rep))
		for _, c := range failedChecks(rep) {
			t.Logf("%s: %s (expected %s) → %s", c.ID, c.Actual, c.Expected, c.Hint)
		}
	}
}

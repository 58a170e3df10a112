package grader

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStep5TimeoutShowsTheConflict is the newcomer review's row 5 on a real
// control plane: a learner's server-side-apply script without
// --force-conflicts runs as the service. Step 5's hand edit of the quota
// (kubectl patch, another field manager) then makes every later apply fail
// with a conflict, so the revert never comes; the timed-out wait must show
// that cause from the service's output, not only ask whether the
// controller runs (it does).
func TestStep5TimeoutShowsTheConflict(t *testing.T) {
	l := newLabCLI(t)
	if code, out, errOut := l.reset(); code != 0 {
		t.Fatalf("reset before the lab: exit %d\n%s%s", code, out, errOut)
	}
	data, err := os.ReadFile("../learners/cases/valid-server-side-apply/reconcile.sh")
	if err != nil {
		t.Fatal(err)
	}
	script := strings.ReplaceAll(string(data), " --force-conflicts", "")
	if script == string(data) {
		t.Fatal("the corpus's server-side-apply script has no --force-conflicts to leave out")
	}
	if err := os.MkdirAll(l.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(l.dir, "reconcile.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"1", "2", "3", "4"} {
		l.must("step", n, "--engine", "own", "--service-manager", "process", "--unit-dir", l.unitDir)
	}
	code, out, errOut := l.run("step", "5", "--timeout", "30s")
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
}

package labenv

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The mark a running step leaves: seen while its process lives, gone when
// it is removed, and a killed runner's mark (its process gone) counts as
// none. A dir that does not exist yet is left alone.
func TestStepRunning(t *testing.T) {
	dir := t.TempDir()
	if _, ok := StepRunning(dir); ok {
		t.Fatal("a fresh dir: a step runs")
	}
	if err := MarkRunning(dir, 7); err != nil {
		t.Fatal(err)
	}
	if r, ok := StepRunning(dir); !ok || r.Step != 7 || r.PID != os.Getpid() {
		t.Errorf("marked step 7: %+v %v", r, ok)
	}
	UnmarkRunning(dir)
	if _, ok := StepRunning(dir); ok {
		t.Error("unmarked: a step runs")
	}
	// A runner killed with its mark left: a process that has ended.
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(Running{Step: 5, PID: cmd.Process.Pid})
	if err := os.WriteFile(RunningPath(dir), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if r, ok := StepRunning(dir); ok {
		t.Errorf("a gone runner's mark: %+v counts as running", r)
	}
	UnmarkRunning(dir) // not ours: left as it is
	if _, err := os.Stat(RunningPath(dir)); err != nil {
		t.Errorf("another's mark removed: %v", err)
	}
	missing := filepath.Join(dir, "not-yet")
	if err := MarkRunning(missing, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(missing); err == nil {
		t.Error("MarkRunning made the evidence dir")
	}
}

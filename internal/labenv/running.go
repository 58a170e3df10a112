package labenv

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/labhub/cnpa/internal/atomicfile"
	"github.com/labhub/cnpa/internal/lab"
)

// RunningFile says, under <dir>/.cnpa, that a `cnpa step` is running on
// the lab in dir and which step: while it is there, nothing else may act
// on the lab (cnpa watch does not judge: a probe run beside step 7, which
// has the service stopped, would act as the controller it measures). The
// step runner writes it before each step and removes it when it ends,
// Ctrl-C included; one left by a runner that was killed names a process
// that is gone, and counts as none.
const RunningFile = "step-running.json"

// Running is RunningFile's content.
type Running struct {
	Step  int       `json:"step"`
	PID   int       `json:"pid"`
	Since time.Time `json:"since"`
}

// RunningPath is RunningFile's path for the lab in dir.
func RunningPath(dir string) string { return filepath.Join(dir, lab.OwnDir, RunningFile) }

// MarkRunning says that this process runs step n on the lab in dir. A dir
// that does not exist yet (step 1 makes it) is left alone: nobody can be
// watching it.
func MarkRunning(dir string, n int) error {
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Join(dir, lab.OwnDir), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteJSON(RunningPath(dir), Running{Step: n, PID: os.Getpid(), Since: time.Now().UTC()})
}

// UnmarkRunning removes the mark, when it is this process's.
func UnmarkRunning(dir string) {
	if r, ok := StepRunning(dir); ok && r.PID == os.Getpid() {
		_ = os.Remove(RunningPath(dir))
	}
}

// StepRunning is the step a `cnpa step` runs on the lab in dir now: false
// when none does (no mark, a damaged one, or one whose process is gone).
func StepRunning(dir string) (Running, bool) {
	var r Running
	if found, err := atomicfile.ReadJSON(RunningPath(dir), &r); !found || err != nil || r.PID <= 0 {
		return Running{}, false
	}
	if err := syscall.Kill(r.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return Running{}, false // the runner was killed: its mark is stale
	}
	return r, true
}

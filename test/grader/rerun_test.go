package grader

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/test/kit"
)

// TestRerunAfterFailureOrInterrupt is a learner's first hour off the happy
// path, on one real control plane: steps 5, 6 and 7 each interrupted (SIGINT,
// Ctrl-C) at their waits and run again, and step 5 timed out after its
// delete with the controller frozen on purpose, then run again with it
// back. Every rerun passes, every interrupt says "interrupted" and what it
// put back, and `cnpa check` passes at the end. Before, a step 5 that had
// deleted the quota could never pass again (its baseline was gone), and an
// interrupted step 7 could only be undone by `cnpa reset`.
func TestRerunAfterFailureOrInterrupt(t *testing.T) {
	l := newLabCLI(t)
	if code, out, errOut := l.reset(); code != 0 {
		t.Fatalf("reset before the lab: exit %d\n%s%s", code, out, errOut)
	}
	for _, n := range []string{"1", "2", "3", "4"} {
		l.must("step", n, "--engine", "go", "--service-manager", "process", "--unit-dir", l.unitDir)
	}

	t.Run("step5/interrupted", func(t *testing.T) {
		thaw := l.freezeController(t)
		r := l.start("step", "5", "--timeout", "3m")
		l.waitStderr(t, r, "team-quota with a new uid")
		code := r.interrupt(t, syscall.SIGINT, time.Minute)
		thaw()
		if errOut := r.errOut.String(); code != 1 || !strings.Contains(errOut, "step 5 interrupted while waiting for team-quota with a new uid") {
			t.Errorf("step 5 after SIGINT: exit %d, stderr:\n%s\nwant exit 1 and \"step 5 interrupted while waiting for …\"", code, errOut)
		}
		// The controller restores the quota under a new uid meanwhile; the
		// rerun takes it as its baseline and passes.
		out := l.must("step", "5")
		if !strings.Contains(out, "is the baseline now") {
			t.Errorf("step 5 rerun does not say it took a fresh baseline:\n%s", out)
		}
	})

	t.Run("step5/timed-out", func(t *testing.T) {
		thaw := l.freezeController(t)
		code, out, errOut := l.run("step", "5", "--timeout", "3s")
		thaw()
		if code != 1 || !strings.Contains(errOut, "gave up waiting for team-quota with a new uid after 3s") {
			t.Fatalf("step 5 with the controller frozen: exit %d, want 1 and a timeout naming what it waited for\n%s%s", code, out, errOut)
		}
		// The frozen controller still counts as running: the timeout shows
		// its last output, not "is it running?".
		if !strings.Contains(errOut, "the controller's last output") {
			t.Errorf("step 5's timeout shows no controller output:\n%s", errOut)
		}
		// The hint it follows: run the step again with the controller back.
		l.must("step", "5")
	})

	t.Run("step6/interrupted", func(t *testing.T) {
		r := l.start("step", "6")
		l.waitStderr(t, r, "team-beta to be garbage-collected")
		code := r.interrupt(t, syscall.SIGINT, time.Minute)
		if errOut := r.errOut.String(); code != 1 || !strings.Contains(errOut, "step 6 interrupted while waiting for team-beta to be garbage-collected") ||
			strings.Contains(errOut, "gave up") {
			t.Errorf("step 6 after SIGINT: exit %d, stderr:\n%s\nwant exit 1 and \"interrupted\", never \"gave up\"", code, errOut)
		}
		l.must("step", "6")
	})

	// What an earlier step 6 cut short leaves: beta before its delete, or
	// beta deleted and not gone yet (here held by another controller's
	// finalizer). The rerun goes on with the first and waits for the
	// second; before, it refused both with "wait for it to go", which the
	// first never does.
	t.Run("step6/beta-left-before-its-delete", func(t *testing.T) {
		l.For(t).Create("beta", 2, "500m")
		out := l.must("step", "6")
		if !strings.Contains(out, "as an earlier step 6 left it before its delete: this run goes on with it") {
			t.Errorf("step 6 over a beta left before its delete does not say it goes on with it:\n%s", out)
		}
	})

	t.Run("step6/beta-deleted-not-gone", func(t *testing.T) {
		e := l.For(t)
		e.Create("beta", 2, "500m", check.ForeignFinalizer)
		e.WaitFor("the controller's finalizer on beta", time.Minute, func() error {
			b, err := e.GetTeamSpace("beta")
			if err != nil || !teamspace.HasFinalizer(b.Finalizers, teamspace.Finalizer) {
				return fmt.Errorf("beta: %v, %v", b, err)
			}
			return nil
		})
		e.Delete("beta")
		r := l.start("step", "6")
		l.waitStderr(t, r, "the beta of an earlier step 6 and its team-beta to be gone")
		// The other controller lets it go.
		l.Kubectl(nil, "patch", "teamspace", "beta", "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)
		select {
		case <-r.done:
		case <-time.After(5 * time.Minute):
			t.Fatalf("step 6 still runs 5m after the earlier beta could go\nstdout:\n%s\nstderr:\n%s", r.out, r.errOut)
		}
		if code := r.cmd.ProcessState.ExitCode(); code != 0 || !strings.Contains(r.out.String(), "an earlier step 6 deleted beta and was cut short") {
			t.Errorf("step 6 over a deleted beta: exit %d, want 0 and a note that it waited\nstdout:\n%s\nstderr:\n%s", code, r.out, r.errOut)
		}
	})

	t.Run("step7/interrupted", func(t *testing.T) {
		r := l.start("step", "7", "--catchup-wait", "3m")
		l.waitStderr(t, r, "with the controller stopped")
		code := r.interrupt(t, syscall.SIGINT, time.Minute)
		errOut := r.errOut.String()
		for _, want := range []string{"step 7 interrupted", "goes on from there", "cnpa-op.service started again"} {
			if code != 1 || !strings.Contains(errOut, want) {
				t.Errorf("step 7 after SIGINT: exit %d, stderr lacks %q:\n%s", code, want, errOut)
			}
		}
		if code, out, errOut := l.run("service", "status"); code != 0 {
			t.Errorf("the service after an interrupted step 7: exit %d, want running\n%s%s", code, out, errOut)
		}
		out := l.must("step", "7")
		if !strings.Contains(out, "resumed") {
			t.Errorf("step 7 rerun did not resume from the saved reading:\n%s", out)
		}
	})

	l.must("step", "8")
	l.mustPass()

	// A reset in another evidence dir with the same unit dir deletes the
	// identity and the CRD this lab's service runs on: it stops that
	// service too and says so, instead of leaving it to fail on every pass.
	t.Run("reset-beside-another-dir", func(t *testing.T) {
		other := filepath.Join(t.TempDir(), "other-lab")
		if err := os.MkdirAll(other, 0o755); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := l.run("--dir", other, "reset", "--yes", "--service-manager", "process", "--unit-dir", l.unitDir)
		// Reset's lines are wrapped at 80 columns: the dir may stand on a line of its own.
		if code != 0 || !strings.Contains(kit.Unwrapped(out), "stopped and removed cnpa-op.service of the evidence dir "+l.dir) {
			t.Errorf("reset in %s: exit %d, want 0 and a line naming the other lab's service it stopped\n%s%s", other, code, out, errOut)
		}
		if code, out, _ := l.run("service", "status"); code == 0 {
			t.Errorf("the other lab's service still runs after the reset:\n%s", out)
		}
	})
}

// freezeController stops the process-mode controller with SIGSTOP: it still
// runs as far as the service manager can tell, and acts on nothing until
// the returned thaw sends SIGCONT (also at the test's end).
func (l *labCLI) freezeController(t *testing.T) (thaw func()) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(l.dir, "cnpa-op.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 1 {
		t.Fatalf("cnpa-op.pid holds %q", data)
	}
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	thawed := false
	thaw = func() {
		if !thawed {
			thawed = true
			if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
				t.Error(err)
			}
		}
	}
	t.Cleanup(thaw)
	return thaw
}

// waitStderr waits until the running command has written want to stderr.
func (l *labCLI) waitStderr(t *testing.T, r *running, want string) {
	t.Helper()
	l.For(t).WaitFor(fmt.Sprintf("%q on stderr", want), 3*time.Minute, func() error {
		select {
		case <-r.done:
			return fmt.Errorf("cnpa exited before it said %q\nstdout:\n%s\nstderr:\n%s", want, r.out, r.errOut)
		default:
		}
		if !strings.Contains(r.errOut.String(), want) {
			return fmt.Errorf("not yet; stderr:\n%s", r.errOut)
		}
		return nil
	})
}

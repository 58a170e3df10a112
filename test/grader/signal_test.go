package grader

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

// lockedBuffer is a bytes.Buffer a running command writes while the test
// reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// running is one cnpa command started in the background.
type running struct {
	cmd         *exec.Cmd
	out, errOut *lockedBuffer
	done        chan struct{}
}

// start starts cnpa with the lab's flags, as run does, without waiting.
func (l *labCLI) start(args ...string) *running {
	l.t.Helper()
	r := &running{out: &lockedBuffer{}, errOut: &lockedBuffer{}, done: make(chan struct{})}
	r.cmd = exec.Command(l.bin, append([]string{"--kubeconfig", l.cluster.Kubeconfig, "--dir", l.dir, "--no-color"}, args...)...)
	r.cmd.Env = l.cluster.Env()
	r.cmd.Stdout, r.cmd.Stderr = r.out, r.errOut
	if err := r.cmd.Start(); err != nil {
		l.t.Fatal(err)
	}
	go func() { r.cmd.Wait(); close(r.done) }()
	l.t.Cleanup(func() {
		select {
		case <-r.done:
		default:
			r.cmd.Process.Kill()
			<-r.done
		}
	})
	return r
}

// interrupt sends sig and waits for the command to exit; it returns the
// exit code, -1 when a signal killed it.
func (r *running) interrupt(t *testing.T, sig syscall.Signal, within time.Duration) int {
	t.Helper()
	if err := r.cmd.Process.Signal(sig); err != nil {
		t.Fatalf("send %v: %v", sig, err)
	}
	select {
	case <-r.done:
	case <-time.After(within):
		t.Fatalf("cnpa still running %s after %v\nstdout:\n%s\nstderr:\n%s", within, sig, r.out, r.errOut)
	}
	return r.cmd.ProcessState.ExitCode()
}

// testSignals interrupts a real `cnpa step 7` during its wait with the
// service stopped, and a real `cnpa check` while its probe TeamSpace holds
// a foreign finalizer, with SIGHUP (what a closed SSH session sends) and
// SIGINT (Ctrl-C). Each must undo what it started: the service runs again,
// no cnpa-check-* TeamSpace is left, and reset works afterwards. Before the
// signal context in cmd/cnpa/main.go covered SIGHUP, the step left the
// service stopped and check left a TeamSpace held by example.com/keep.
func testSignals(t *testing.T, l *labCLI) {
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT} {
		t.Run("step7/"+sig.String(), func(t *testing.T) { interruptStep7(t, l, sig) })
	}
	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGINT} {
		t.Run("check/"+sig.String(), func(t *testing.T) { interruptCheck(t, l, sig) })
	}
	if code, out, errOut := l.reset(); code != 0 {
		t.Fatalf("reset after the interruptions: exit %d\n%s%s", code, out, errOut)
	}
}

// interruptStep7 puts the lab back to before step 7 (alpha at pods 6 and
// in sync, no catchup.json nor report.json), runs step 7 with a long
// catch-up wait and interrupts it during that wait.
func interruptStep7(t *testing.T, l *labCLI, sig syscall.Signal) {
	saved := map[string][]byte{}
	for _, f := range []string{lab.CatchupFile, lab.ReportFile} {
		p := filepath.Join(l.dir, f)
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		saved[p] = data
		if err := os.Remove(p); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		for p, data := range saved {
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Error(err)
			}
		}
	})
	e := l.For(t)
	e.PatchSpec("alpha", map[string]any{"pods": 6})
	e.WaitFor("alpha back at pods 6 and in sync", time.Minute, func() error {
		ts, err := e.GetTeamSpace("alpha")
		if err != nil {
			return err
		}
		if ts.Spec.Pods != 6 || ts.Status.ObservedGeneration != ts.Generation {
			return fmt.Errorf("alpha pods %d generation %d observed %d", ts.Spec.Pods, ts.Generation, ts.Status.ObservedGeneration)
		}
		return nil
	})

	r := l.start("step", "7", "--catchup-wait", "3m")
	e.WaitFor("step 7 waits with the service stopped", 2*time.Minute, func() error {
		if !strings.Contains(r.errOut.String(), "with the controller stopped") {
			return fmt.Errorf("step 7 is not waiting yet; stderr:\n%s", r.errOut)
		}
		if code, out, _ := l.run("service", "status"); code == 0 {
			return fmt.Errorf("the service still runs:\n%s", out)
		}
		return nil
	})
	sent := time.Now()
	code := r.interrupt(t, sig, 2*time.Minute)
	t.Logf("step 7 exited %d, %s after %v", code, time.Since(sent).Round(time.Millisecond), sig)
	if code != 1 {
		t.Errorf("step 7 after %v: got exit %d, want 1 (interrupted, not killed by the signal)\nstderr:\n%s", sig, code, r.errOut)
	}
	if code, out, errOut := l.run("service", "status"); code != 0 {
		t.Errorf("service after step 7 got %v: `cnpa service status` exit %d, want 0 (running again)\n%s%s", sig, code, out, errOut)
	}
	// The service catches alpha up on the spec change step 7 made.
	e.WaitFor("alpha converged by the restarted service", time.Minute, e.Converged("alpha", 8, "1", true))
}

// interruptCheck runs `cnpa check` and interrupts it once its finalizer
// probe holds a temporary TeamSpace with a foreign finalizer.
func interruptCheck(t *testing.T, l *labCLI, sig syscall.Signal) {
	e := l.For(t)
	// Only a probe of this run counts: one left by an earlier run (when
	// this test fails) would be signalled before check even got going.
	earlier := map[string]bool{}
	before, err := e.Dyn.Resource(teamspace.GVR).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range before.Items {
		earlier[u.GetName()] = true
	}
	r := l.start("check")
	var held string
	e.WaitFor("check's probe holds a TeamSpace with "+check.ForeignFinalizer, 3*time.Minute, func() error {
		select {
		case <-r.done:
			return errors.New("check exited before its probe: " + r.out.String() + r.errOut.String())
		default:
		}
		list, err := e.Dyn.Resource(teamspace.GVR).List(context.Background(), metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, u := range list.Items {
			if strings.HasPrefix(u.GetName(), check.TempPrefix) && !earlier[u.GetName()] &&
				teamspace.HasFinalizer(u.GetFinalizers(), check.ForeignFinalizer) {
				held = u.GetName()
				return nil
			}
		}
		return fmt.Errorf("no %s* TeamSpace holds %s yet", check.TempPrefix, check.ForeignFinalizer)
	})
	sent := time.Now()
	code := r.interrupt(t, sig, 3*time.Minute)
	t.Logf("check exited %d, %s after %v (probe %s)", code, time.Since(sent).Round(time.Millisecond), sig, held)
	if code < 0 {
		t.Errorf("check after %v: killed by the signal, want it to clean up and exit", sig)
	}
	list, err := e.Dyn.Resource(teamspace.GVR).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range list.Items {
		if strings.HasPrefix(u.GetName(), check.TempPrefix) && !earlier[u.GetName()] {
			t.Errorf("after %v: temporary TeamSpace %s left (finalizers %v, deleting %v)", sig, u.GetName(), u.GetFinalizers(), u.GetDeletionTimestamp() != nil)
		}
	}
	assertNoTemporaries(t, l)
}

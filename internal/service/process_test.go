package service

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// sleepUnit is a unit whose command is a long sleep.
func sleepUnit(t *testing.T, dir string) Unit {
	t.Helper()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Fatal(err)
	}
	return Unit{Engine: "go", Argv: []string{sleep, "300"}, Path: os.Getenv("PATH"), Dir: dir}
}

// TestProcessTrustsOnlyItsOwnProcess: process mode knows its service by
// start time, executable and a marker in its environment, not by a pid
// and a command line. A pid file that names another process, even one
// running the same command (a reused pid), or pid 1, is not the service:
// status says stopped, stop signals nothing, start starts a new one.
func TestProcessTrustsOnlyItsOwnProcess(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := &process{unitPath: filepath.Join(dir, Name), dir: dir}
	if err := p.Install(ctx, sleepUnit(t, dir)); err != nil {
		t.Fatal(err)
	}
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(ctx) })
	st, _ := p.Status(ctx)
	if !st.Active || st.MainPID <= 1 {
		t.Fatalf("after start: got %+v, want active with a pid", st)
	}
	own := st.MainPID

	// A stranger running the very same command, as a reused pid would.
	decoy := exec.Command(sleepUnit(t, dir).Argv[0], "300")
	decoy.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := decoy.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { decoy.Process.Kill(); decoy.Wait() })

	for _, pid := range []int{decoy.Process.Pid, 1} {
		if err := os.WriteFile(filepath.Join(dir, pidFile), []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if st, _ := p.Status(ctx); st.Active {
			t.Errorf("pid file naming pid %d: status active (pid %d), want not running", pid, st.MainPID)
		}
		if err := p.Stop(ctx); err != nil {
			t.Errorf("stop with pid file naming %d: %v", pid, err)
		}
	}
	if !alive(decoy.Process.Pid) {
		t.Errorf("stop signalled the decoy (pid %d) that only shared the pid file", decoy.Process.Pid)
	}

	// The service itself is told apart from the decoy and stops for real.
	if err := os.WriteFile(filepath.Join(dir, pidFile), []byte(strconv.Itoa(own)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if st, _ := p.Status(ctx); !st.Active || st.MainPID != own {
		t.Fatalf("own pid back in the pid file: got %+v, want active pid %d", st, own)
	}
	if err := p.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for alive(own) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(own) {
		t.Errorf("service pid %d still alive after stop", own)
	}
}

// TestProcessKnownAsSoonAsStarted: the process Start starts is known as
// the service as soon as Start returns. Go's cmd.Start returns once the
// kernel has committed to the exec, before the new program's environment,
// where the service's marker is read from, is in /proc/PID/environ: read at
// once, 24 to 47 reads in 300 miss it on an idle machine, and in CI a
// learner case's step 4 read "inactive, main pid 0" 59 ms after a start on
// a loaded one. Start waits for it (waitExecLoaded); without that wait this
// test fails. Identifying reads it as running() does (markerHeld).
func TestProcessKnownAsSoonAsStarted(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 300 {
		marker := fmt.Sprint("m", i)
		// A loop, as the shell engine's unit runs: bash -c with one simple
		// command would exec it in its own place, a second exec.
		cmd := exec.Command(bash, "-c", "while true; do sleep 10; done")
		cmd.Env = []string{markerVar + "=" + marker}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		pid := cmd.Process.Pid
		waitExecLoaded(pid, marker)
		known := markerHeld(pid, marker)
		var seen string
		if !known {
			// Seen twice in one read (2026-12-04's cold CI run, start 109
			// of 300; stop 43's fresh clone, start 153, which read the
			// previous start's marker): markerHeld reads again. Say what
			// a miss looked like, so that the next one tells its cause.
			env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
			time.Sleep(100 * time.Millisecond)
			seen = fmt.Sprintf("alive %v, environ %q (read error %v), marker there 100 ms later: %v",
				alive(pid), env, err, hasMarker(pid, marker))
		}
		cmd.Process.Kill()
		cmd.Wait()
		if !known {
			t.Fatalf("start %d: the marker is not in the environment of pid %d when the wait returned (%s)", i+1, pid, seen)
		}
	}
}

// TestActiveState: between two runs under Restart= (activating,
// auto-restart) the service keeps running, as the lab asks; stopped,
// failed or still starting for the first time it does not.
func TestActiveState(t *testing.T) {
	for _, tt := range []struct {
		active, sub         string
		running, restarting bool
	}{
		{"active", "running", true, false},
		{"reloading", "reload", true, false},
		{"activating", "auto-restart", true, true},
		{"activating", "auto-restart-queued", true, true},
		{"activating", "start", false, false},
		{"inactive", "dead", false, false},
		{"failed", "failed", false, false},
		{"deactivating", "stop-sigterm", false, false},
		{"", "", false, false},
	} {
		running, restarting := ActiveState(tt.active, tt.sub)
		if running != tt.running || restarting != tt.restarting {
			t.Errorf("ActiveState(%q, %q) = %v, %v; want %v, %v", tt.active, tt.sub, running, restarting, tt.running, tt.restarting)
		}
	}
}

// TestRestartSeconds: RestartSec= as sleep(1) takes it.
func TestRestartSeconds(t *testing.T) {
	for in, want := range map[string]string{"3": "3", "3s": "3", "500ms": "0.5", "1min": "60", "": "0.1", "soon": "0.1", "0.2": "0.2"} {
		if got := seconds(in); got != want {
			t.Errorf("seconds(%q) = %q, want %q", in, got, want)
		}
	}
}

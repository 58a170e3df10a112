package service

import (
	"context"
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

// TestProcessActiveAsSoonAsStarted: status right after start says active.
// Go's cmd.Start returns before the new program's environment is in
// /proc/PID/environ (measured here: 47 times in 300 on an idle machine), and
// the marker that tells the service apart is read from there; step 4 once
// read "inactive, main pid 0" 59 ms after a start on a loaded machine.
func TestProcessActiveAsSoonAsStarted(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := &process{unitPath: filepath.Join(dir, Name), dir: dir}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal(err)
	}
	// bash is dynamically linked: its exec takes longer than sleep's.
	if err := p.Install(ctx, Unit{Engine: "shell", Argv: []string{bash, "-c", "sleep 300"}, Path: os.Getenv("PATH"), Dir: dir}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(ctx) })
	for i := range 40 {
		if err := p.Start(ctx); err != nil {
			t.Fatal(err)
		}
		if st, _ := p.Status(ctx); !st.Active {
			t.Fatalf("start %d: status right after got %+v, want active", i+1, st)
		}
		if err := p.Stop(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

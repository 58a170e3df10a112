package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// process runs the unit's command detached, for machines without systemd
// and for tests. It writes the same unit file (so the learner can read it),
// keeps the unit's command line beside it, and tracks the process with a
// pid file; output goes to a log file in the evidence dir.
type process struct {
	unitPath string
	dir      string
}

const (
	pidFile = "cnpa-op.pid"
	logFile = "cnpa-op.log"
	// argvFile keeps the exact command and environment process mode starts.
	argvFile = "cnpa-op.argv.json"
)

func (p *process) Name() string     { return "process" }
func (p *process) UnitPath() string { return p.unitPath }

func (p *process) Install(_ context.Context, u Unit) error {
	if err := writeUnit(p.unitPath, u); err != nil {
		return err
	}
	return saveArgv(filepath.Join(p.dir, argvFile), u)
}

func (p *process) Enable(ctx context.Context) error { return p.Start(ctx) }

func (p *process) Start(_ context.Context) error {
	if pid := p.running(); pid > 0 {
		return nil
	}
	u, err := loadArgv(filepath.Join(p.dir, argvFile))
	if err != nil {
		return err
	}
	logf, err := os.OpenFile(filepath.Join(p.dir, logFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("open service log: %w", err)
	}
	defer logf.Close()
	cmd := exec.Command(u.Argv[0], u.Argv[1:]...)
	cmd.Env = append(os.Environ(), u.Env()...)
	cmd.Dir = p.dir
	cmd.Stdout, cmd.Stderr = logf, logf
	// A session of its own: the service outlives the cnpa command that
	// started it, as a systemd unit would.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", u.Argv[0], err)
	}
	pid := cmd.Process.Pid
	// Reap it if it exits while we still run; afterwards init does.
	go cmd.Wait()
	return os.WriteFile(filepath.Join(p.dir, pidFile), []byte(strconv.Itoa(pid)+"\n"), 0o644)
}

func (p *process) Stop(_ context.Context) error {
	pid := p.running()
	if pid == 0 {
		os.Remove(filepath.Join(p.dir, pidFile))
		return nil
	}
	// The whole session: the shell engine's loop and the kubectl it runs.
	syscall.Kill(-pid, syscall.SIGTERM)
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) && alive(pid) {
		time.Sleep(50 * time.Millisecond)
	}
	if alive(pid) {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
	return os.Remove(filepath.Join(p.dir, pidFile))
}

func (p *process) Restart(ctx context.Context) error {
	if err := p.Stop(ctx); err != nil {
		return err
	}
	return p.Start(ctx)
}

func (p *process) Status(_ context.Context) (Status, error) {
	st := Status{Manager: p.Name(), UnitPath: p.unitPath}
	_, err := os.Stat(p.unitPath)
	st.Installed = err == nil
	st.Enabled = st.Installed
	st.MainPID = p.running()
	st.Active = st.MainPID > 0
	return st, nil
}

func (p *process) Logs(_ context.Context, n int, w io.Writer) error {
	data, err := os.ReadFile(filepath.Join(p.dir, logFile))
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintln(w, "(no log yet)")
		return nil
	}
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	_, err = fmt.Fprintln(w, strings.Join(lines, "\n"))
	return err
}

func (p *process) Remove(ctx context.Context) error {
	if err := p.Stop(ctx); err != nil {
		return err
	}
	for _, f := range []string{p.unitPath, filepath.Join(p.dir, argvFile)} {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

// running returns the pid from the pid file when that process is alive and
// is still ours (its command line matches what we started), else 0.
func (p *process) running() int {
	data, err := os.ReadFile(filepath.Join(p.dir, pidFile))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 || !alive(pid) {
		return 0
	}
	u, err := loadArgv(filepath.Join(p.dir, argvFile))
	if err != nil {
		return 0
	}
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || !bytes.HasPrefix(cmdline, []byte(u.Argv[0])) {
		return 0 // the pid was reused by something else
	}
	return pid
}

func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	// A zombie is dead for our purposes.
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

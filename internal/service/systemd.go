package service

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/labhub/cnpa/internal/ui"
)

// systemd drives the unit with systemctl, as the learner would.
type systemd struct{ unitPath string }

func (s *systemd) Name() string     { return "systemd" }
func (s *systemd) UnitPath() string { return s.unitPath }

func (s *systemd) Install(ctx context.Context, u Unit) error {
	if err := writeUnit(s.unitPath, u); err != nil {
		return err
	}
	return systemctl(ctx, "daemon-reload")
}

func (s *systemd) Enable(ctx context.Context) error  { return systemctl(ctx, "enable", "--now", Name) }
func (s *systemd) Start(ctx context.Context) error   { return systemctl(ctx, "start", Name) }
func (s *systemd) Stop(ctx context.Context) error    { return systemctl(ctx, "stop", Name) }
func (s *systemd) Restart(ctx context.Context) error { return systemctl(ctx, "restart", Name) }

func (s *systemd) Status(ctx context.Context) (Status, error) {
	st := Status{Manager: s.Name(), UnitPath: s.unitPath}
	_, err := os.Stat(s.unitPath)
	st.Installed = err == nil
	// is-active / is-enabled answer through their exit code; their output
	// is the state word.
	active, _ := output(ctx, "systemctl", "is-active", Name)
	st.Active = active == "active"
	enabled, _ := output(ctx, "systemctl", "is-enabled", Name)
	st.Enabled = enabled == "enabled"
	pid, _ := output(ctx, "systemctl", "show", "-p", "MainPID", "--value", Name)
	st.MainPID, _ = strconv.Atoi(pid)
	return st, nil
}

func (s *systemd) Logs(ctx context.Context, n int, w io.Writer) error {
	cmd := exec.CommandContext(ctx, "journalctl", "-u", Name, "-n", strconv.Itoa(n), "--no-pager")
	cmd.Stdout, cmd.Stderr = ui.CleanWriter(w), ui.CleanWriter(w)
	return cmd.Run()
}

func (s *systemd) Remove(ctx context.Context) error {
	// Already stopped or disabled is fine: the goal is "gone".
	_ = systemctl(ctx, "disable", "--now", Name)
	if !cnpasUnit(s.unitPath) {
		return nil // the learner's unit stays where it is, disabled
	}
	if err := os.Remove(s.unitPath); err != nil && !os.IsNotExist(err) {
		return err
	}
	return systemctl(ctx, "daemon-reload")
}

func systemctl(ctx context.Context, args ...string) error {
	out, err := exec.CommandContext(ctx, "systemctl", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("systemctl %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

func output(ctx context.Context, name string, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, name, args...).Output()
	return strings.TrimSpace(string(out)), err
}

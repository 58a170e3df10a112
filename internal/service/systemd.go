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

func (s *systemd) Enable(ctx context.Context) error { return systemctl(ctx, "enable", "--now", Name) }

// Start starts the unit as it is on disk now: a unit the learner edited
// since systemd last read it is read again first, as `systemctl start`
// itself only warns that it would be.
func (s *systemd) Start(ctx context.Context) error {
	if reload, _ := output(ctx, "systemctl", "show", "-p", "NeedDaemonReload", "--value", Name); reload == "yes" {
		if err := systemctl(ctx, "daemon-reload"); err != nil {
			return err
		}
	}
	return systemctl(ctx, "start", Name)
}

func (s *systemd) Stop(ctx context.Context) error    { return systemctl(ctx, "stop", Name) }
func (s *systemd) Restart(ctx context.Context) error { return systemctl(ctx, "restart", Name) }

func (s *systemd) Status(ctx context.Context) (Status, error) {
	st := Status{Manager: s.Name(), UnitPath: s.unitPath}
	_, err := os.Stat(s.unitPath)
	st.Installed = err == nil
	// One read of the unit's properties; a unit systemd does not know
	// reads as inactive, its file state empty.
	out, _ := output(ctx, "systemctl", "show", "-p", "ActiveState,SubState,MainPID,UnitFileState", Name)
	props := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(l, "="); ok {
			props[k] = v
		}
	}
	st.Active, st.Restarting = ActiveState(props["ActiveState"], props["SubState"])
	st.Enabled = props["UnitFileState"] == "enabled"
	st.MainPID, _ = strconv.Atoi(props["MainPID"])
	return st, nil
}

// ActiveState reads systemd's ActiveState and SubState as the lab does:
// active (or reloading) runs; activating in sub-state auto-restart is
// between two runs, Restart= starting it again after RestartSec (a unit
// that runs reconcile.sh once per start lives mostly there), which keeps
// running as the lab asks, not stopped. inactive, failed, deactivating
// and a first start still under way are not running.
func ActiveState(active, sub string) (running, restarting bool) {
	switch {
	case active == "active" || active == "reloading":
		return true, false
	case active == "activating" && strings.HasPrefix(sub, "auto-restart"):
		return true, true
	}
	return false, false
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

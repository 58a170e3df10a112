package service

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
)

// Status is what a manager knows about the service; its home is package
// lab, so that the grader's verdicts and a submission read it without
// linking the managers.
type Status = lab.ServiceStatus

// Manager runs cnpa-op.service one way or another.
type Manager interface {
	// Name is "systemd" or "process".
	Name() string
	// UnitPath is where the unit file goes.
	UnitPath() string
	// Install writes the unit file; it starts nothing.
	Install(ctx context.Context, u Unit) error
	// Enable makes the service start now and on boot (systemd: enable --now).
	Enable(ctx context.Context) error
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	Restart(ctx context.Context) error
	Status(ctx context.Context) (Status, error)
	// Logs writes the last n lines of the service's log to w.
	Logs(ctx context.Context, n int, w io.Writer) error
	// Remove stops and disables the service and deletes the unit file.
	Remove(ctx context.Context) error
}

// SystemdRunning tells whether this machine booted with systemd, the way
// sd_booted(3) does.
func SystemdRunning() bool {
	fi, err := os.Stat("/run/systemd/system")
	return err == nil && fi.IsDir()
}

// New picks the manager: kind is auto, systemd or process. auto means
// systemd when it runs, else process. dir is the evidence dir, where process
// mode keeps its pid and log files.
func New(kind, unitDir, dir string) (Manager, error) {
	if kind == "auto" || kind == "" {
		kind = "process"
		if SystemdRunning() {
			kind = "systemd"
		}
	}
	unitPath := filepath.Join(unitDir, Name)
	switch kind {
	case "systemd":
		return &systemd{unitPath: unitPath}, nil
	case "process":
		return &process{unitPath: unitPath, dir: dir}, nil
	}
	return nil, i18n.NewError("service.unknown_manager", i18n.Args{"Manager": fmt.Sprintf("%q", kind)})
}

func writeUnit(path string, u Unit) error {
	if u.Theirs {
		return nil // the learner's: never written
	}
	data, err := u.Render()
	if err != nil {
		return err
	}
	data = Mark(data)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("%s: %w", i18n.T("service.create_unit_dir"), err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("%s: %w", i18n.T("service.write_unit", i18n.Args{"Path": path}), err)
	}
	return os.Rename(tmp, path)
}

package service

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/labhub/cnpa/internal/i18n"
)

func saveArgv(path string, u Unit) error {
	data, err := json.MarshalIndent(u, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// NotInstalledError is process mode asked to start a service that nothing
// has installed: no record of what to run (ArgvFile) beside the evidence.
// Step 4 installs it; so does `cnpa service start` when the unit in the
// unit dir is the learner's own (labenv.StartService).
type NotInstalledError struct {
	// Record is the missing record's path.
	Record string
}

func (e *NotInstalledError) Error() string {
	return i18n.T("service.not_installed", i18n.Args{"Record": e.Record})
}

func loadArgv(path string) (Unit, error) {
	var u Unit
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return u, &NotInstalledError{Record: path}
	}
	if err != nil {
		return u, fmt.Errorf("%s: %w", i18n.T("service.unreadable", i18n.Args{"Path": path}), err)
	}
	if err := json.Unmarshal(data, &u); err != nil || len(u.Argv) == 0 {
		return u, i18n.NewError("service.damaged", i18n.Args{"Path": path})
	}
	return u, nil
}

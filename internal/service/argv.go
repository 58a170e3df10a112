package service

import (
	"encoding/json"
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

func loadArgv(path string) (Unit, error) {
	var u Unit
	data, err := os.ReadFile(path)
	if err != nil {
		return u, i18n.NewError("service.not_installed", i18n.Args{"Err": err.Error()})
	}
	if err := json.Unmarshal(data, &u); err != nil || len(u.Argv) == 0 {
		return u, i18n.NewError("service.damaged", i18n.Args{"Path": path})
	}
	return u, nil
}

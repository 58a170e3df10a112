package service

import (
	"encoding/json"
	"errors"
	"github.com/labhub/cnpa/internal/i18n"
	"os"
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
		return u, errors.New(i18n.T("service.not_installed", i18n.Args{"Err": err.Error()}))
	}
	if err := json.Unmarshal(data, &u); err != nil || len(u.Argv) == 0 {
		return u, errors.New(i18n.T("service.damaged", i18n.Args{"Path": path}))
	}
	return u, nil
}

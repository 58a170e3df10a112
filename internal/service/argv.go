package service

import (
	"encoding/json"
	"fmt"
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
		return u, fmt.Errorf("service not installed (%v): run `cnpa step 4`", err)
	}
	if err := json.Unmarshal(data, &u); err != nil || len(u.Argv) == 0 {
		return u, fmt.Errorf("%s is damaged: run `cnpa step 4` again", path)
	}
	return u, nil
}

package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// A drop-in adds to cnpa-op.service without touching its unit file, the
// learner's or cnpa's (systemd.unit(5), "<unit>.d/*.conf"): `cnpa stress`
// points the service at its proxy with one, and removes it afterwards.
// Under systemd it goes to /run/systemd/system, which a reboot empties, so
// that even a stress run killed before its cleanup leaves nothing behind
// past the next boot; process mode reads the same files beside its unit.

// dropInHeader starts every drop-in cnpa writes.
const dropInHeader = "# Written by cnpa stress while it runs; removed when it ends.\n[Service]\n"

// RuntimeUnitDir is systemd's runtime unit directory.
const RuntimeUnitDir = "/run/systemd/system"

// DropInPath is where a drop-in named name (without .conf) of m goes.
func DropInPath(m Manager, name string) string {
	dir := filepath.Dir(m.UnitPath())
	if m.Name() == "systemd" {
		dir = RuntimeUnitDir
	}
	return filepath.Join(dir, Name+".d", name+".conf")
}

// WriteDropIn writes a drop-in that sets env (KEY=VALUE each) in the
// service's environment, and tells systemd to read it; it takes effect at
// the service's next start.
func WriteDropIn(ctx context.Context, m Manager, name string, env []string) error {
	var b strings.Builder
	b.WriteString(dropInHeader)
	for _, kv := range env {
		if strings.ContainsAny(kv, "\"\\\n%$") {
			return fmt.Errorf("drop-in %s: %q", name, kv) // cnpa's own values: a bug
		}
		b.WriteString(`Environment="` + kv + "\"\n")
	}
	path := DropInPath(m, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path+".tmp", []byte(b.String()), 0o644); err != nil {
		return err
	}
	if err := os.Rename(path+".tmp", path); err != nil {
		return err
	}
	return reloadDropIns(ctx, m)
}

// RemoveDropIn removes the drop-in (none is fine) and tells systemd.
func RemoveDropIn(ctx context.Context, m Manager, name string) error {
	path := DropInPath(m, name)
	err := os.Remove(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	os.Remove(filepath.Dir(path)) // only when empty: others' drop-ins stay
	return reloadDropIns(ctx, m)
}

func reloadDropIns(ctx context.Context, m Manager) error {
	if m.Name() == "systemd" {
		return systemctl(ctx, "daemon-reload")
	}
	return nil
}

// dropInEnv is the Environment= of every drop-in beside unitPath, in the
// order systemd reads them (by file name), for process mode.
func dropInEnv(unitPath string) []string {
	files, _ := filepath.Glob(filepath.Join(unitPath+".d", "*.conf"))
	sort.Strings(files)
	var env []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue // unreadable: systemd would skip it with a warning too
		}
		u, err := ParseUnit(data)
		if err != nil {
			continue
		}
		env = append(env, u.Environment...)
	}
	return env
}

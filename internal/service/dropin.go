package service

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/labhub/cnpa/internal/i18n"
)

// A drop-in adds to cnpa-op.service without touching its unit file, the
// learner's or cnpa's (systemd.unit(5), "<unit>.d/*.conf"): `cnpa stress`
// points the service at its proxy with one, and removes it afterwards.
// Under systemd it goes to /run/systemd/system, which a reboot empties, so
// that even a stress run killed before its cleanup leaves nothing behind
// past the next boot; process mode reads the same files beside its unit.
//
// Its writer holds the file with an exclusive flock(2) for as long as the
// drop-in is meant (DropIn): a drop-in of cnpa's that no process holds is
// one whose writer died (kill -9, OOM, a reboot) before its cleanup.
// RepairLeftovers finds such a drop-in, removes it and restarts the
// service, so that it runs on its own kubeconfig again.

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

// DropIn is a drop-in in force, held by the process that wrote it.
type DropIn struct {
	m    Manager
	path string
	f    *os.File // open, with an exclusive flock, until Remove
}

// WriteDropIn writes a drop-in that sets env (KEY=VALUE each) in the
// service's environment, and tells systemd to read it; it takes effect at
// the service's next start. The file is locked before it takes its name,
// so that no one ever sees it unheld while its writer lives; the lock
// goes with the writer (close-on-exec: the service started meanwhile does
// not inherit it).
func WriteDropIn(ctx context.Context, m Manager, name string, env []string) (*DropIn, error) {
	var b strings.Builder
	b.WriteString(dropInHeader)
	for _, kv := range env {
		if strings.ContainsAny(kv, "\"\\\n%$") {
			return nil, fmt.Errorf("drop-in %s: %q", name, kv) // cnpa's own values: a bug
		}
		b.WriteString(`Environment="` + kv + "\"\n")
	}
	path := DropInPath(m, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	d := &DropIn{m: m, path: path, f: f}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", tmp, err)
	}
	if _, err := f.WriteString(b.String()); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, err
	}
	if err := os.Rename(tmp, path); err != nil {
		f.Close()
		os.Remove(tmp)
		return nil, err
	}
	return d, reloadDropIns(ctx, m)
}

// Remove removes the drop-in, tells systemd, and lets go of it; nil does
// nothing.
func (d *DropIn) Remove(ctx context.Context) error {
	if d == nil {
		return nil
	}
	defer d.f.Close()
	return removeDropIn(ctx, d.m, d.path)
}

// Held tells whether the drop-in named name (without .conf) is in place
// and held by a live process: another run is using it.
func Held(m Manager, name string) bool {
	path := DropInPath(m, name)
	if _, err := os.Stat(path); err != nil {
		return false
	}
	return !unheld(path)
}

// unheld tells whether no process holds the drop-in at path (it can be
// locked now); a file that cannot be opened is not known to be unheld.
func unheld(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		return false
	}
	unix.Flock(int(f.Fd()), unix.LOCK_UN)
	return true
}

// Leftover is a drop-in of cnpa's that its writer left behind.
type Leftover struct {
	Path string
	// Env is its Environment= (KEY=VALUE each).
	Env []string
}

// Leftovers are m's drop-ins that cnpa wrote (they start with its
// header) and no live process holds.
func Leftovers(m Manager) []Leftover {
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(DropInPath(m, "x")), "*.conf"))
	sort.Strings(files)
	var out []Leftover
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || !strings.HasPrefix(string(data), dropInHeader) || !unheld(f) {
			continue
		}
		l := Leftover{Path: f}
		if u, err := ParseUnit(data); err == nil {
			l.Env = u.Environment
		}
		out = append(out, l)
	}
	return out
}

// RepairLeftovers removes every Leftover of m and, when the service runs,
// restarts it without them (a drop-in takes effect at a start, and the
// service started with it still has its environment). It returns what it
// removed; err says what it could not do.
func RepairLeftovers(ctx context.Context, m Manager) ([]Leftover, error) {
	left := Leftovers(m)
	if len(left) == 0 {
		return nil, nil
	}
	var errs []error
	for _, l := range left {
		if err := removeDropIn(ctx, m, l.Path); err != nil {
			errs = append(errs, err)
			continue
		}
		// The proxy's kubeconfig it named, in a directory of the run's
		// own (cnpa-stress-*): its token is worth nothing now, but it is
		// the run's to remove.
		for _, kv := range l.Env {
			if _, v, _ := strings.Cut(kv, "="); strings.HasPrefix(filepath.Base(filepath.Dir(v)), "cnpa-stress-") {
				os.RemoveAll(filepath.Dir(v))
			}
		}
	}
	if st, err := m.Status(ctx); err == nil && st.Active {
		errs = append(errs, m.Restart(ctx))
	} else if us, ok := SystemdState(ctx, m); err == nil && ok && us.Active == "failed" {
		// A run starts only on a running service: one failed since was
		// failed by the run (a restart fault's start limit, the run killed
		// before it put the unit back), and is started as it was.
		errs = append(errs, ResetFailed(ctx, m), m.Start(ctx))
	}
	return left, errors.Join(errs...)
}

// RemoveDropIn removes the drop-in (none is fine) and tells systemd,
// whoever holds it.
func RemoveDropIn(ctx context.Context, m Manager, name string) error {
	return removeDropIn(ctx, m, DropInPath(m, name))
}

func removeDropIn(ctx context.Context, m Manager, path string) error {
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

// SayLeftovers says what RepairLeftovers removed, and what it could not
// do (err), in one warning for the learner.
func SayLeftovers(left []Leftover, err error) string {
	paths := make([]string, len(left))
	for i, l := range left {
		paths[i] = l.Path
	}
	msg := i18n.T("service.leftover_dropin", i18n.Args{"Paths": strings.Join(paths, ", "), "Unit": Name})
	if err != nil {
		msg += "\n" + i18n.T("service.leftover_dropin_failed", i18n.Args{"Err": err.Error(), "Paths": strings.Join(paths, " "), "Unit": Name})
	}
	return msg
}

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// TestChoicesLockWhenEvidenceDependsOnThem runs steps 1–4 on a control
// plane of its own (the steps use the lab's fixed names): steps 1 and 2 do
// not depend on the engine or the service, so step 3 may still pick the
// engine and step 4 the unit dir (`step 4 --unit-dir` after step 1 used to
// be ignored for the dir step 1 remembered). Once step 3 has written
// reconcile.json another engine is refused, and once step 4 has installed
// the unit another unit dir is: exit 2, one line naming the locked choice,
// and nothing changed.
func TestChoicesLockWhenEvidenceDependsOnThem(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	bin := kit.CnpaBinary(t)
	work := t.TempDir()
	dir := filepath.Join(work, "cnpa-op")
	unitDir := func(name string) string { return filepath.Join(work, "units-"+name) }
	unitAt := func(name string) string { return filepath.Join(unitDir(name), "cnpa-op.service") }
	env := append(c.Env(), "NO_COLOR=1", "HOME="+work)
	cnpa := func(args ...string) (int, string, string) {
		return run(ctx, t, bin, env, append([]string{"--kubeconfig", c.Kubeconfig, "--dir", dir}, args...)...)
	}
	t.Cleanup(func() {
		run(context.Background(), t, bin, env, "--kubeconfig", c.Kubeconfig, "--dir", dir, "service", "stop")
	})
	mustPass := func(args ...string) string {
		t.Helper()
		code, stdout, stderr := cnpa(args...)
		if code != 0 {
			t.Fatalf("cnpa %s: exit %d\n%s%s", strings.Join(args, " "), code, stdout, stderr)
		}
		return stdout
	}
	refused := func(args []string, want ...string) {
		t.Helper()
		before, _ := os.ReadFile(filepath.Join(dir, labenv.StateFile))
		code, stdout, stderr := cnpa(args...)
		if code != 2 {
			t.Errorf("cnpa %s: exit %d, want 2 (refused)\n%s%s", strings.Join(args, " "), code, stdout, stderr)
		}
		lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
		if len(lines) != 1 {
			t.Errorf("cnpa %s: stderr has %d lines, want 1:\n%s", strings.Join(args, " "), len(lines), stderr)
		}
		for _, w := range want {
			if !strings.Contains(stderr, w) {
				t.Errorf("cnpa %s: stderr %q does not name %q", strings.Join(args, " "), stderr, w)
			}
		}
		if after, _ := os.ReadFile(filepath.Join(dir, labenv.StateFile)); string(after) != string(before) {
			t.Errorf("cnpa %s was refused but changed %s:\nbefore %s\nafter  %s", strings.Join(args, " "), labenv.StateFile, before, after)
		}
	}

	if !service.SystemdRunning() {
		// Named on a machine without systemd (this one, and the
		// containers CI runs in): refused before anything is written,
		// rather than systemctl failing at step 4.
		refused([]string{"step", "1", "--service-manager", "systemd"}, "--service-manager systemd", "/run/systemd/system", "--service-manager process")
	}
	mustPass("step", "1", "--engine", "shell", "--service-manager", "process", "--unit-dir", unitDir("a"))
	if st := state(t, dir); st.Engine != "shell" || st.UnitDir != unitDir("a") || st.EngineLocked || st.ServiceLocked {
		t.Errorf("after step 1: state %+v, want engine shell, unit dir %s remembered, nothing locked", st, unitDir("a"))
	}
	mustPass("step", "2")
	// The engine is chosen at step 3.
	mustPass("step", "3", "--engine", "go")
	if st := state(t, dir); st.Engine != "go" || !st.EngineLocked {
		t.Errorf("after step 3 --engine go: state %+v, want engine go, locked", st)
	}
	refused([]string{"step", "4", "--engine", "shell"}, "--engine shell", "reconcile.json", "--engine go", "cnpa reset --yes")
	// The unit dir is chosen at step 4: the flag wins over step 1's.
	out := mustPass("step", "4", "--unit-dir", unitDir("b"))
	if _, err := os.Stat(unitAt("b")); err != nil {
		t.Errorf("step 4 --unit-dir %s: no unit there (%v)\n%s", unitDir("b"), err, out)
	}
	if _, err := os.Stat(unitAt("a")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("step 4 --unit-dir %s installed the unit in step 1's %s too (stat: %v)", unitDir("b"), unitDir("a"), err)
	}
	if st := state(t, dir); st.UnitDir != unitDir("b") || !st.ServiceLocked || st.ServiceManager != "process" {
		t.Errorf("after step 4: state %+v, want unit dir %s, process, locked", st, unitDir("b"))
	}
	refused([]string{"step", "4", "--unit-dir", unitDir("c")}, unitDir("c"), unitDir("b"), "cnpa reset --yes")
	refused([]string{"service", "status", "--service-manager", "systemd"}, "--service-manager systemd", "process")
	if _, err := os.Stat(unitDir("c")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused step 4 --unit-dir %s made it (stat: %v)", unitDir("c"), err)
	}
	// The same choice again is no change, so no refusal.
	mustPass("service", "status", "--unit-dir", unitDir("b"), "--engine", "go")
}

func state(t *testing.T, dir string) labenv.State {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, labenv.StateFile))
	if err != nil {
		t.Fatal(err)
	}
	var st labenv.State
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatalf("%s: %v\n%s", labenv.StateFile, err, data)
	}
	return st
}

package labenv

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/service"
)

// A state written by a cnpa from before the choice locks (no
// engine_locked, no service_locked) is locked by the evidence it left: a
// flag that differs is refused once step 4 installed the unit for this
// dir (under systemd or in process mode), and step 3's reconcile.json
// locks the engine; without any of
// them the flag replaces the remembered choice, as for a state of today.
func TestOldStateLockedByItsEvidence(t *testing.T) {
	unitFor := func(t *testing.T, unitDir, served string) {
		t.Helper()
		u := service.Unit{Engine: EngineGo, Argv: []string{"/usr/local/bin/cnpa", "controller"}, Kubeconfig: "/etc/rancher/k3s/k3s.yaml",
			Path: "/usr/bin", ArchiveDir: filepath.Join(served, evidence.ArchiveDir), Dir: served}
		data, err := u.Render()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(unitDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(unitDir, service.Name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	touch := func(t *testing.T, dir, name string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name string
		// leave writes what the older cnpa left in the evidence dir and
		// the remembered unit dir.
		leave func(t *testing.T, dir, unitDir string)
		// engineRefused, serviceRefused: a different --engine, and a
		// different --unit-dir or --service-manager, are refused.
		engineRefused, serviceRefused bool
	}{
		{"step 1 only", func(*testing.T, string, string) {}, false, false},
		{"step 3", func(t *testing.T, dir, _ string) { touch(t, dir, lab.ReconcileFile) }, true, false},
		{"step 4 under systemd", func(t *testing.T, dir, unitDir string) {
			touch(t, dir, lab.ReconcileFile)
			unitFor(t, unitDir, dir)
		}, true, true},
		{"another dir's unit at the path", func(t *testing.T, dir, unitDir string) {
			touch(t, dir, lab.ReconcileFile)
			unitFor(t, unitDir, filepath.Join(filepath.Dir(dir), "another-lab"))
		}, true, false},
		{"step 4 in process mode", func(t *testing.T, dir, _ string) {
			touch(t, dir, lab.ReconcileFile)
			touch(t, dir, service.ArgvFile)
		}, true, true},
		// A file of a later step the learner edited outlives reset: no
		// proof of a service installed for the state of now.
		{"step 5's file only", func(t *testing.T, dir, _ string) { touch(t, dir, lab.DriftFile) }, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, unitDir := t.TempDir(), filepath.Join(t.TempDir(), "systemd")
			// As the older cnpa wrote it: its choices, no lock at all.
			old := `{"engine":"go","service_manager":"systemd","unit_dir":"` + unitDir + `","kubeconfig":"/etc/rancher/k3s/k3s.yaml","finalizer":false}`
			if err := os.WriteFile(filepath.Join(dir, StateFile), []byte(old), 0o644); err != nil {
				t.Fatal(err)
			}
			tc.leave(t, dir, unitDir)
			// A dir without a state file is a fresh lab's: nothing locked.
			fresh := &State{Engine: EngineGo, ServiceManager: "auto", UnitDir: DefaultUnitDir}
			if err := fresh.choose(Options{Dir: dir, UnitDir: unitDir, ServiceManager: "process"}); err != nil {
				t.Errorf("no state file: %v, want the flags taken", err)
			}
			for _, flag := range []struct {
				name    string
				opts    Options
				refused bool
			}{
				{"--engine shell", Options{Dir: dir, Engine: EngineShell}, tc.engineRefused},
				{"--unit-dir", Options{Dir: dir, UnitDir: filepath.Join(t.TempDir(), "elsewhere")}, tc.serviceRefused},
				{"--service-manager process", Options{Dir: dir, ServiceManager: "process"}, tc.serviceRefused},
			} {
				st, err := LoadState(dir)
				if err != nil {
					t.Fatal(err)
				}
				err = st.choose(flag.opts)
				switch {
				case flag.refused && err == nil:
					t.Errorf("%s: accepted (state now %+v), want it refused: the evidence left depends on the remembered choice", flag.name, st)
				case flag.refused && !strings.Contains(err.Error(), "cnpa reset --yes"):
					t.Errorf("%s: refused with %q, want the way on (`cnpa reset --yes`)", flag.name, err)
				case !flag.refused && err != nil:
					t.Errorf("%s: refused (%v), want it to replace the remembered choice: nothing depends on it yet", flag.name, err)
				}
			}
		})
	}
}

// A dir whose state file is gone (the fix for a damaged one) gets its
// engine and finalizer switch back from the reconcile.sh cnpa installed,
// and process mode from its command line, so that the state written again
// is the lab's, not the defaults (finalizer off after step 6 would make the
// next step install a script and unit without it).
func TestRecoveredState(t *testing.T) {
	for _, tc := range []struct {
		name      string
		engine    string // rendered by ScriptFor; "own": a script of the learner's
		finalizer bool
		files     []string
		want      State
	}{
		{"nothing yet", "", false, nil, State{Engine: EngineGo, ServiceManager: "auto", UnitDir: DefaultUnitDir}},
		{"go engine after step 6", EngineGo, true, []string{service.ArgvFile}, State{Engine: EngineGo, Finalizer: true, ServiceManager: "process", UnitDir: DefaultUnitDir}},
		{"go engine before step 6", EngineGo, false, nil, State{Engine: EngineGo, ServiceManager: "auto", UnitDir: DefaultUnitDir}},
		{"shell engine after step 6", EngineShell, true, nil, State{Engine: EngineShell, Finalizer: true, ServiceManager: "auto", UnitDir: DefaultUnitDir}},
		{"shell engine before step 6", EngineShell, false, nil, State{Engine: EngineShell, ServiceManager: "auto", UnitDir: DefaultUnitDir}},
		{"own engine after step 6", EngineOwn, false, []string{lab.ReconcileFile, lab.CleanupFile}, State{Engine: EngineOwn, Finalizer: true, ServiceManager: "auto", UnitDir: DefaultUnitDir}},
		{"own engine before step 3", EngineOwn, false, nil, State{Engine: EngineGo, ServiceManager: "auto", UnitDir: DefaultUnitDir}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var script []byte
			switch tc.engine {
			case EngineGo, EngineShell:
				var err error
				if script, err = ScriptFor(Script{Engine: tc.engine, CnpaPath: "/usr/local/bin/cnpa", Kubeconfig: "/k.yaml", Dir: dir, Finalizer: tc.finalizer}); err != nil {
					t.Fatal(err)
				}
			case EngineOwn:
				script = []byte("#!/bin/sh\n# mine, with --finalizer=true and CNPA_FINALIZER=true in a comment\n")
			}
			if script != nil {
				if err := os.WriteFile(filepath.Join(dir, ScriptName), script, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			for _, f := range tc.files {
				if err := os.WriteFile(filepath.Join(dir, f), []byte("{}\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if got := recoveredState(dir); *got != tc.want {
				t.Errorf("got %+v, want %+v", *got, tc.want)
			}
		})
	}
}

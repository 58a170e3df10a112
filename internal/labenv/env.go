// Package labenv is the lab's environment: the cluster and evidence dir a
// command works on, the engine and service manager the learner chose (and
// the state file that remembers them), and the files that choice renders,
// reconcile.sh and cnpa-op.service. The steps, check, reset, status and
// `cnpa service` all work through one Env.
package labenv

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/ui"
)

// LabCatchupWait is LAB.md step 7's "After 8 seconds read alpha's …".
const LabCatchupWait = 8 * time.Second

// Env is what every lab command works with: the cluster, the evidence dir,
// the learner's choices and their service. What only `cnpa step` needs
// (what it shows, --verbose, --force, step 7's wait) is the steps' own
// (steps.Lab), the kubectl way: flags, then options, then the run.
type Env struct {
	Dir     string
	Target  *kube.Target
	Clients *kube.Clients
	// Progress receives wait progress (stderr for people).
	Progress *ui.Printer
	// Engine is "go" or "shell"; Service runs cnpa-op.service.
	Engine  string
	Service service.Manager
	UnitDir string
	// CnpaPath is the absolute path of this cnpa binary, for reconcile.sh
	// and the unit of the Go engine.
	CnpaPath string
	// Timeout bounds each wait.
	Timeout time.Duration
	State   *State
}

// ArchiveDir is where the controller archives deleted TeamSpaces.
func (e *Env) ArchiveDir() string { return filepath.Join(e.Dir, evidence.ArchiveDir) }

// Options are the command line's choices for NewEnv; empty Engine or
// ServiceManager mean "as remembered, else the default".
type Options struct {
	Dir, Engine, ServiceManager, UnitDir string
	// ServiceIdentity is own or admin; empty means as remembered, else
	// Env.Identity's default (admin for a learner's own controller or unit).
	ServiceIdentity string
	Timeout         time.Duration
	Progress        *ui.Printer
}

// NewEnv builds the lab's environment. What the command line asks for
// replaces what the evidence dir remembers until evidence depends on it
// (State.EngineLocked, State.ServiceLocked); after that a different choice
// is refused, naming the step that locked it, since the evidence so far
// was made with the first.
func NewEnv(t *kube.Target, opts Options) (*Env, error) {
	clients, err := kube.NewClients(t)
	if err != nil {
		return nil, err
	}
	st, err := LoadState(opts.Dir)
	if err != nil {
		return nil, err
	}
	recovered := st == nil
	if recovered {
		st = recoveredState(opts.Dir)
	}
	if err := st.choose(opts); err != nil {
		return nil, err
	}
	if recovered {
		// Locked as the lab's files say, as a state of today would be
		// once written again (the unit dir is the one chosen now).
		st.EngineLocked = fileExists(filepath.Join(opts.Dir, lab.ReconcileFile))
		st.ServiceLocked = serviceInstalledBefore(opts.Dir, st)
	}
	// Unlike the engine, the identity may change between steps: step 4
	// installs the unit again with whatever was asked last.
	if opts.ServiceIdentity != "" {
		st.ServiceIdentity = opts.ServiceIdentity
	}
	if !identity.Valid(st.Identity()) {
		return nil, i18n.NewError("labenv.unknown_identity", i18n.Args{"Identity": fmt.Sprintf("%q", st.ServiceIdentity)})
	}
	if !validEngine(st.Engine) {
		return nil, i18n.NewError("labenv.unknown_engine", i18n.Args{"Engine": fmt.Sprintf("%q", st.Engine)})
	}
	if opts.ServiceManager == "systemd" && !service.SystemdRunning() {
		// Asked for by name: auto would quietly pick process mode, but
		// systemctl would only fail later, at step 4, with its own words.
		return nil, i18n.NewError("labenv.systemd_not_running", nil)
	}
	mgr, err := service.New(st.ServiceManager, st.UnitDir, opts.Dir)
	if err != nil {
		return nil, err
	}
	st.ServiceManager = mgr.Name() // remember what auto resolved to
	st.Kubeconfig = t.Path
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if self, err = filepath.EvalSymlinks(self); err != nil {
		return nil, err
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 3 * time.Minute
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	return &Env{Dir: dir, Target: t, Clients: clients, Progress: opts.Progress, Engine: st.Engine, Service: mgr,
		UnitDir: st.UnitDir, CnpaPath: self, Timeout: opts.Timeout, State: st}, nil
}

// DefaultUnitDir is where cnpa-op.service goes without --unit-dir.
const DefaultUnitDir = "/etc/systemd/system"

// choose applies the command line's engine, service manager and unit dir
// to the state, refusing one that differs from a locked choice.
func (s *State) choose(opts Options) error {
	if opts.Engine != "" && opts.Engine != s.Engine {
		if s.EngineLocked || fileExists(filepath.Join(opts.Dir, lab.ReconcileFile)) {
			return i18n.NewError("labenv.engine_locked", i18n.Args{"Asked": opts.Engine, "File": lab.ReconcileFile, "Engine": s.Engine})
		}
		s.Engine = opts.Engine
	}
	serviceLocked := s.ServiceLocked || (s.loaded && serviceInstalledBefore(opts.Dir, s))
	if m := opts.ServiceManager; m != "" && m != "auto" && m != s.ServiceManager {
		if serviceLocked {
			return i18n.NewError("labenv.manager_locked", i18n.Args{"Asked": m, "Unit": service.Name, "Manager": s.ServiceManager})
		}
		s.ServiceManager = m
	}
	if opts.UnitDir != "" {
		dir, err := filepath.Abs(opts.UnitDir)
		if err != nil {
			return fmt.Errorf("--unit-dir %s: %w", opts.UnitDir, err)
		}
		if dir != s.UnitDir {
			if serviceLocked {
				return i18n.NewError("labenv.unit_dir_locked", i18n.Args{"Asked": opts.UnitDir, "Unit": service.Name, "UnitDir": s.UnitDir})
			}
			s.UnitDir = dir
		}
	}
	return nil
}

// serviceInstalledBefore tells, for a state written before ServiceLocked
// existed (which locked every choice at step 1), whether step 4 has
// installed the service with the remembered manager and unit dir: the
// unit there serves this evidence dir, or process mode's command line is
// in the dir. Both are cnpa's and go with `cnpa reset`; an evidence file
// of a later step is no such proof, since reset keeps one the learner
// edited. None, and the choice is still open, as a state of today says.
func serviceInstalledBefore(dir string, s *State) bool {
	if fileExists(filepath.Join(dir, service.ArgvFile)) {
		return true
	}
	if s.UnitDir == "" {
		return false
	}
	unit, err := os.ReadFile(filepath.Join(s.UnitDir, service.Name))
	if err != nil {
		return false
	}
	served, ok := service.ServedDir(unit)
	abs, err := filepath.Abs(dir)
	return ok && err == nil && filepath.Clean(served) == abs
}

// fileExists: a state written before EngineLocked existed locked the
// engine at step 1; its reconcile.json tells whether step 3 depends on it.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// SaveState persists the engine and switches for later steps.
func (e *Env) SaveState() error {
	if err := os.MkdirAll(e.Dir, 0o755); err != nil {
		return err
	}
	return SaveState(e.Dir, e.State)
}

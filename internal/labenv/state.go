package labenv

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/labhub/cnpa/internal/atomicfile"
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/service"
)

// StateFile remembers the lab's choices in the evidence dir, so later steps,
// `cnpa service` and `cnpa check` use the engine and service manager the
// learner chose. It is not evidence and the grader ignores it. Step 1
// writes it first; a choice is locked only once evidence depends on it:
// the engine when step 3 has written reconcile.json (EngineLocked), the
// service manager and unit dir when step 4 has installed the unit
// (ServiceLocked). Until then a flag replaces what was remembered.
const StateFile = ".cnpa-state.json"

// State is the content of StateFile.
type State struct {
	Engine         string `json:"engine"`          // go or shell
	ServiceManager string `json:"service_manager"` // systemd or process
	UnitDir        string `json:"unit_dir"`
	Kubeconfig     string `json:"kubeconfig"`
	Finalizer      bool   `json:"finalizer"`
	// ServiceIdentity is whom the service acts as: "own" (the
	// cnpa-controller ServiceAccount, as a system user) or "admin" (root
	// with Kubeconfig). Empty, in a state written before it existed: own.
	ServiceIdentity string `json:"service_identity,omitempty"`
	// EngineLocked: step 3 wrote reconcile.json with Engine's reconcile.sh,
	// so another engine needs a fresh start.
	EngineLocked bool `json:"engine_locked,omitempty"`
	// ServiceLocked: step 4 installed cnpa-op.service with ServiceManager
	// in UnitDir, so another manager or unit dir needs a fresh start (the
	// running service and reset depend on them). A state written before
	// it existed is locked by what step 4 and later left instead
	// (serviceInstalledBefore), as EngineLocked is by reconcile.json.
	ServiceLocked bool `json:"service_locked,omitempty"`
	// ScriptSHA256 is the sha256 of the reconcile.sh step 3 ran when it
	// wrote reconcile.json: a learner's script that differs from it has
	// changed since, and step 3 runs and judges it again.
	ScriptSHA256 string `json:"script_sha256,omitempty"`
	// loaded: read from StateFile, not the defaults of a dir without one
	// (only a state on disk can be an older cnpa's).
	loaded bool
}

// Identity is the state's service identity, own when unset.
func (s *State) Identity() string {
	if s == nil || s.ServiceIdentity == "" {
		return identity.Own
	}
	return s.ServiceIdentity
}

// LoadState reads the state; a missing file is (nil, nil).
func LoadState(dir string) (*State, error) {
	var s State
	found, err := atomicfile.ReadJSON(filepath.Join(dir, StateFile), &s)
	var bad *atomicfile.DecodeError
	switch {
	case !found && err == nil:
		return nil, nil
	case errors.As(err, &bad):
		err = bad.Err
	case err != nil:
		return nil, err
	}
	if err != nil {
		// What a rerun does without it: recoveredState, and the step
		// writes it again (steps.runSteps, also for a step it keeps).
		p := filepath.Join(dir, StateFile)
		return nil, i18n.NewError("labenv.state_damaged", i18n.Args{"Path": p, "Err": err.Error(), "Quoted": QuoteArg(p)})
	}
	s.loaded = true
	return &s, nil
}

// OnDisk tells whether the state was read from StateFile or written there.
func (s *State) OnDisk() bool { return s != nil && s.loaded }

// recoveredState is the state of a dir without StateFile (never written,
// removed, or damaged and removed): the defaults, except for what the
// lab's files say. The engine and the finalizer switch are what the
// reconcile.sh cnpa installed says (ScriptFor marks each engine's; a
// script of neither is the learner's: own, once step 3 graded it), and
// process mode's command line in the dir says the manager. Without this,
// a state written again after step 6 would say finalizer off, and the
// next step would install a script and unit without it.
func recoveredState(dir string) *State {
	s := &State{Engine: EngineGo, ServiceManager: "auto", UnitDir: DefaultUnitDir}
	script, err := os.ReadFile(filepath.Join(dir, ScriptName))
	switch text := string(script); {
	case err != nil:
	case strings.Contains(text, goScriptMark):
		s.Engine, s.Finalizer = EngineGo, strings.Contains(text, " --finalizer=true\n")
	case strings.Contains(text, shellScriptMark):
		s.Engine, s.Finalizer = EngineShell, strings.Contains(text, `[ -n "${CNPA_FINALIZER:-}" ] || CNPA_FINALIZER=true`)
	case fileExists(filepath.Join(dir, lab.ReconcileFile)):
		// The learner's script does its own finalizer handling; step 6
		// turned it on once cleanup.json is there.
		s.Engine, s.Finalizer = EngineOwn, fileExists(filepath.Join(dir, lab.CleanupFile))
	}
	if fileExists(filepath.Join(dir, service.ArgvFile)) {
		s.ServiceManager = "process"
	}
	return s
}

// StartOver is the state a reset leaves: the choices (engine, service
// manager, unit dir, identity, kubeconfig) as they are, nothing locked
// (no evidence depends on them any more), the finalizer off as before
// step 6, and no script run by step 3.
func (s *State) StartOver() {
	s.EngineLocked, s.ServiceLocked, s.Finalizer, s.ScriptSHA256 = false, false, false, ""
}

// SaveState writes the state atomically.
func SaveState(dir string, s *State) error {
	if _, err := evidence.Write(dir, StateFile, s); err != nil {
		return err
	}
	s.loaded = true
	return nil
}

// ScriptSum is the sha256 of dir's reconcile.sh, hex; "" when there is none.
func ScriptSum(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, ScriptName))
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

package labenv

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/identity"
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
	data, err := os.ReadFile(filepath.Join(dir, StateFile))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%s: %w (remove it and run `cnpa step 3` again)", filepath.Join(dir, StateFile), err)
	}
	s.loaded = true
	return &s, nil
}

// SaveState writes the state atomically.
func SaveState(dir string, s *State) error {
	_, err := evidence.Write(dir, StateFile, s)
	return err
}

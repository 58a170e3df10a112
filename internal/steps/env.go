package steps

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/ui"
)

// Options are the command line's choices for NewEnv; empty Engine or
// ServiceManager mean "as remembered, else the default".
type Options struct {
	Dir, Engine, ServiceManager, UnitDir string
	CatchupWait, Timeout                 time.Duration
	Progress                             *ui.Printer
}

// NewEnv builds the step environment. The engine and service manager
// chosen first are remembered in the evidence dir; asking for another one
// later is refused, since the evidence so far was made by the first.
func NewEnv(t *kube.Target, opts Options) (*Env, error) {
	clients, err := kube.NewClients(t)
	if err != nil {
		return nil, err
	}
	st, err := evidence.LoadState(opts.Dir)
	if err != nil {
		return nil, err
	}
	if st == nil {
		st = &evidence.State{Engine: EngineGo, ServiceManager: "auto", UnitDir: "/etc/systemd/system"}
		if opts.Engine != "" {
			st.Engine = opts.Engine
		}
		if opts.ServiceManager != "" {
			st.ServiceManager = opts.ServiceManager
		}
		if opts.UnitDir != "" {
			st.UnitDir = opts.UnitDir
		}
	} else {
		if opts.Engine != "" && opts.Engine != st.Engine {
			return nil, fmt.Errorf("this evidence dir was started with --engine %s; to switch to %s start over with `cnpa reset --yes`", st.Engine, opts.Engine)
		}
		if opts.ServiceManager != "" && opts.ServiceManager != "auto" && opts.ServiceManager != st.ServiceManager {
			return nil, fmt.Errorf("this evidence dir uses --service-manager %s; to switch start over with `cnpa reset --yes`", st.ServiceManager)
		}
	}
	if st.Engine != EngineGo && st.Engine != EngineShell {
		return nil, fmt.Errorf("unknown engine %q: use go or shell", st.Engine)
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
	if opts.CatchupWait <= 0 {
		opts.CatchupWait = 8 * time.Second
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 3 * time.Minute
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	return &Env{Dir: dir, Target: t, Clients: clients, Progress: opts.Progress, Engine: st.Engine, Service: mgr,
		UnitDir: st.UnitDir, CnpaPath: self, CatchupWait: opts.CatchupWait, Timeout: opts.Timeout, State: st}, nil
}

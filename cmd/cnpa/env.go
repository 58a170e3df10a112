package main

import (
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/ui"
)

// labEnvFlags are shared by the commands that act on the lab's service.
var labEnvFlags = []cli.Flag{
	&cli.StringFlag{Name: "engine", Usage: "`ENGINE` behind reconcile.sh and the service: go, shell, or own (your own reconcile.sh) (default go; remembered in the evidence dir, locked at step 3)"},
	&cli.StringFlag{Name: "service-manager", Usage: "`MANAGER` for cnpa-op.service: auto, systemd or process (default auto: systemd when /run/systemd/system exists; remembered, locked at step 4)"},
	&cli.StringFlag{Name: "unit-dir", EnvVars: []string{"CNPA_UNIT_DIR"}, Usage: "`DIR` for cnpa-op.service (default /etc/systemd/system; remembered, locked at step 4)"},
	&cli.StringFlag{Name: "service-identity", Usage: "`WHO` the service acts as: own (the cnpa-controller ServiceAccount, least privilege, as system user cnpa-op under systemd) or admin (root with your kubeconfig) (default own; remembered in the evidence dir)"},
	&cli.DurationFlag{Name: "timeout", Value: 3 * time.Minute, Usage: "longest wait for any one condition", Action: positive("timeout")},
}

// labEnv builds the environment every lab command shares.
func labEnv(c *cli.Context) (*labenv.Env, error) {
	// The evidence dir first: it is a local fact the learner typed, and
	// with no usable kubeconfig its error would otherwise never be seen.
	dir, err := evidenceDir(c)
	if err != nil {
		return nil, err
	}
	t, err := target(c)
	if err != nil {
		return nil, err
	}
	env, err := labenv.NewEnv(t, labenv.Options{
		Dir: dir, Engine: c.String("engine"), ServiceManager: c.String("service-manager"), UnitDir: c.String("unit-dir"),
		ServiceIdentity: c.String("service-identity"),
		CatchupWait:     c.Duration("catchup-wait"), Timeout: c.Duration("timeout"), Force: c.Bool("force"),
		Progress: ui.New(os.Stderr, c.Bool("no-color")),
	})
	if err != nil {
		return nil, cli.Exit(err.Error(), 2)
	}
	return env, nil
}

package main

import (
	"context"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/ui"
)

// serviceFlags pick the service manager and unit dir, for every command
// that finds or acts on the service: what the evidence dir remembers is
// the default, and once step 4 has locked it (see labenv.State) a
// different one is refused.
var serviceFlags = []cli.Flag{
	&cli.StringFlag{Name: "service-manager", Usage: "`MANAGER` of cnpa-op.service: auto, systemd or process (default: what the evidence dir remembers, else auto: systemd when /run/systemd/system exists; remembered, locked at step 4)"},
	&cli.StringFlag{Name: "unit-dir", EnvVars: []string{"CNPA_UNIT_DIR"}, Usage: "`DIR` of cnpa-op.service (default: what the evidence dir remembers, else " + labenv.DefaultUnitDir + "; remembered, locked at step 4)"},
}

// labEnvFlags are shared by the commands that act on the lab's service:
// the engine, serviceFlags, the service's identity and the longest wait.
var labEnvFlags = flagList(
	[]cli.Flag{&cli.StringFlag{Name: "engine", Usage: "`ENGINE` behind reconcile.sh and the service: go, shell, or own (your own reconcile.sh) (default go; remembered in the evidence dir, locked at step 3)"}},
	serviceFlags,
	[]cli.Flag{
		&cli.StringFlag{Name: "service-identity", Usage: "`WHO` the service acts as: own (the cnpa-controller ServiceAccount, least privilege, as system user cnpa-op under systemd) or admin (root with your kubeconfig) (default: admin for your own reconcile.sh or unit, as the lab text's service runs; own for cnpa's go and shell engines; remembered in the evidence dir once step 4 installs the service)"},
		&cli.DurationFlag{Name: "timeout", Value: 3 * time.Minute, Usage: "longest wait for any one condition", Action: positive("timeout")},
	},
)

// flagList joins lists of flags into a new one (append to a shared list
// would write into its spare capacity).
func flagList(lists ...[]cli.Flag) []cli.Flag {
	var out []cli.Flag
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// labEnv builds the environment every lab command shares: the global
// flags' cluster and evidence dir, progress on errOut, and what the
// command's own flags say (opts: engine, service, timeout; a command that
// has no such flag leaves it zero, which is what the evidence dir
// remembers, else labenv's default).
func labEnv(g *globalOptions, errOut io.Writer, opts labenv.Options) (*labenv.Env, error) {
	// The evidence dir first: it is a local fact the learner typed, and
	// with no usable kubeconfig its error would otherwise never be seen.
	dir, err := evidenceDir(g.Dir)
	if err != nil {
		return nil, err
	}
	t, err := target(g)
	if err != nil {
		return nil, err
	}
	opts.Dir, opts.Progress = dir, ui.New(errOut, g.NoColor)
	env, err := labenv.NewEnv(t, opts)
	if err != nil {
		return nil, cli.Exit(err.Error(), 2)
	}
	// A drop-in of a cnpa stress run that died before its cleanup points
	// the service at a proxy that is gone: every lab command notices it,
	// says so, and puts the service back on its own kubeconfig.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if left, err := service.RepairLeftovers(ctx, env.Service); len(left) > 0 {
		opts.Progress.Warn("%s", service.SayLeftovers(left, err))
	}
	return env, nil
}

package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/controller"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/stress"
)

// controllerGCPercent is `cnpa controller`'s GOGC unless the environment
// sets one.
const controllerGCPercent = 50

var controllerCommand = &cli.Command{
	Name:  "controller",
	Usage: "run the TeamSpace controller (what cnpa-op.service runs)",
	Description: "Level-triggered: every pass compares each TeamSpace's spec with the\n" +
		"live namespace, quota and status and closes the gap. Runs until SIGTERM\n" +
		"or SIGINT; --once makes one pass and exits (0 all converged, 1 any failed).\n\n" +
		"Watches carry every change to a worker at once. The periodic full pass\n" +
		"(--interval, 3s after the previous pass ended) is only the safety net for\n" +
		"an event that was lost: it looks at every TeamSpace in the cache and\n" +
		"hands a worker those whose TeamSpace, namespace or quota changed since a\n" +
		"sync last found them in order, one at a time, only while no event is\n" +
		"waiting, pausing so that it takes at most a tenth of the time. It starts\n" +
		"every 3s, as the lab text's loop does, at every size: in a steady state a pass\n" +
		"over 10,000 TeamSpaces takes 30-120ms and syncs none (make bench-scale).\n" +
		"cnpa_resync_pass_seconds and cnpa_resync_pass_synced tell how long the\n" +
		"last pass took and how many it synced.",
	Flags: []cli.Flag{
		&cli.BoolFlag{Name: "once", Usage: "one full pass over every TeamSpace, then exit"},
		&cli.StringFlag{Name: "archive-dir", EnvVars: []string{"CNPA_ARCHIVE_DIR"}, Usage: "`DIR` for <name>.json archive records (default: <dir>/archive)"},
		&cli.BoolFlag{Name: "finalizer", Value: true, Usage: "add platform.labhub.io/cleanup to TeamSpaces (off: never add it, still honour it)"},
		&cli.DurationFlag{Name: "interval", Value: 3 * time.Second, Usage: "pause between two periodic full passes (see above)", Action: positive("interval")},
		&cli.IntFlag{Name: "workers", Value: controller.DefaultWorkers, Usage: "TeamSpaces reconciled in parallel", Action: atLeast("workers", 1)},
		&cli.StringFlag{Name: "metrics-addr", Usage: "serve Prometheus /metrics on `ADDR` (e.g. 127.0.0.1:9090); off when empty"},
		&cli.StringFlag{Name: "health-addr", Usage: "serve /healthz and /readyz on `ADDR`; off when empty"},
		&cli.BoolFlag{Name: "leader-elect", Usage: "hold a Lease so only one running controller writes"},
		&cli.StringFlag{Name: "leader-elect-namespace", Value: "kube-system", Usage: "namespace of the Lease"},
		&cli.StringFlag{Name: "leader-elect-name", Value: "cnpa-op", Usage: "name of the Lease"},
		&cli.DurationFlag{Name: "leader-elect-lease-duration", Value: 15 * time.Second, Usage: "how long a lease holds without renewal", Action: positive("leader-elect-lease-duration")},
		&cli.DurationFlag{Name: "leader-elect-renew-deadline", Value: 10 * time.Second, Usage: "how long the leader retries renewing", Action: positive("leader-elect-renew-deadline")},
		&cli.DurationFlag{Name: "leader-elect-retry-period", Value: 2 * time.Second, Usage: "how often candidates retry", Action: positive("leader-elect-retry-period")},
	},
	Action: func(c *cli.Context) error { return runOptions(c, &ControllerOptions{IOStreams: streamsOf(c)}) },
}

// ControllerOptions are `cnpa controller`'s flags.
type ControllerOptions struct {
	IOStreams
	globalOptions
	Once, Finalizer, LeaderElect bool
	// ArchiveDir is --archive-dir, "" for <dir>/archive.
	ArchiveDir              string
	Interval                time.Duration
	Workers                 int
	MetricsAddr, HealthAddr string
	// LeaderElection is the Lease, with --leader-elect.
	LeaderElection controller.LeaderElection
}

// Complete reads the command line into o.
func (o *ControllerOptions) Complete(c *cli.Context) error {
	o.globalOptions.complete(c)
	o.Once, o.Finalizer, o.LeaderElect = c.Bool("once"), c.Bool("finalizer"), c.Bool("leader-elect")
	o.ArchiveDir, o.Interval, o.Workers = c.String("archive-dir"), c.Duration("interval"), c.Int("workers")
	o.MetricsAddr, o.HealthAddr = c.String("metrics-addr"), c.String("health-addr")
	o.LeaderElection = controller.LeaderElection{
		Namespace: c.String("leader-elect-namespace"), Name: c.String("leader-elect-name"),
		LeaseDuration: c.Duration("leader-elect-lease-duration"),
		RenewDeadline: c.Duration("leader-elect-renew-deadline"),
		RetryPeriod:   c.Duration("leader-elect-retry-period"),
	}
	return nil
}

// Validate has nothing to refuse: the numeric flags are checked where
// they are parsed (positive, atLeast).
func (o *ControllerOptions) Validate() error { return nil }

// Run runs the controller until ctx ends, SIGTERM or SIGINT (once: one
// pass, exit 1 when a TeamSpace failed); it logs to ErrOut.
func (o *ControllerOptions) Run(ctx context.Context) error {
	var t *kube.Target
	var err error
	if kc := os.Getenv(stress.KubeconfigVar); kc != "" {
		// cnpa stress's drop-in: the proxy's kubeconfig wins over the
		// unit's --kubeconfig and --context (it has one context). Read as
		// data only: no command, no file path, loopback TLS pinned.
		t, err = stress.LoadKubeconfig(kc)
		var ce *kube.ConfigError
		if errors.As(err, &ce) {
			return cli.Exit(ce.Msg, 2)
		}
	} else {
		t, err = target(&o.globalOptions)
	}
	if err != nil {
		return err
	}
	archive := o.ArchiveDir
	if archive == "" {
		archive = filepath.Join(o.Dir, "archive")
	}
	log := slog.New(slog.NewTextHandler(o.ErrOut, nil))
	if os.Getenv("GOGC") == "" {
		// The controller lives as long as the VM, and its live heap is
		// small; Go's default GOGC=100 lets the heap double before
		// collecting. At 50 the peak stays lower for a few more short
		// collections during bursts (make bench measures both).
		// GOGC in the environment overrides this.
		debug.SetGCPercent(controllerGCPercent)
	}
	ctrl, err := controller.New(t.Config, controller.Config{
		ArchiveDir: archive, Finalizer: o.Finalizer, Interval: o.Interval,
		Workers: o.Workers, Logger: log,
	})
	if err != nil {
		return cli.Exit(err.Error(), 2)
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	if o.Once {
		failures, err := ctrl.Once(ctx)
		if err != nil {
			return cli.Exit(i18n.T("cli.controller.pass_failed", i18n.Args{"Server": t.Server, "Path": t.Path, "Err": err}), 1)
		}
		for _, f := range failures {
			fmt.Fprintln(o.ErrOut, f.Error())
		}
		if len(failures) > 0 {
			return failed()
		}
		return nil
	}

	serve := func(name, addr string, fn func(context.Context, string) error) {
		if addr == "" {
			return
		}
		go func() {
			if err := fn(ctx, addr); err != nil {
				log.Error("cannot serve "+name, "addr", addr, "err", err)
			}
		}()
	}
	serve("metrics", o.MetricsAddr, ctrl.ServeMetrics)
	serve("health", o.HealthAddr, ctrl.ServeHealth)
	log.Info("cnpa controller starting", "version", version, "server", serverForLog(t.Server), "kubeconfig", t.Path)
	if !o.LeaderElect {
		return ctrl.Run(ctx)
	}
	err = ctrl.RunLeaderElected(ctx, o.LeaderElection)
	if errors.Is(err, controller.ErrLostLease) {
		return cli.Exit(i18n.T("cli.controller.lost_lease", i18n.Args{"Err": err}), 1)
	}
	return err
}

// serverForLog is a server URL as a log line may carry it: its scheme,
// host and port, never a path or user info, which could hold a secret.
func serverForLog(server string) string {
	u, err := url.Parse(server)
	if err != nil || u.Host == "" {
		return "-"
	}
	return u.Scheme + "://" + u.Host
}

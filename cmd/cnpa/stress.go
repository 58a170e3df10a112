package main

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/stress"
	"github.com/labhub/cnpa/internal/ui"
)

var stressCommand = &cli.Command{
	Name:  "stress",
	Usage: "put the running controller through the faults a real cluster gives, each judged on its own",
	Description: "Starts a proxy on loopback between cnpa-op.service and the API server (a\n" +
		"drop-in points the service's KUBECONFIG at it; your files are not touched),\n" +
		"then, one at a time: kill -9 of the service mid-pass, 409 Conflicts, 500s,\n" +
		"timeouts, stale reads, dropped watches and connections, added latency, a\n" +
		"burst of changes, a TeamSpace no quota can serve, and one deleted and made\n" +
		"again. After each: every TeamSpace converged within the bound, each deleted\n" +
		"one archived before its release, foreign finalizers kept, nothing recreated,\n" +
		"then no write for 3 whole passes (stable), the service running.\n" +
		"Ctrl-C stops every fault, removes the drop-in and restarts the service.\n\n" +
		"The result is kept in <dir>/.cnpa/stress.json; `cnpa check` and `cnpa report`\n" +
		"show it as a section of its own, apart from the lab's grade.\n\n" +
		"Exit code 0 when every fault passes, 1 when any fails, 2 when the service\n" +
		"or the cluster cannot be stressed, or the run is interrupted.",
	Flags: append([]cli.Flag{
		&cli.StringFlag{Name: "faults", Value: "all", Usage: "`LIST` of faults to run, comma-separated: kill9, conflict, error, timeout, stale, drop, latency, burst, poison, recreate; only when named: blackhole, restart, gone, forbidden, throttle"},
		&cli.DurationFlag{Name: "bound", Value: 30 * time.Second, Usage: "how long the controller has to converge after each fault", Action: positive("bound")},
	}, serviceFlags...),
	Action: func(c *cli.Context) error { return runOptions(c, &StressOptions{IOStreams: streamsOf(c)}) },
}

// StressOptions are `cnpa stress`'s flags.
type StressOptions struct {
	IOStreams
	globalOptions
	serviceOptions
	// Faults is --faults as typed: a comma-separated list, or all.
	Faults string
	// Bound is how long the controller has to converge after each fault.
	Bound time.Duration

	faults []string // Faults parsed, set by Validate
	out    string   // -o, set by Validate
}

// Complete reads the command line into o.
func (o *StressOptions) Complete(c *cli.Context) error {
	o.globalOptions.complete(c)
	o.serviceOptions.complete(c)
	o.Faults, o.Bound = c.String("faults"), c.Duration("bound")
	return nil
}

// Validate refuses an -o stress does not print and a fault there is none of.
func (o *StressOptions) Validate() error {
	out, err := output(&o.globalOptions, "text", "json")
	if err != nil {
		return err
	}
	faults, err := stress.ParseFaults(o.Faults)
	if err != nil {
		return usageError("%s", err.Error())
	}
	o.faults, o.out = faults, out
	return nil
}

// Run puts the service through each fault and prints the verdicts: exit
// 1 when a fault fails, 2 when the service or the cluster cannot be
// stressed or the run is interrupted.
func (o *StressOptions) Run(ctx context.Context) error {
	if err := needEvidenceDir(o.Dir); err != nil {
		return err
	}
	env, err := labEnv(&o.globalOptions, o.ErrOut, o.serviceOptions.envOptions())
	if err != nil {
		return err
	}
	progress := ui.New(o.ErrOut, o.NoColor)
	rep, err := stress.Run(ctx, env, stress.Options{Faults: o.faults, Bound: o.Bound, Progress: progress})
	var envErr *stress.EnvError
	switch {
	case ctx.Err() != nil && rep == nil:
		// Ctrl-C, SIGTERM or SIGHUP: Run's cleanup has run. Say so,
		// and what it could not put back, not "context canceled".
		msg := i18n.T("stress.interrupted")
		if rest := strings.TrimSpace(strings.TrimPrefix(err.Error(), context.Canceled.Error())); rest != "" {
			msg += "\n" + rest
		}
		return cli.Exit(ui.CleanLines(msg), 2)
	case errors.As(err, &envErr):
		return cli.Exit(ui.CleanLines(err.Error()), 2)
	case err != nil && rep == nil:
		// It may carry the API server's error text.
		return cli.Exit(ui.CleanLines(err.Error()), 2)
	case err != nil:
		// The run is judged, its cleanup had trouble: said, kept.
		progress.Warn("%s", ui.CleanLines(err.Error()))
	}
	if err := judge.SaveStress(env.Dir, rep); err != nil {
		progress.Warn("%s", i18n.T("cli.submit.not_kept", i18n.Args{"Err": err.Error()}))
	}
	if o.out == "json" {
		if err := ui.WriteJSON(o.Out, rep); err != nil {
			return err
		}
	} else {
		judge.WriteStressText(printer(o.Out, o.NoColor), rep)
	}
	if !rep.OK() {
		return failed()
	}
	return nil
}

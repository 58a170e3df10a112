package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/status"
	"github.com/labhub/cnpa/internal/ui"
)

var statusCommand = &cli.Command{
	Name:  "status",
	Usage: "every TeamSpace: spec, namespace, generation vs observedGeneration, live quota, drift, finalizers; and the service",
	Description: "SYNC is \"in sync\" when status.observedGeneration = metadata.generation (the\n" +
		"controller acted on the current spec), else how many generations it is behind.\n" +
		"DRIFT marks a quota that is missing or differs from the spec. QUOTA is the live\n" +
		"team-quota's pods/cpu. The table fits 80 columns (long names end in …);\n" +
		"-o wide shows every column and whole names, -o json everything as data.",
	Flags: append([]cli.Flag{
		&cli.BoolFlag{Name: "watch", Aliases: []string{"w"}, Usage: "refresh every --interval until Ctrl-C"},
		&cli.DurationFlag{Name: "interval", Value: 2 * time.Second, Usage: "refresh period with --watch", Action: positive("interval")},
	}, serviceFlags...),
	Action: func(c *cli.Context) error { return runOptions(c, &StatusOptions{IOStreams: streamsOf(c)}) },
}

// StatusOptions are `cnpa status`'s flags.
type StatusOptions struct {
	IOStreams
	globalOptions
	serviceOptions
	Watch    bool
	Interval time.Duration

	out string // -o, set by Validate
}

// Complete reads the command line into o.
func (o *StatusOptions) Complete(c *cli.Context) error {
	o.globalOptions.complete(c)
	o.serviceOptions.complete(c)
	o.Watch, o.Interval = c.Bool("watch"), c.Duration("interval")
	return nil
}

// Validate refuses an -o status does not print.
func (o *StatusOptions) Validate() (err error) {
	o.out, err = output(&o.globalOptions, "text", "wide", "json")
	return err
}

// Run prints the table once, or (--watch) every Interval until ctx ends.
func (o *StatusOptions) Run(ctx context.Context) error {
	out := o.out
	env, err := labEnv(&o.globalOptions, o.ErrOut, o.serviceOptions.envOptions())
	if err != nil {
		return err
	}
	show := func(ctx context.Context) error {
		s, err := status.Take(ctx, env.Clients, env.Service)
		if err != nil {
			return cli.Exit(i18n.T("cli.cannot_read_cluster", i18n.Args{"Server": env.Target.Server, "Path": env.Target.Path, "Err": ui.CleanLines(err.Error())}), 2)
		}
		if out == "json" {
			return status.WriteJSON(o.Out, s)
		}
		if o.Watch {
			if isTerminal(o.Out) {
				fmt.Fprint(o.Out, "\033[H\033[2J") // home and clear: redraw in place
			}
			printer(o.Out, o.NoColor).Note("%s", i18n.T("cli.status.watching", i18n.Args{"Time": s.Time.Local().Format("15:04:05"), "Interval": o.Interval}))
		}
		if out == "wide" {
			status.WriteWide(printer(o.Out, o.NoColor), s)
		} else {
			status.WriteText(printer(o.Out, o.NoColor), s)
		}
		return nil
	}
	if !o.Watch {
		return show(ctx)
	}
	tick := time.NewTicker(o.Interval)
	defer tick.Stop()
	for {
		if err := show(ctx); err != nil && ctx.Err() == nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil // Ctrl-C is how --watch ends
		case <-tick.C:
		}
	}
}

// isTerminal tells whether w is a terminal (a buffer is none).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

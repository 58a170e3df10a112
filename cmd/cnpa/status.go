package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/status"
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
	Action: func(c *cli.Context) error {
		out, err := output(c, "text", "wide", "json")
		if err != nil {
			return err
		}
		env, err := labEnv(c)
		if err != nil {
			return err
		}
		ctx := c.Context // cancelled by Ctrl-C, SIGTERM or SIGHUP (see run)
		show := func(ctx context.Context) error {
			s, err := status.Take(ctx, env.Clients, env.Service)
			if err != nil {
				return cli.Exit(i18n.T("cli.cannot_read_cluster", i18n.Args{"Server": env.Target.Server, "Path": env.Target.Path, "Err": err.Error()}), 2)
			}
			if out == "json" {
				return status.WriteJSON(os.Stdout, s)
			}
			if c.Bool("watch") {
				if isTerminal(os.Stdout) {
					fmt.Print("\033[H\033[2J") // home and clear: redraw in place
				}
				printer(c).Note("%s", i18n.T("cli.status.watching", i18n.Args{"Time": s.Time.Local().Format("15:04:05"), "Interval": c.Duration("interval")}))
			}
			if out == "wide" {
				status.WriteWide(printer(c), s)
			} else {
				status.WriteText(printer(c), s)
			}
			return nil
		}
		if !c.Bool("watch") {
			return show(ctx)
		}
		tick := time.NewTicker(c.Duration("interval"))
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
	},
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

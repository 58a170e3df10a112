package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/ui"
)

var serviceCommand = &cli.Command{
	Name:  "service",
	Usage: "start, stop, restart or inspect cnpa-op.service (systemd unit or detached process)",
	Subcommands: []*cli.Command{
		{Name: "start", Usage: "start the controller service", Flags: labEnvFlags, Action: serviceAction(func(ctx context.Context, _ *ServiceOptions, m service.Manager) error { return m.Start(ctx) })},
		{Name: "stop", Usage: "stop the controller service", Flags: labEnvFlags, Action: serviceAction(func(ctx context.Context, _ *ServiceOptions, m service.Manager) error { return m.Stop(ctx) })},
		{Name: "restart", Usage: "restart the controller service", Flags: labEnvFlags, Action: serviceAction(func(ctx context.Context, _ *ServiceOptions, m service.Manager) error { return m.Restart(ctx) })},
		{Name: "status", Usage: "is the unit installed, enabled, active; its main pid", Flags: labEnvFlags, Action: serviceAction(func(ctx context.Context, o *ServiceOptions, m service.Manager) error {
			st, err := m.Status(ctx)
			if err != nil {
				return err
			}
			if o.Output == "json" {
				return ui.WriteJSON(o.Out, st)
			}
			p := printer(o.Out, o.NoColor)
			p.Line("%s", i18n.T("cli.service.unit", i18n.Args{"Name": service.Name, "Manager": st.Manager, "Path": st.UnitPath}))
			p.Verdict(st.Installed, "installed", st.Installed, true) // the names are Status's JSON fields
			p.Verdict(st.Enabled, "enabled", st.Enabled, true)
			p.Verdict(st.Active, "active", st.Active, true)
			p.Line("  %s", i18n.T("cli.service.main_pid", i18n.Args{"PID": st.MainPID}))
			if !st.Active {
				return failed()
			}
			return nil
		})},
		{Name: "logs", Usage: "the last lines of the controller's log", Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "lines", Aliases: []string{"n"}, Value: 50, Usage: "how many lines", Action: atLeast("lines", 0)},
		}, labEnvFlags...), Action: serviceAction(func(ctx context.Context, o *ServiceOptions, m service.Manager) error {
			return m.Logs(ctx, o.Lines, o.Out)
		})},
	},
}

// serviceAction is the Action of a `cnpa service` subcommand that does do
// with the lab's service.
func serviceAction(do func(context.Context, *ServiceOptions, service.Manager) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		return runOptions(c, &ServiceOptions{IOStreams: streamsOf(c), do: do})
	}
}

// ServiceOptions are the flags of a `cnpa service` subcommand, and what it
// does with the service.
type ServiceOptions struct {
	IOStreams
	globalOptions
	labEnvOptions
	// Lines is `service logs`' --lines.
	Lines int

	do func(context.Context, *ServiceOptions, service.Manager) error
}

// Complete reads the command line into o.
func (o *ServiceOptions) Complete(c *cli.Context) error {
	o.globalOptions.complete(c)
	o.labEnvOptions.complete(c)
	if c.Command.Name == "logs" {
		o.Lines = c.Int("lines")
	}
	return nil
}

// Validate has nothing to refuse: `service status` prints text for any
// -o but json, as it always has.
func (o *ServiceOptions) Validate() error { return nil }

// Run does the subcommand's work with the service.
func (o *ServiceOptions) Run(ctx context.Context) error {
	env, err := labEnv(&o.globalOptions, o.ErrOut, o.labEnvOptions.envOptions())
	if err != nil {
		return err
	}
	if err := o.do(ctx, o, env.Service); err != nil {
		return fmt.Errorf("%s: %w", service.Name, err)
	}
	return nil
}

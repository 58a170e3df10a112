package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/ui"
)

var serviceCommand = &cli.Command{
	Name:  "service",
	Usage: "start, stop, restart or inspect cnpa-op.service (systemd unit or detached process)",
	Subcommands: []*cli.Command{
		{Name: "start", Usage: "start the controller service", Flags: labEnvFlags, Action: serviceAction(func(ctx context.Context, _ *ServiceOptions, env *labenv.Env) error {
			return env.StartService(ctx, false)
		})},
		{Name: "stop", Usage: "stop the controller service", Flags: labEnvFlags, Action: serviceAction(func(ctx context.Context, _ *ServiceOptions, env *labenv.Env) error { return env.Service.Stop(ctx) })},
		{Name: "restart", Usage: "restart the controller service", Flags: labEnvFlags, Action: serviceAction(func(ctx context.Context, _ *ServiceOptions, env *labenv.Env) error {
			return env.StartService(ctx, true)
		})},
		{Name: "status", Usage: "is the unit installed, enabled, active; its main pid", Flags: labEnvFlags, Action: serviceAction(func(ctx context.Context, o *ServiceOptions, env *labenv.Env) error {
			st, err := env.Service.Status(ctx)
			if err != nil {
				return err
			}
			if o.Output == "json" {
				return ui.WriteJSON(o.Out, st)
			}
			printServiceStatus(printer(o.Out, o.NoColor), st)
			if !st.Active {
				return failed() // its reason is the ✗ line and the line under it
			}
			return nil
		})},
		{Name: "logs", Usage: "the last lines of the controller's log", Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "lines", Aliases: []string{"n"}, Value: 50, Usage: "how many lines", Action: atLeast("lines", 0)},
		}, labEnvFlags...), Action: serviceAction(func(ctx context.Context, o *ServiceOptions, env *labenv.Env) error {
			return env.Service.Logs(ctx, o.Lines, o.Out)
		})},
	},
}

// serviceAction is the Action of a `cnpa service` subcommand that does do
// with the lab's service.
func serviceAction(do func(context.Context, *ServiceOptions, *labenv.Env) error) cli.ActionFunc {
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

	do func(context.Context, *ServiceOptions, *labenv.Env) error
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
	if err := o.do(ctx, o, env); err != nil {
		return fmt.Errorf("%s: %w", service.Name, err)
	}
	return nil
}

// printServiceStatus is `cnpa service status` for people: the unit, then
// installed, enabled and running, each in the learner's language (-o
// json keeps Status's field names), and what to do when it is stopped.
func printServiceStatus(p *ui.Printer, st service.Status) {
	yes, no := i18n.T("cli.service.yes"), i18n.T("cli.service.no")
	p.Line("%s", i18n.T("cli.service.unit", i18n.Args{"Name": service.Name, "Manager": st.Manager, "Path": st.UnitPath}))
	p.Verdict(st.Installed, i18n.T("cli.service.installed"), pick(st.Installed, yes, no), yes)
	p.Verdict(st.Enabled, i18n.T("cli.service.enabled"), pick(st.Enabled, yes, no), yes)
	running := i18n.T("cli.service.running", i18n.Args{"PID": st.MainPID})
	switch {
	case st.Restarting:
		running = i18n.T("cli.service.restarting")
	case !st.Active:
		running = i18n.T("cli.service.stopped")
	}
	p.Verdict(st.Active, i18n.T("cli.service.active"), running, i18n.T("cli.service.want_running"))
	if !st.Active {
		p.Line("  %s", i18n.T("cli.service.start_it"))
	}
}

// pick is a when ok, else b.
func pick(ok bool, a, b string) string {
	if ok {
		return a
	}
	return b
}

package main

import (
	"fmt"
	"os"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/ui"
)

var serviceCommand = &cli.Command{
	Name:  "service",
	Usage: "start, stop, restart or inspect cnpa-op.service (systemd unit or detached process)",
	Subcommands: []*cli.Command{
		{Name: "start", Usage: "start the controller service", Flags: labEnvFlags, Action: serviceAction(func(c *cli.Context, m service.Manager) error { return m.Start(c.Context) })},
		{Name: "stop", Usage: "stop the controller service", Flags: labEnvFlags, Action: serviceAction(func(c *cli.Context, m service.Manager) error { return m.Stop(c.Context) })},
		{Name: "restart", Usage: "restart the controller service", Flags: labEnvFlags, Action: serviceAction(func(c *cli.Context, m service.Manager) error { return m.Restart(c.Context) })},
		{Name: "status", Usage: "is the unit installed, enabled, active; its main pid", Flags: labEnvFlags, Action: serviceAction(func(c *cli.Context, m service.Manager) error {
			st, err := m.Status(c.Context)
			if err != nil {
				return err
			}
			if c.String("output") == "json" {
				return ui.WriteJSON(os.Stdout, st)
			}
			p := printer(c)
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
		}, labEnvFlags...), Action: serviceAction(func(c *cli.Context, m service.Manager) error {
			return m.Logs(c.Context, c.Int("lines"), os.Stdout)
		})},
	},
}

func serviceAction(fn func(*cli.Context, service.Manager) error) cli.ActionFunc {
	return func(c *cli.Context) error {
		env, err := labEnv(c)
		if err != nil {
			return err
		}
		if err := fn(c, env.Service); err != nil {
			return fmt.Errorf("%s: %w", service.Name, err)
		}
		return nil
	}
}

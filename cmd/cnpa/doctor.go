package main

import (
	"os"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/doctor"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/ui"
)

var doctorCommand = &cli.Command{
	Name:  "doctor",
	Usage: "preflight: cluster, kubeconfig, CRD, kubectl, jq, systemd, evidence dir",
	Description: "Exit code 0 when everything needed passes, 1 otherwise, 2 when the\n" +
		"cluster cannot be reached at all.",
	Action: func(c *cli.Context) error {
		out, err := output(c, "text", "json")
		if err != nil {
			return err
		}
		r := doctor.Run(c.Context, c.String("kubeconfig"), c.String("context"), c.String("dir"))
		if out == "json" {
			if err := ui.WriteJSON(os.Stdout, r); err != nil {
				return err
			}
		} else {
			p := printer(c)
			for _, x := range r.Results {
				detail := x.Detail
				if x.Fix != "" && !x.OK {
					detail += i18n.T("doctor.fix", i18n.Args{"Fix": x.Fix})
				}
				if x.OK && x.Warning != "" {
					p.StatusWarn(x.Name, detail+" — "+x.Warning)
					continue
				}
				p.Status(x.OK, x.Name, detail)
			}
		}
		if r.Unreachable {
			for _, x := range r.Results {
				if !x.OK && (x.Name == "api server" || x.Name == "kubeconfig") {
					return cli.Exit(i18n.T("doctor.unreachable", i18n.Args{"Detail": x.Detail}), 2)
				}
			}
		}
		if !r.OK() {
			return failed()
		}
		return nil
	},
}

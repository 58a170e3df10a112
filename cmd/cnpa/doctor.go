package main

import (
	"context"
	"strings"

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
	Action: func(c *cli.Context) error { return runOptions(c, &DoctorOptions{IOStreams: streamsOf(c)}) },
}

// DoctorOptions are `cnpa doctor`'s: the global flags only.
type DoctorOptions struct {
	IOStreams
	globalOptions

	out string // -o, set by Validate
}

// Complete reads the command line into o.
func (o *DoctorOptions) Complete(c *cli.Context) error {
	o.globalOptions.complete(c)
	return nil
}

// Validate refuses an -o doctor does not print.
func (o *DoctorOptions) Validate() (err error) {
	o.out, err = output(&o.globalOptions, "text", "json")
	return err
}

// Run checks everything the lab needs and prints each result: exit 1
// when one needed fails, 2 when the cluster cannot be reached.
func (o *DoctorOptions) Run(ctx context.Context) error {
	r := doctor.Run(ctx, o.Kubeconfig, o.Context, o.Dir)
	if o.out == "json" {
		if err := ui.WriteJSON(o.Out, r); err != nil {
			return err
		}
	} else {
		p := printer(o.Out, o.NoColor)
		for _, x := range r.Results {
			detail := x.Detail
			if x.Fix != "" && !x.OK {
				detail += i18n.T("doctor.fix", i18n.Args{"Fix": x.Fix})
			}
			if x.OK && x.Warning != "" {
				p.StatusWarn(doctorLabel(x.Name), detail+" — "+x.Warning)
				continue
			}
			p.Status(x.OK, doctorLabel(x.Name), detail)
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
}

// doctorLabel is a check's name in the learner's language (-o json keeps
// the name); a tool's name (jq, python3) is said as it is.
func doctorLabel(name string) string {
	id := "doctor.label." + strings.ReplaceAll(name, " ", "_")
	if said := i18n.T(id); said != id {
		return said
	}
	return name
}

package main

import (
	"bufio"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/internal/reset"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/ui"
)

var resetCommand = &cli.Command{
	Name:  "reset",
	Usage: "put the cluster and the evidence dir back to before step 1, to start the lab over",
	Description: "Stops and removes cnpa-op.service, deletes every TeamSpace (archiving the ones\n" +
		"carrying platform.labhub.io/cleanup and removing only that finalizer), deletes\n" +
		"their namespaces (by the controller's own test: team-<name> with a controller\n" +
		"ownerReference to that TeamSpace), deletes the CRD and removes the files cnpa\n" +
		"wrote (listed in <dir>/.cnpa/manifest.jsonl). Your own evidence files (written\n" +
		"by hand, or changed since cnpa wrote them) are moved into <dir>/own-<time>/, so\n" +
		"that `cnpa step all` measures the lab again; your reconcile.sh, crd.yaml,\n" +
		"alpha.yaml and unit stay where they are. The lab's choices (engine, service\n" +
		"manager, unit dir, service identity) stay in .cnpa-state.json, unlocked: a flag\n" +
		"of the next `cnpa step` changes them. Archive records cnpa wrote stay unless\n" +
		"--purge. Asks first unless --yes.",
	Flags: append([]cli.Flag{
		&cli.BoolFlag{Name: "yes", Aliases: []string{"y"}, Usage: "do not ask for confirmation"},
		&cli.BoolFlag{Name: "purge", Usage: "also remove the archive records cnpa wrote (archive/<name>.json listed in archive/.cnpa/manifest.jsonl)"},
		&cli.DurationFlag{Name: "timeout", Value: 3 * time.Minute, Usage: "longest wait for any one condition", Action: positive("timeout")},
	}, serviceFlags...),
	Action: func(c *cli.Context) error { return runOptions(c, &ResetOptions{IOStreams: streamsOf(c)}) },
}

// ResetOptions are `cnpa reset`'s flags.
type ResetOptions struct {
	IOStreams
	globalOptions
	serviceOptions
	Yes, Purge bool
	// Timeout is the longest wait for any one condition.
	Timeout time.Duration

	out string // -o, set by Validate
}

// Complete reads the command line into o.
func (o *ResetOptions) Complete(c *cli.Context) error {
	o.globalOptions.complete(c)
	o.serviceOptions.complete(c)
	o.Yes, o.Purge, o.Timeout = c.Bool("yes"), c.Bool("purge"), c.Duration("timeout")
	return nil
}

// Validate refuses an -o reset does not print.
func (o *ResetOptions) Validate() (err error) {
	o.out, err = output(&o.globalOptions, "text", "json")
	return err
}

// Run says what it will remove and asks on In (unless --yes), then puts
// the cluster and the evidence dir back: exit 1 when declined or not
// done, 2 when the cluster cannot be read.
func (o *ResetOptions) Run(ctx context.Context) error {
	out := o.out
	opts := o.serviceOptions.envOptions()
	opts.Timeout = o.Timeout
	env, err := labEnv(&o.globalOptions, o.ErrOut, opts)
	if err != nil {
		return err
	}
	plan, err := reset.Inspect(ctx, env, theLab.Lab(), o.Purge)
	if err != nil {
		return cli.Exit(i18n.T("cli.cannot_read_cluster", i18n.Args{"Server": env.Target.Server, "Path": env.Target.Path, "Err": err}), 2)
	}
	p := printer(o.Out, o.NoColor)
	if !o.Yes {
		if plan.Empty() {
			p.Line("%s", i18n.T("cli.reset.nothing", i18n.Args{"Dir": env.Dir}))
			return nil
		}
		describe(ui.New(o.ErrOut, o.NoColor), plan, env.Dir)
		fmt.Fprint(o.ErrOut, i18n.T("cli.reset.ask"))
		answer, _ := bufio.NewReader(o.In).ReadString('\n')
		if a := strings.ToLower(strings.TrimSpace(answer)); a != "y" && a != "yes" {
			return cli.Exit(i18n.T("cli.reset.cancelled"), 1)
		}
	}
	log := func(format string, a ...any) {
		if out == "text" {
			line(p, fmt.Sprintf(format, a...))
		}
	}
	res, err := reset.Run(ctx, env, reset.Options{Steps: theLab.Lab(), Purge: o.Purge, Log: log})
	var werr error
	if out == "json" {
		werr = ui.WriteJSON(o.Out, res)
	}
	if err != nil {
		return cli.Exit(i18n.T("cli.reset.incomplete", i18n.Args{"Err": err.Error()}), 1)
	}
	if werr != nil {
		return werr
	}
	if out == "text" {
		line(p, i18n.T("cli.reset.done"))
	}
	return nil
}

// describe tells, on p (stderr), what a reset is about to remove.
func describe(p *ui.Printer, plan *reset.Plan, dir string) {
	p.Title("%s", i18n.T("cli.reset.will"))
	if plan.OtherLab != "" {
		line(p, i18n.T("cli.reset.other_lab", i18n.Args{"Dir": plan.OtherLab}))
	}
	if plan.Service {
		line(p, i18n.T("cli.reset.service"))
	}
	if plan.Identity {
		line(p, i18n.T("cli.reset.identity", i18n.Args{"User": identity.Username}))
	}
	if len(plan.TeamSpaces) > 0 {
		line(p, i18n.T("cli.reset.teamspaces", i18n.Args{"Names": i18n.List(plan.TeamSpaces)}))
	}
	if len(plan.Namespaces) > 0 {
		line(p, i18n.T("cli.reset.namespaces", i18n.Args{"Names": i18n.List(plan.Namespaces)}))
	}
	if plan.CRD {
		line(p, i18n.T("cli.reset.crd", i18n.Args{"CRD": teamspace.CRDName}))
	}
	if len(plan.Files) > 0 {
		line(p, i18n.N("plural.cli.reset.files", len(plan.Files), i18n.Args{"Dir": dir}))
	}
	if len(plan.ArchiveFiles) > 0 {
		line(p, i18n.N("plural.cli.reset.archive", len(plan.ArchiveFiles)))
	}
	if len(plan.Aside) > 0 {
		line(p, i18n.T("cli.reset.aside", i18n.Args{"Files": i18n.List(plan.Aside), "Dir": dir}))
	}
	for _, f := range plan.Kept {
		line(p, i18n.T("cli.reset.kept", i18n.Args{"File": f}))
	}
}

// line prints one of reset's lines wrapped to 80 columns in every
// language (a Japanese one naming the identity's eight objects was 250):
// a name or a path wider than a line stands on its own, whole.
func line(p *ui.Printer, s string) { p.Line("%s", ui.Wrap(s, ui.Cols)) }

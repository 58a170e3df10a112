package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/atomicfile"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/report"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/ui"
)

var reportCommand = &cli.Command{
	Name:  "report",
	Usage: "one self-contained HTML page of the lab run: steps, values against expectations, timelines, check results",
	Description: "Writes --html FILE: the lab's steps, every evidence value beside what a\n" +
		"correct run holds (✓/✗), the timelines of steps " + theLab.Lab().TimelineRange("-") + " drawn as charts, and the\n" +
		"results of the last `cnpa check` (kept in <dir>/.cnpa/check.json; the page\n" +
		"says when there is none or when evidence was written after it). The page\n" +
		"loads nothing from anywhere: open it offline or mail it to an instructor.\n\n" +
		"The values compared with the live alpha (uids) need the cluster; without\n" +
		"one they show as not compared, and the rest of the page is made all the same.",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "html", Usage: "write the page to `FILE` (- for stdout)"},
		&cli.DurationFlag{Name: "timeout", Value: 10 * time.Second, Usage: "longest wait for the cluster when reading alpha", Action: positive("timeout")},
	},
	Action: func(c *cli.Context) error { return runOptions(c, &ReportOptions{IOStreams: streamsOf(c)}) },
}

// ReportOptions are `cnpa report`'s flags.
type ReportOptions struct {
	IOStreams
	globalOptions
	// HTML is the page's file, - for Out.
	HTML string
	// Timeout is the longest wait for the cluster when reading alpha.
	Timeout time.Duration
}

// Complete reads the command line into o.
func (o *ReportOptions) Complete(c *cli.Context) error {
	o.globalOptions.complete(c)
	o.HTML, o.Timeout = c.String("html"), c.Duration("timeout")
	return nil
}

// Validate refuses no --html, and an --html that is a directory.
func (o *ReportOptions) Validate() error {
	out := o.HTML
	if out == "" {
		return usageError("%s", i18n.T("cli.report.give_html"))
	}
	if out != "-" {
		if fi, err := os.Stat(out); err == nil && fi.IsDir() {
			return usageError("%s", i18n.T("cli.html_is_dir", i18n.Args{"Out": out, "Example": filepath.Join(out, "report.html")}))
		}
	}
	return nil
}

// Run builds the page from the evidence dir (and alpha, when the cluster
// answers) and writes it.
func (o *ReportOptions) Run(ctx context.Context) error {
	out := o.HTML
	if err := needEvidenceDir(o.Dir); err != nil {
		return err
	}
	dir, err := evidenceDir(o.Dir)
	if err != nil {
		return err
	}
	alpha, unknown := o.liveAlpha(ctx)
	ro := report.Options{Steps: theLab.Lab(), Dir: dir, Alpha: alpha, AlphaUnknown: unknown, Now: time.Now(), Version: version}
	if st, err := labenv.LoadState(dir); err != nil {
		ro.StateProblem = err.Error()
	} else if st != nil {
		ro.Engine = st.Engine
	}
	if policy, err := learnerPolicy(o.Dir); err != nil {
		ro.PolicyProblem = err.Error()
	} else {
		ro.StressPoints = policy.StressPoints()
	}
	p := report.Build(ro)
	var buf bytes.Buffer
	if err := report.Write(&buf, p); err != nil {
		return fmt.Errorf("render the report: %w", err)
	}
	if out == "-" {
		_, err := o.Out.Write(buf.Bytes())
		return err
	}
	// Atomic: a page mailed while it is rewritten is the old one or
	// the new one, and a failed write leaves the old one whole.
	if err := atomicfile.WriteFile(out, buf.Bytes(), 0o644); err != nil {
		return cli.Exit(i18n.T("cli.submit.write", i18n.Args{"Path": out, "Err": err.Error()}), 2)
	}
	abs, _ := filepath.Abs(out)
	printer(o.Out, o.NoColor).Line("%s", ui.Wrap(i18n.T("cli.report.wrote", i18n.Args{"Path": out, "OK": p.ValuesOK, "Total": p.ValuesTotal, "Abs": abs}), ui.Cols))
	if unknown != "" {
		printer(o.Out, o.NoColor).Note("%s", ui.Wrap(i18n.T("cli.report.not_compared", i18n.Args{"Why": unknown}), ui.Cols))
	}
	return nil
}

// liveAlpha reads alpha from the cluster, or says why it could not: the
// report must be made without a cluster too (on a laptop, from a copied
// evidence dir), so no cluster is a note on the page, not an error.
func (o *ReportOptions) liveAlpha(ctx context.Context) (*teamspace.TeamSpace, string) {
	t, err := kube.Resolve(o.Kubeconfig, o.Context)
	if err != nil {
		printer(o.Out, o.NoColor).Note("%s", ui.Wrap(i18n.T("cli.report.no_cluster", i18n.Args{"Err": err.Error()}), ui.Cols))
		return nil, i18n.T("cli.report.no_cluster_then")
	}
	cl, err := kube.NewClients(t)
	if err != nil {
		printer(o.Out, o.NoColor).Note("%s", ui.Wrap(i18n.T("cli.report.no_cluster", i18n.Args{"Err": err.Error()}), ui.Cols))
		return nil, i18n.T("cli.report.no_cluster_then")
	}
	ctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	alpha, err := teamspace.Get(ctx, cl.Dynamic, "alpha")
	if err != nil {
		printer(o.Out, o.NoColor).Note("%s", ui.Wrap(i18n.T("cli.report.reading_alpha", i18n.Args{"Server": t.Server, "Err": err.Error()}), ui.Cols))
		return nil, i18n.T("cli.report.no_answer_then", i18n.Args{"Server": t.Server})
	}
	return alpha, ""
}

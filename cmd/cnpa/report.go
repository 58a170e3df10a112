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
	Action: func(c *cli.Context) error {
		out := c.String("html")
		if out == "" {
			return usageError("%s", i18n.T("cli.report.give_html"))
		}
		if out != "-" {
			if fi, err := os.Stat(out); err == nil && fi.IsDir() {
				return usageError("%s", i18n.T("cli.html_is_dir", i18n.Args{"Out": out, "Example": filepath.Join(out, "report.html")}))
			}
		}
		if err := needEvidenceDir(c); err != nil {
			return err
		}
		dir, err := evidenceDir(c)
		if err != nil {
			return err
		}
		alpha, unknown := liveAlpha(c)
		o := report.Options{Steps: theLab.Lab(), Dir: dir, Alpha: alpha, AlphaUnknown: unknown, Now: time.Now(), Version: version}
		if st, err := labenv.LoadState(dir); err != nil {
			o.StateProblem = err.Error()
		} else if st != nil {
			o.Engine = st.Engine
		}
		if policy, err := learnerPolicy(c); err != nil {
			o.PolicyProblem = err.Error()
		} else {
			o.StressPoints = policy.StressPoints()
		}
		p := report.Build(o)
		var buf bytes.Buffer
		if err := report.Write(&buf, p); err != nil {
			return fmt.Errorf("render the report: %w", err)
		}
		if out == "-" {
			_, err := os.Stdout.Write(buf.Bytes())
			return err
		}
		// Atomic: a page mailed while it is rewritten is the old one or
		// the new one, and a failed write leaves the old one whole.
		if err := atomicfile.WriteFile(out, buf.Bytes(), 0o644); err != nil {
			return cli.Exit(i18n.T("cli.submit.write", i18n.Args{"Path": out, "Err": err.Error()}), 2)
		}
		abs, _ := filepath.Abs(out)
		printer(c).Line("%s", i18n.T("cli.report.wrote", i18n.Args{"Path": out, "OK": p.ValuesOK, "Total": p.ValuesTotal, "Abs": abs}))
		if unknown != "" {
			printer(c).Note("%s", i18n.T("cli.report.not_compared", i18n.Args{"Why": unknown}))
		}
		return nil
	},
}

// liveAlpha reads alpha from the cluster, or says why it could not: the
// report must be made without a cluster too (on a laptop, from a copied
// evidence dir), so no cluster is a note on the page, not an error.
func liveAlpha(c *cli.Context) (*teamspace.TeamSpace, string) {
	t, err := kube.Resolve(c.String("kubeconfig"), c.String("context"))
	if err != nil {
		printer(c).Note("%s", i18n.T("cli.report.no_cluster", i18n.Args{"Err": err.Error()}))
		return nil, i18n.T("cli.report.no_cluster_then")
	}
	cl, err := kube.NewClients(t)
	if err != nil {
		printer(c).Note("%s", i18n.T("cli.report.no_cluster", i18n.Args{"Err": err.Error()}))
		return nil, i18n.T("cli.report.no_cluster_then")
	}
	ctx, cancel := context.WithTimeout(c.Context, c.Duration("timeout"))
	defer cancel()
	alpha, err := teamspace.Get(ctx, cl.Dynamic, "alpha")
	if err != nil {
		printer(c).Note("%s", i18n.T("cli.report.reading_alpha", i18n.Args{"Server": t.Server, "Err": err.Error()}))
		return nil, i18n.T("cli.report.no_answer_then", i18n.Args{"Server": t.Server})
	}
	return alpha, ""
}

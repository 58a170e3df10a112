package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/steps"
	"github.com/labhub/cnpa/internal/timeline"
	"github.com/labhub/cnpa/internal/ui"
)

var stepCommand = &cli.Command{
	Name:         "step",
	Usage:        "run lab step " + theLab.Lab().Range("..") + ", or all of them, and write its evidence",
	ArgsUsage:    theLab.Lab().Range("..") + "|all",
	BashComplete: completeStep,
	Description: "Each step drives the cluster as the lab text says, shows each observed value beside\n" +
		"the expected one, and writes its JSON evidence under --dir. `all` runs " + theLab.Lab().Range("..") + " and\n" +
		"stops at the first failure (exit 1).",
	Flags: append([]cli.Flag{
		&cli.BoolFlag{Name: "explain", Usage: "print the step's teaching text, as cnpa explain N does, before running it"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "hide the kubectl commands each step shows for what it does, the server's answers and the files installed"},
		&cli.BoolFlag{Name: "force", Usage: "write crd.yaml, alpha.yaml, beta.yaml and evidence files even over files of yours, keeping each as <name>.bak-<time> (never reconcile.sh)"},
		&cli.BoolFlag{Name: "verbose", Usage: "show every file and manifest written in full (the CRD, the RBAC and policy, the unit), so that the commands shown replay the step"},
		&cli.DurationFlag{Name: "catchup-wait", Value: 8 * time.Second, Usage: "how long step 7 waits with the service stopped (8s is the lab's number)", Action: positive("catchup-wait")},
	}, labEnvFlags...),
	Action: func(c *cli.Context) error {
		if fileLab(c) != "" {
			return runOptions(c, &FileStepOptions{IOStreams: streamsOf(c)})
		}
		return runOptions(c, &StepOptions{IOStreams: streamsOf(c)})
	},
}

// StepOptions are `cnpa step`'s flags and argument.
type StepOptions struct {
	IOStreams
	globalOptions
	labEnvOptions
	// Arg is the step argument as typed: a number or all; Args counts
	// the arguments given (one is right).
	Arg                            string
	Args                           int
	Explain, Quiet, Force, Verbose bool
	CatchupWait                    time.Duration

	numbers []int  // Arg's steps, set by Validate
	out     string // -o, set by Validate
}

// Complete reads the command line into o.
func (o *StepOptions) Complete(c *cli.Context) error {
	o.globalOptions.complete(c)
	o.labEnvOptions.complete(c)
	o.Arg, o.Args = c.Args().First(), c.NArg()
	o.Explain, o.Quiet, o.Force, o.Verbose = c.Bool("explain"), c.Bool("quiet"), c.Bool("force"), c.Bool("verbose")
	o.CatchupWait = c.Duration("catchup-wait")
	return nil
}

// Validate refuses a missing or unknown step, an -o step does not print
// and --quiet with --verbose.
func (o *StepOptions) Validate() error {
	if o.Args != 1 {
		return usageError("%s", i18n.T("cli.step.argument", i18n.Args{"Range": theLab.Lab().Range("..")}))
	}
	numbers, err := stepNumbers(o.Arg)
	if err != nil {
		return err
	}
	out, err := output(&o.globalOptions, "text", "json")
	if err != nil {
		return err
	}
	if o.Quiet && o.Verbose {
		return usageError("%s", i18n.T("cli.step.quiet_verbose"))
	}
	o.numbers, o.out = numbers, out
	return nil
}

// Run runs the steps, printing each as it goes (text) or all at the end
// (json); a failed step is exit 1, an environment that cannot run one 2.
func (o *StepOptions) Run(ctx context.Context) error {
	numbers, out := o.numbers, o.out
	if err := refuseInExam(o.Dir, o.Command); err != nil {
		return err
	}
	base, err := labEnv(&o.globalOptions, o.ErrOut, o.labEnvOptions.envOptions())
	if err != nil {
		return err
	}
	// Flags, then the steps' options, then the run: nothing is
	// assigned into the lab afterwards.
	p := printer(o.Out, o.NoColor)
	var view steps.View
	if out == "text" && !o.Quiet {
		view = steps.View{Show: p, Verbose: o.Verbose}
	}
	env := steps.NewLab(theLab.Runners(), base, view, steps.Options{Force: o.Force, CatchupWait: o.CatchupWait})
	started := func(s *steps.Step) {
		if out != "text" {
			return
		}
		if o.Explain {
			text, _ := theLab.Lab().ExplainFor(s.Number, lab.Where{Dir: env.Dir, UnitDir: env.UnitDir, ServiceManager: env.Service.Name()})
			p.Line("%s", text)
		}
		p.Title("%s", i18n.T("explain.heading", i18n.Args{"N": s.Number, "Title": s.Heading()}))
		p.Note("%s", ui.Wrap(s.Teaching(), ui.Cols))
	}
	done := func(r *steps.Result) {
		if out == "text" {
			printResult(p, r, env.Show != nil)
		}
	}
	run := steps.RunAll(ctx, env, numbers, started, done)
	switch {
	case run.Failed == nil && run.Err != nil:
		return usageError("%v", run.Err)
	case run.Err != nil:
		// The error may quote the cluster (the API server echoes a
		// value): data, not terminal commands.
		if ctx.Err() != nil {
			// Ctrl-C, SIGTERM or SIGHUP: not a failure of the step,
			// and what the step put back is in err.
			fmt.Fprintf(o.ErrOut, "%s\n", i18n.T("cli.step.interrupted", i18n.Args{"N": run.Failed.Number, "Detail": ui.CleanLines(interruptedDetail(run.Err))}))
		} else {
			fmt.Fprintf(o.ErrOut, "%s\n", stepFailed(run.Failed.Number, ui.CleanLines(run.Err.Error())))
		}
	}
	if run.Failed != nil && run.Err == nil && len(run.Results) > 0 {
		// A verdict did not hold: said as a failure too, naming the
		// lines (shown above), as an error is.
		fmt.Fprintf(o.ErrOut, "%s\n", stepFailed(run.Failed.Number, failedLines(run.Results[len(run.Results)-1])))
	}
	if out == "json" {
		if err := ui.WriteJSON(o.Out, run.Results); err != nil {
			return err
		}
	}
	if run.Failed != nil {
		return failed()
	}
	return nil
}

// printResult prints a step's notes, verdicts, timeline and evidence file;
// shown says the step's commands were shown, the one that wrote the file
// among them, so only a kept file needs saying.
func printResult(p *ui.Printer, r *steps.Result, shown bool) {
	for _, n := range r.Notes {
		p.Line("%s", paragraph("  ", "  ", ui.CleanLines(n)))
	}
	for _, v := range r.Verdicts {
		name := v.Name
		if v.Label != "" {
			name = v.Label
		}
		p.Verdict(v.OK, name, v.Got, v.Want)
	}
	for _, f := range r.Fixes {
		p.Line("%s", paragraph("  → ", "    ", ui.CleanLines(f)))
	}
	timeline.Print(p, r.Timeline)
	switch {
	case r.File != "" && r.Kept:
		p.Line("  %s", i18n.T("cli.step.kept", i18n.Args{"File": r.File}))
	case r.File != "" && !shown:
		p.Line("  %s", i18n.T("cli.step.wrote", i18n.Args{"File": r.File}))
	}
	p.Line("")
}

// failedLines says which of r's lines do not hold.
func failedLines(r *steps.Result) string {
	var names []string
	for _, v := range r.Verdicts {
		if !v.OK {
			name := v.Name
			if v.Label != "" {
				name = v.Label
			}
			names = append(names, name)
		}
	}
	return i18n.T("cli.step.not_as_expected", i18n.Args{"Names": strings.Join(names, i18n.T("cli.step.list_sep"))})
}

// stepFailed is the line that says step n failed with msg, its first line
// wrapped in a language whose catalog holds paragraphs (the rest of msg,
// a diagnosis, is worded and wrapped where it is made).
func stepFailed(n int, msg string) string {
	first, rest, _ := strings.Cut(msg, "\n")
	line := paragraph("", "  ", i18n.T("cli.step.failed", i18n.Args{"N": n, "Err": first}))
	if rest != "" {
		line += "\n" + rest
	}
	return line
}

// paragraph is s after first, its further lines after rest: wrapped to
// 80 columns in a language whose catalog holds paragraphs (Japanese);
// English keeps the breaks it is written with, each further line after
// first as before.
func paragraph(first, rest, s string) string {
	if i18n.Current() == i18n.English {
		return first + s
	}
	return ui.Indent(first, rest, s, ui.Cols)
}

// interruptedDetail is what an interrupted step's error adds to "step N
// interrupted": where it was waiting, what it put back; the bare "context
// canceled" says nothing a learner who pressed Ctrl-C does not know.
func interruptedDetail(err error) string {
	msg := strings.ReplaceAll(err.Error(), ": "+context.Canceled.Error(), "")
	msg = strings.TrimLeft(strings.TrimPrefix(msg, context.Canceled.Error()), "; ")
	switch {
	case msg == "":
		return ""
	case strings.HasPrefix(msg, "while "):
		return " " + msg
	}
	return ": " + msg
}

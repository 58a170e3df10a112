package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/ui"
)

var checkCommand = &cli.Command{
	Name:  "check",
	Usage: "grade the lab: every evidence file, cross-checked with the cluster and the running controller",
	Description: "Reads the seven JSON files strictly, compares every value with what a correct\n" +
		"run yields, with the other files and with the live cluster; runs reconcile.sh\n" +
		"twice more and proves it writes nothing; and watches the running controller\n" +
		"handle temporary TeamSpaces (cnpa-check-*, always removed). Every check is\n" +
		"reported with an id, what was found, what was expected and a hint.\n\n" +
		"The report is also kept in <dir>/.cnpa/check.json for `cnpa report --html`.\n\n" +
		"Exit code 0 when all pass, 1 when any fails (or no evidence is written\n" +
		"yet), 2 when the cluster or the evidence dir cannot be reached.",
	Flags: append([]cli.Flag{
		&cli.StringFlag{Name: "step", Usage: "check step `N` (" + theLab.Lab().Range("..") + ") only"},
		&cli.DurationFlag{Name: "timeout", Value: 30 * time.Second, Usage: "longest wait for the controller in each live check", Action: positive("timeout")},
	}, serviceFlags...),
	Action: func(c *cli.Context) error {
		if fileLab(c) != "" {
			return runOptions(c, &FileCheckOptions{FileStepOptions: FileStepOptions{IOStreams: streamsOf(c)}})
		}
		return runOptions(c, &CheckOptions{IOStreams: streamsOf(c)})
	},
}

// needEvidenceDir refuses a missing evidence dir (exit 2): there is nothing
// to grade, and the likely cause is a wrong --dir.
func needEvidenceDir(evidence string) error {
	dir, err := evidenceDir(evidence)
	if err != nil {
		return err
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		return cli.Exit(i18n.T("cli.dir.missing", i18n.Args{"Dir": dir}), 2)
	} else if err != nil {
		return cli.Exit(i18n.T("cli.dir.error", i18n.Args{"Dir": dir, "Err": err.Error()}), 2)
	}
	return nil
}

// CheckOptions are `cnpa check`'s flags.
type CheckOptions struct {
	IOStreams
	globalOptions
	serviceOptions
	// Step is --step as typed, "" for every step.
	Step string
	// ProbeTimeout (--timeout) is the longest wait for the controller in
	// each live check. It is not the lab's wait for a condition
	// (labEnvOptions.Timeout), which no check makes.
	ProbeTimeout time.Duration

	step int    // Step's number, 0 for every step, set by Validate
	out  string // -o, set by Validate
}

// Complete reads the command line into o.
func (o *CheckOptions) Complete(c *cli.Context) error {
	o.globalOptions.complete(c)
	o.serviceOptions.complete(c)
	o.Step, o.ProbeTimeout = c.String("step"), c.Duration("timeout")
	return nil
}

// Validate refuses an -o check does not print and a step there is none of.
func (o *CheckOptions) Validate() error {
	out, err := output(&o.globalOptions, "text", "json", "junit")
	if err != nil {
		return err
	}
	step := 0
	if s := o.Step; s != "" {
		n, err := strconv.Atoi(s)
		if _, gerr := theLab.Lab().Get(n); err != nil || gerr != nil {
			return usageError("%s", i18n.T("cli.check.bad_step", i18n.Args{"Step": fmt.Sprintf("%q", s), "First": theLab.Lab()[0].Number, "Last": theLab.Lab()[len(theLab.Lab())-1].Number}))
		}
		step = n
	}
	o.step, o.out = step, out
	return nil
}

// Run grades the lab, keeps the report and prints it: exit 1 when a check
// fails (or no evidence is written yet), 2 when the cluster or the
// evidence dir cannot be reached.
func (o *CheckOptions) Run(ctx context.Context) error {
	if err := needEvidenceDir(o.Dir); err != nil {
		return err
	}
	if dir, _ := evidenceDir(o.Dir); !theLab.Lab().AnyWritten(dir) {
		// Seventy lines of "missing" would bury the one thing to do.
		return cli.Exit(i18n.T("cli.check.no_evidence", i18n.Args{"Dir": dir}), 1)
	}
	env, err := labEnv(&o.globalOptions, o.ErrOut, o.serviceOptions.envOptions())
	if err != nil {
		return err
	}
	warn := ui.New(o.ErrOut, o.NoColor)
	rep, _, err := check.Run(ctx, env, check.Options{Steps: theLab.Checker(), Step: o.step, ProbeTimeout: o.ProbeTimeout,
		Progress: ui.New(o.ErrOut, o.NoColor)})
	if err != nil {
		// It may carry the API server's error text (R4-6).
		return cli.Exit(ui.CleanLines(err.Error()), 2)
	}
	// Kept for `cnpa report --html`; failing to keep it costs the
	// report its check results, not the grading, so it only warns.
	if err := judge.SaveLast(env.Dir, rep, time.Now()); err != nil {
		warn.Warn("%s", i18n.T("cli.submit.not_kept", i18n.Args{"Err": err.Error()}))
	}
	// The last stress run, shown apart from the lab's 8 steps, and
	// said to count when the instructor's policy gives it points. A
	// broken policy is cnpa submit's and the class's error; here it
	// only warns.
	if st, err := judge.LoadStress(env.Dir); err != nil {
		warn.Warn("%s", err.Error())
	} else {
		rep.Stress = st
	}
	if policy, err := learnerPolicy(o.Dir); err != nil {
		warn.Warn("%s", err.Error())
	} else {
		rep.StressPoints = policy.StressPoints()
	}
	switch o.out {
	case "json":
		err = judge.WriteJSON(o.Out, rep)
	case "junit":
		err = judge.WriteJUnit(o.Out, rep)
	default:
		judge.WriteText(printer(o.Out, o.NoColor), rep)
	}
	if err != nil {
		return err
	}
	if !rep.OK() {
		return failed()
	}
	return nil
}

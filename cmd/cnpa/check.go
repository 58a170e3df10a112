package main

import (
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
		out, err := output(c, "text", "json", "junit")
		if err != nil {
			return err
		}
		step := 0
		if s := c.String("step"); s != "" {
			n, err := strconv.Atoi(s)
			if _, gerr := theLab.Lab().Get(n); err != nil || gerr != nil {
				return usageError("%s", i18n.T("cli.check.bad_step", i18n.Args{"Step": fmt.Sprintf("%q", s), "First": theLab.Lab()[0].Number, "Last": theLab.Lab()[len(theLab.Lab())-1].Number}))
			}
			step = n
		}
		if err := needEvidenceDir(c); err != nil {
			return err
		}
		if dir, _ := evidenceDir(c); !theLab.Lab().AnyWritten(dir) {
			// Seventy lines of "missing" would bury the one thing to do.
			return cli.Exit(i18n.T("cli.check.no_evidence", i18n.Args{"Dir": dir}), 1)
		}
		env, err := labEnv(c)
		if err != nil {
			return err
		}
		ctx := c.Context // cancelled by Ctrl-C, SIGTERM or SIGHUP (see run)
		rep, _, err := check.Run(ctx, env, check.Options{Steps: theLab.Checker(), Step: step, ProbeTimeout: c.Duration("timeout"),
			Progress: ui.New(os.Stderr, c.Bool("no-color"))})
		if err != nil {
			return cli.Exit(err.Error(), 2)
		}
		// Kept for `cnpa report --html`; failing to keep it costs the
		// report its check results, not the grading, so it only warns.
		if err := judge.SaveLast(env.Dir, rep, time.Now()); err != nil {
			ui.New(os.Stderr, c.Bool("no-color")).Warn("%s", i18n.T("cli.submit.not_kept", i18n.Args{"Err": err.Error()}))
		}
		// The last stress run, shown apart from the lab's 8 steps, and
		// said to count when the instructor's policy gives it points. A
		// broken policy is cnpa submit's and the class's error; here it
		// only warns.
		if st, err := judge.LoadStress(env.Dir); err != nil {
			ui.New(os.Stderr, c.Bool("no-color")).Warn("%s", err.Error())
		} else {
			rep.Stress = st
		}
		if policy, err := learnerPolicy(c); err != nil {
			ui.New(os.Stderr, c.Bool("no-color")).Warn("%s", err.Error())
		} else {
			rep.StressPoints = policy.StressPoints()
		}
		switch out {
		case "json":
			err = judge.WriteJSON(os.Stdout, rep)
		case "junit":
			err = judge.WriteJUnit(os.Stdout, rep)
		default:
			judge.WriteText(printer(c), rep)
		}
		if err != nil {
			return err
		}
		if !rep.OK() {
			return failed()
		}
		return nil
	},
}

// needEvidenceDir refuses a missing evidence dir (exit 2): there is nothing
// to grade, and the likely cause is a wrong --dir.
func needEvidenceDir(c *cli.Context) error {
	dir, err := evidenceDir(c)
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

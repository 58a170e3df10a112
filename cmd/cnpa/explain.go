package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/service"
)

var explainCommand = &cli.Command{
	Name:         "explain",
	Usage:        "print what step N teaches, the commands to do it by hand and what to look at (no cluster needed)",
	ArgsUsage:    theLab.Lab().Range("..") + "|all",
	BashComplete: completeStep,
	Action:       func(c *cli.Context) error { return runOptions(c, &ExplainOptions{IOStreams: streamsOf(c)}) },
}

// ExplainOptions are `cnpa explain`'s argument.
type ExplainOptions struct {
	IOStreams
	globalOptions
	// Arg is the step argument as typed: a number or all; Args counts
	// the arguments given (one is right).
	Arg  string
	Args int

	numbers []int // Arg's steps, set by Validate
}

// Complete reads the command line into o.
func (o *ExplainOptions) Complete(c *cli.Context) error {
	o.globalOptions.complete(c)
	o.Arg, o.Args = c.Args().First(), c.NArg()
	return nil
}

// Validate refuses a missing or unknown step.
func (o *ExplainOptions) Validate() error {
	if o.Args != 1 {
		return usageError("%s", i18n.T("usage.explain_argument", i18n.Args{"Range": theLab.Lab().Range("..")}))
	}
	numbers, err := stepNumbers(o.Arg)
	if err != nil {
		return err
	}
	o.numbers = numbers
	return nil
}

// Run prints each step's text, with the learner's paths.
func (o *ExplainOptions) Run(context.Context) error {
	if err := refuseInExam(o.Dir, o.Command); err != nil {
		return err
	}
	where, err := explainPaths(o.Dir)
	if err != nil {
		return err
	}
	for i, n := range o.numbers {
		if i > 0 {
			fmt.Fprintln(o.Out)
		}
		text, err := theLab.Lab().ExplainFor(n, where)
		if err != nil {
			return usageError("%v", err)
		}
		fmt.Fprint(o.Out, text)
	}
	return nil
}

// explainPaths are the learner's evidence dir (--dir, absolute), unit
// dir and service manager (those the evidence dir remembers, else the
// default unit dir and the manager auto picks on this machine) for the
// paths and service commands `cnpa explain` shows.
func explainPaths(dir string) (lab.Where, error) {
	d, err := evidenceDir(dir)
	if err != nil {
		return lab.Where{}, err
	}
	w := lab.Where{UnitDir: labenv.DefaultUnitDir, ServiceManager: "process"}
	if w.Dir, err = filepath.Abs(d); err != nil {
		return lab.Where{}, usageError("%s: %v", "--dir "+d, err)
	}
	if service.SystemdRunning() {
		w.ServiceManager = "systemd"
	}
	if st, err := labenv.LoadState(w.Dir); err == nil && st != nil {
		if st.UnitDir != "" {
			w.UnitDir = st.UnitDir
		}
		if st.ServiceManager == "systemd" || st.ServiceManager == "process" {
			w.ServiceManager = st.ServiceManager
		}
	}
	return w, nil
}

// stepNumbers turns "all" or a step's number into step numbers, or a
// usage error naming the argument.
func stepNumbers(arg string) ([]int, error) {
	if arg == "all" {
		return theLab.Lab().Numbers(), nil
	}
	n, err := strconv.Atoi(arg)
	if _, gerr := theLab.Lab().Get(n); err != nil || gerr != nil {
		return nil, usageError("%s", i18n.T("usage.unknown_step", i18n.Args{"Arg": fmt.Sprintf("%q", arg), "First": theLab.Lab()[0].Number, "Last": theLab.Lab()[len(theLab.Lab())-1].Number}))
	}
	return []int{n}, nil
}

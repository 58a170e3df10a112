package main

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
)

var explainCommand = &cli.Command{
	Name:         "explain",
	Usage:        "print what step N teaches, the commands to do it by hand and what to look at (no cluster needed)",
	ArgsUsage:    lab.Range("..") + "|all",
	BashComplete: completeStep,
	Action: func(c *cli.Context) error {
		if c.NArg() != 1 {
			return usageError("%s", i18n.T("usage.explain_argument", i18n.Args{"Range": lab.Range("..")}))
		}
		numbers, err := stepNumbers(c.Args().First())
		if err != nil {
			return err
		}
		dir, unitDir, err := explainPaths(c)
		if err != nil {
			return err
		}
		for i, n := range numbers {
			if i > 0 {
				fmt.Println()
			}
			text, err := lab.Explain(n, dir, unitDir)
			if err != nil {
				return usageError("%v", err)
			}
			fmt.Print(text)
		}
		return nil
	},
}

// explainPaths are the learner's evidence dir (--dir, absolute) and unit
// dir (the one the evidence dir remembers, else the default) for the
// paths `cnpa explain` shows.
func explainPaths(c *cli.Context) (dir, unitDir string, err error) {
	d, err := evidenceDir(c)
	if err != nil {
		return "", "", err
	}
	if dir, err = filepath.Abs(d); err != nil {
		return "", "", usageError("--dir %s: %v", d, err)
	}
	unitDir = labenv.DefaultUnitDir
	if st, err := labenv.LoadState(dir); err == nil && st != nil && st.UnitDir != "" {
		unitDir = st.UnitDir
	}
	return dir, unitDir, nil
}

// stepNumbers turns "all" or a step's number into step numbers, or a
// usage error naming the argument.
func stepNumbers(arg string) ([]int, error) {
	if arg == "all" {
		return lab.Numbers(), nil
	}
	n, err := strconv.Atoi(arg)
	if _, gerr := lab.Get(n); err != nil || gerr != nil {
		return nil, usageError("%s", i18n.T("usage.unknown_step", i18n.Args{"Arg": fmt.Sprintf("%q", arg), "First": lab.Steps[0].Number, "Last": lab.Steps[len(lab.Steps)-1].Number}))
	}
	return []int{n}, nil
}

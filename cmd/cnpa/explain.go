package main

import (
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/steps"
)

var explainCommand = &cli.Command{
	Name:         "explain",
	Usage:        "print what step N teaches, the commands to do it by hand and what to look at (no cluster needed)",
	ArgsUsage:    "1..8|all",
	BashComplete: completeStep,
	Action: func(c *cli.Context) error {
		if c.NArg() != 1 {
			return usageError("explain needs one argument: a step number 1..8 or `all`")
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
			text, err := steps.Explain(n, dir, unitDir)
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

// stepNumbers turns "all" or "1".."8" into step numbers, or a usage error
// naming the argument.
func stepNumbers(arg string) ([]int, error) {
	if arg == "all" {
		var all []int
		for i := range steps.All {
			all = append(all, i+1)
		}
		return all, nil
	}
	n, err := strconv.Atoi(arg)
	if err != nil || n < 1 || n > len(steps.All) {
		return nil, usageError("unknown step %q: the lab has steps 1 to %d (or `all`)", arg, len(steps.All))
	}
	return []int{n}, nil
}

package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/class"
	"github.com/labhub/cnpa/internal/gradebook"
	"github.com/labhub/cnpa/internal/i18n"
)

// learnerPolicy is the instructor's policy the evidence dir holds
// (gradebook.PolicyName), nil when it holds none. One that cannot be read
// is an error naming it, exit 2.
func learnerPolicy(c *cli.Context) (*gradebook.Policy, error) {
	dir, err := evidenceDir(c)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, gradebook.PolicyName)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	p, err := class.ReadPolicy(path)
	if err != nil {
		return nil, cli.Exit(i18n.T("cli.exam.policy", i18n.Args{"Path": path, "Err": err.Error()}), 2)
	}
	return p, nil
}

// examMode tells whether the evidence dir holds the instructor's policy
// in exam mode. A policy that cannot be read is an error, exit 2: a
// broken exam file must never turn exam mode off.
func examMode(c *cli.Context) (bool, error) {
	p, err := learnerPolicy(c)
	return p != nil && p.Exam, err
}

// refuseInExam is the error of c's command, which the exam does not
// allow, nil outside exam mode. Exit 2: the environment refuses it.
func refuseInExam(c *cli.Context) error {
	exam, err := examMode(c)
	if err != nil || !exam {
		return err
	}
	return cli.Exit(i18n.T("cli.exam.refused", i18n.Args{"Command": c.Command.Name, "Policy": gradebook.PolicyName}), 2)
}

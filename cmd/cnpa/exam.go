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

// examMode tells whether the evidence dir holds the instructor's policy
// (gradebook.PolicyName) in exam mode. A policy that cannot be read is
// an error, exit 2: a broken exam file must never turn exam mode off.
func examMode(c *cli.Context) (bool, error) {
	dir, err := evidenceDir(c)
	if err != nil {
		return false, err
	}
	path := filepath.Join(dir, gradebook.PolicyName)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	p, err := class.ReadPolicy(path)
	if err != nil {
		return false, cli.Exit(i18n.T("cli.exam.policy", i18n.Args{"Path": path, "Err": err.Error()}), 2)
	}
	return p.Exam, nil
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

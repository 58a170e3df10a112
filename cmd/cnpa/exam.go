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
func learnerPolicy(evidence string) (*gradebook.Policy, error) {
	dir, err := evidenceDir(evidence)
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
func examMode(dir string) (bool, error) {
	p, err := learnerPolicy(dir)
	return p != nil && p.Exam, err
}

// refuseInExam is the error of command, which the exam does not allow,
// nil outside exam mode (the evidence dir holds no exam policy). Exit 2:
// the environment refuses it.
func refuseInExam(dir, command string) error {
	exam, err := examMode(dir)
	if err != nil || !exam {
		return err
	}
	return cli.Exit(i18n.T("cli.exam.refused", i18n.Args{"Command": command, "Policy": gradebook.PolicyName}), 2)
}

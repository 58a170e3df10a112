package main

import (
	"context"
	"errors"
	"os"
	"os/user"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/submission"
	"github.com/labhub/cnpa/internal/submit"
	"github.com/labhub/cnpa/internal/ui"
)

var submitCommand = &cli.Command{
	Name:  "submit",
	Usage: "grade the lab as `cnpa check` does and write one submission file for the instructor",
	Description: "Runs every check of `cnpa check`, then writes one self-contained JSON file\n" +
		"(default <dir>/" + submission.DefaultName + "): your name, cnpa's version and the time,\n" +
		"the cluster's identity (kube-system's uid, the server version, the datastore),\n" +
		"the evidence files and archive/beta.json verbatim, every check with what was\n" +
		"expected and found, the timelines, and a SHA-256 over it all. Nothing in it is\n" +
		"secret (no kubeconfig, no token): mail or upload it as it is.\n\n" +
		"-o json or junit prints the check report as `cnpa check` does.\n\n" +
		"Exit code 0 when every check passes, 1 when one fails (the file is written\n" +
		"either way: a half-done lab is graded too), 2 when the cluster or the\n" +
		"evidence dir cannot be reached.\n\n" +
		"With --lab NAME|DIR (a lab kept as a file) it writes the evidence files the\n" +
		"lab's steps name, its checks, the facts they read, and the lab's name and\n" +
		"the SHA-256 of its files.",
	Flags: append([]cli.Flag{
		&cli.StringFlag{Name: "learner", EnvVars: []string{"CNPA_LEARNER"}, Usage: "your `NAME` as the instructor's roster has it (default: your user name)"},
		&cli.StringFlag{Name: "out", Usage: "write the submission to `FILE` (default: <dir>/" + submission.DefaultName + ")"},
		&cli.DurationFlag{Name: "timeout", Value: 30 * time.Second, Usage: "longest wait for the controller in each live check", Action: positive("timeout")},
	}, serviceFlags...),
	Action: func(c *cli.Context) error {
		if fileLab(c) != "" {
			return runOptions(c, &FileSubmitOptions{FileStepOptions: FileStepOptions{IOStreams: streamsOf(c)}})
		}
		return runOptions(c, &SubmitOptions{IOStreams: streamsOf(c)})
	},
}

// SubmitOptions are `cnpa submit`'s flags.
type SubmitOptions struct {
	IOStreams
	globalOptions
	serviceOptions
	// Learner is --learner, "" for the user's name.
	Learner string
	// SubmissionFile is --out, "" for <dir>/submission.json.
	SubmissionFile string
	// ProbeTimeout (--timeout) is the longest wait for the controller in
	// each live check.
	ProbeTimeout time.Duration

	format string // -o, set by Validate
}

// Complete reads the command line into o.
func (o *SubmitOptions) Complete(c *cli.Context) error {
	o.globalOptions.complete(c)
	o.serviceOptions.complete(c)
	o.Learner, o.SubmissionFile, o.ProbeTimeout = c.String("learner"), c.String("out"), c.Duration("timeout")
	return nil
}

// Validate refuses an -o submit does not print.
func (o *SubmitOptions) Validate() (err error) {
	o.format, err = output(&o.globalOptions, "text", "json", "junit")
	return err
}

// Run grades the lab as check does and writes the submission file: exit
// 1 when a check fails (the file is written all the same), 2 when the
// cluster or the evidence dir cannot be reached.
func (o *SubmitOptions) Run(ctx context.Context) error {
	format := o.format
	if err := needEvidenceDir(o.Dir); err != nil {
		return err
	}
	dir, _ := evidenceDir(o.Dir)
	if !theLab.Lab().AnyWritten(dir) {
		return cli.Exit(i18n.T("cli.submit.no_evidence", i18n.Args{"Dir": dir}), 1)
	}
	learner := o.Learner
	if learner == "" {
		u, err := user.Current()
		if err != nil || u.Username == "" {
			return usageError("%s", i18n.T("cli.submit.give_learner"))
		}
		learner = u.Username
	}
	out := o.SubmissionFile
	if out == "" {
		out = filepath.Join(dir, submission.DefaultName)
	}
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		return usageError("%s", i18n.T("cli.submit.out_is_dir", i18n.Args{"Out": out, "Example": filepath.Join(out, submission.DefaultName)}))
	}
	exam, err := examMode(o.Dir)
	if err != nil {
		return err
	}
	env, err := labEnv(&o.globalOptions, o.ErrOut, o.serviceOptions.envOptions())
	if err != nil {
		return err
	}
	progress := ui.New(o.ErrOut, o.NoColor)
	content, rep, err := submit.Submit(ctx, env, learner, version, check.Options{Steps: theLab.Checker(), ProbeTimeout: o.ProbeTimeout, Progress: progress})
	var unreachable *check.UnreachableError
	switch {
	case errors.As(err, &unreachable):
		return cli.Exit(err.Error(), 2)
	case err != nil:
		return cli.Exit(err.Error(), 2)
	}
	if err := judge.SaveLast(env.Dir, rep, time.Now()); err != nil {
		progress.Warn("%s", i18n.T("cli.submit.not_kept", i18n.Args{"Err": err.Error()}))
	}
	content.Exam = exam
	// The last stress run goes with it, for a policy that counts it;
	// one that cannot be read is left out, said, and kept on disk.
	if content.Stress, err = judge.LoadStress(env.Dir); err != nil {
		progress.Warn("%s", err.Error())
	}
	if err := submission.Write(out, content); err != nil {
		return cli.Exit(i18n.T("cli.submit.write", i18n.Args{"Path": out, "Err": err.Error()}), 2)
	}
	p := printer(o.Out, o.NoColor)
	switch format {
	case "json":
		err = judge.WriteJSON(o.Out, rep)
		p = progress
	case "junit":
		err = judge.WriteJUnit(o.Out, rep)
		p = progress
	}
	if err != nil {
		return err
	}
	p.Line("%s", i18n.T("cli.submit.wrote", i18n.Args{"Path": out, "Learner": learner, "Passed": rep.Passed, "Failed": rep.Failed}))
	if c := content.Controller; c != nil {
		key := "cli.submit.controller"
		if c.Truncated {
			key = "cli.submit.controller_cut"
		}
		p.Note("%s", i18n.T(key, i18n.Args{"Name": c.Name, "Lines": c.Lines(), "Max": submission.MaxControllerSize >> 10}))
	}
	if content.Diagnosis != "" {
		p.Note("%s", i18n.T("cli.submit.diagnosis", i18n.Args{"Diagnosis": lab.SayMistake(content.Diagnosis)}))
	}
	if exam {
		p.Note("%s", i18n.T("gradebook.exam"))
	}
	p.Line("%s", i18n.T("cli.submit.send"))
	if !rep.OK() {
		return failed()
	}
	return nil
}

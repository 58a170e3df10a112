package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/labfile"
	"github.com/labhub/cnpa/internal/submission"
	"github.com/labhub/cnpa/internal/submit"
	"github.com/labhub/cnpa/internal/ui"
)

// A lab kept as a file (labs/<name>/lab.yaml) is chosen with --lab or
// CNPA_LAB; without either, every command is the TeamSpace lab's, on its
// own code. `cnpa step` and `cnpa check` hand a file lab to package
// labfile; `cnpa lab lint|test` prove one. The language is chosen here
// once and handed down as a value.

// labFlag chooses the lab.
var labFlag = &cli.StringFlag{Name: "lab", EnvVars: []string{"CNPA_LAB"}, Usage: "the lab: `NAME` of a lab cnpa ships (vap) or a DIR holding lab.yaml (default: the TeamSpace lab)"}

// fileLab is --lab's value when it names a lab kept as a file, "" for the
// TeamSpace lab.
func fileLab(c *cli.Context) string {
	if v := c.String("lab"); v != "teamspace" {
		return v
	}
	return ""
}

var labCommand = &cli.Command{
	Name:  "lab",
	Usage: "prove a lab kept as a file: lint it offline, test it against the cluster",
	Subcommands: []*cli.Command{
		{
			Name:      "lint",
			Usage:     "refuse a lab file that is not whole, offline, with each problem's file, line and fix",
			ArgsUsage: "NAME|DIR",
			Description: "Reads DIR/lab.yaml (or a lab cnpa ships, by NAME) against labs/lab.schema.json,\n" +
				"compiles every expression, checks every verb, every id's words in every\n" +
				"language the lab speaks, and that a mutant or the unsolved state exercises\n" +
				"every check. Exit code 0 when the lab is whole, 1 when it is not.",
			Action: func(c *cli.Context) error { return runOptions(c, &LabLintOptions{IOStreams: streamsOf(c)}) },
		},
		{
			Name:      "test",
			Usage:     "prove a lab file's checks against the cluster: its reference, unsolved state and mutants, each twice",
			ArgsUsage: "NAME|DIR",
			Description: "Runs each case of the lab against the cluster cnpa is pointed at, twice: the\n" +
				"reference must pass every check, the unsolved state no step, and each mutant\n" +
				"must fail the check it names and nothing of an earlier step. It applies the\n" +
				"lab's resources, runs the lab's cleanup after each case and removes the\n" +
				"resources at the end. Exit code 0 when every run goes as the file says, 1\n" +
				"when one does not, 2 when the cluster cannot be reached.",
			Action: func(c *cli.Context) error {
				return runOptions(c, &LabTestOptions{LabLintOptions{IOStreams: streamsOf(c)}})
			},
		},
	},
}

// findLab resolves a lab's NAME or DIR; one that names none is exit code
// 2, said in lang, and so is the TeamSpace lab, which is no file.
func findLab(arg string, lang i18n.Lang) (*labfile.Source, error) {
	if arg == "teamspace" {
		return nil, cli.Exit(lang.T("labfile.out.lab_teamspace"), 2)
	}
	src, err := labfile.Find(arg)
	var unknown *labfile.UnknownLabError
	if errors.As(err, &unknown) {
		return nil, cli.Exit(unknown.Say(lang), 2)
	}
	if err != nil {
		return nil, cli.Exit(err.Error(), 2)
	}
	return src, nil
}

// fileLabCommands are the commands that run a lab kept as a file; every
// other command is the TeamSpace lab's and refuses --lab (refuseFileLab).
var fileLabCommands = map[string]bool{"step": true, "check": true, "submit": true, "class": true, "watch": true, "lab": true, "help": true, "version": true, "completion": true, "": true}

// refuseFileLab is the app's Before: a command that knows only the
// TeamSpace lab, run with --lab or CNPA_LAB naming a file lab, is a usage
// error rather than the TeamSpace lab run unasked.
func refuseFileLab(c *cli.Context) error {
	if lab, cmd := fileLab(c), c.Args().First(); lab != "" && !fileLabCommands[cmd] {
		return usageError("%s", i18n.T("labfile.out.teamspace_only", i18n.Args{"Cmd": cmd, "Lab": lab}))
	}
	return nil
}

// loadLab finds and loads the lab arg names, refusing one that does not
// lint: its problems are the error (exit code 1), in lang.
func loadLab(arg string, lang i18n.Lang) (*labfile.Lab, *labfile.Source, error) {
	src, err := findLab(arg, lang)
	if err != nil {
		return nil, nil, err
	}
	l, ps := labfile.Load(src.FS, src.Where)
	if len(ps) > 0 {
		return nil, nil, cli.Exit(lang.T("labfile.out.problems", i18n.Args{"File": l.File()})+"\n"+ps.Say(lang), 1)
	}
	return l, src, nil
}

// labEngine is the engine of l on the cluster of g, its files on disk;
// done removes what it made.
func labEngine(g *globalOptions, l *labfile.Lab, src *labfile.Source) (e *labfile.Engine, done func(), err error) {
	t, err := target(g)
	if err != nil {
		return nil, nil, err
	}
	unmake, err := src.Materialize()
	if err != nil {
		return nil, nil, err
	}
	kubeconfig := t.Path
	if t.ContextGiven {
		// As labenv's CommandKubeconfig: a small kubeconfig first in the
		// list sets the context every kubectl of the lab's commands uses.
		f := filepath.Join(src.Dir, ".context.kubeconfig")
		data, _ := json.Marshal(map[string]string{"apiVersion": "v1", "kind": "Config", "current-context": t.Context})
		if err := os.WriteFile(f, data, 0o600); err != nil {
			unmake()
			return nil, nil, err
		}
		kubeconfig = f + string(os.PathListSeparator) + t.Path
	}
	e, err = labfile.NewEngine(l, t.Config, kubeconfig, src.Dir)
	if err != nil {
		unmake()
		return nil, nil, cli.Exit(err.Error(), 2)
	}
	return e, unmake, nil
}

// LabLintOptions are `cnpa lab lint`'s argument.
type LabLintOptions struct {
	IOStreams
	globalOptions
	Arg  string
	Args int
}

// Complete reads the command line into o.
func (o *LabLintOptions) Complete(c *cli.Context) error {
	o.globalOptions.complete(c)
	o.Arg, o.Args = c.Args().First(), c.NArg()
	return nil
}

// Validate refuses anything but one lab.
func (o *LabLintOptions) Validate() error {
	if o.Args != 1 {
		return usageError("%s", i18n.T("cli.lab.argument", i18n.Args{"Cmd": o.Command}))
	}
	return nil
}

// Run lints the lab: its problems on stdout and exit 1, or one line.
func (o *LabLintOptions) Run(context.Context) error {
	lang := i18n.Current()
	src, err := findLab(o.Arg, lang)
	if err != nil {
		return err
	}
	l, ps := labfile.Load(src.FS, src.Where)
	if len(ps) > 0 {
		fmt.Fprintln(o.Out, lang.T("labfile.out.problems", i18n.Args{"File": l.File()}))
		fmt.Fprint(o.Out, ps.Say(lang))
		return failed()
	}
	fmt.Fprintln(o.Out, lang.T("labfile.out.lint_ok", i18n.Args{"File": l.File(), "Steps": len(l.Steps),
		"Checks": len(l.CheckIDs()), "Cases": len(l.Cases()), "Langs": i18n.List(l.Languages)}))
	return nil
}

// LabTestOptions are `cnpa lab test`'s argument.
type LabTestOptions struct{ LabLintOptions }

// Run proves the lab against the cluster, each run's outcome as it comes.
func (o *LabTestOptions) Run(ctx context.Context) error {
	lang := i18n.Current()
	l, src, err := loadLab(o.Arg, lang)
	if err != nil {
		return err
	}
	e, done, err := labEngine(&o.globalOptions, l, src)
	if err != nil {
		return err
	}
	defer done()
	p := printer(o.Out, o.NoColor)
	outs, err := e.Prove(ctx, 2, func(out labfile.Outcome) {
		p.Line("%s %s", p.Mark(out.OK), ui.Clean(labfile.SayOutcome(lang, out)))
	})
	if err != nil {
		return cli.Exit(ui.CleanLines(err.Error()), 2)
	}
	bad := 0
	for _, out := range outs {
		if !out.OK {
			bad++
		}
	}
	if bad > 0 {
		p.Line("%s", lang.T("labfile.out.prove_fail", i18n.Args{"Failed": bad, "Runs": len(outs)}))
		return failed()
	}
	p.Line("%s", lang.T("labfile.out.prove_ok", i18n.Args{"Cases": len(l.Cases())}))
	return nil
}

// fileLabDir is the evidence dir of file lab l: --dir (or CNPA_DIR) when
// given, else /root/cnpa-<name> beside the TeamSpace lab's /root/cnpa-op.
func fileLabDir(c *cli.Context, l *labfile.Lab) string {
	if c.IsSet("dir") {
		return c.String("dir")
	}
	return filepath.Join(filepath.Dir(c.String("dir")), "cnpa-"+l.Metadata.Name)
}

// FileStepOptions are `cnpa step` for a lab kept as a file.
type FileStepOptions struct {
	IOStreams
	globalOptions
	Lab      string
	Arg      string
	Args     int
	dirGiven func(*labfile.Lab) string
}

// Complete reads the command line into o.
func (o *FileStepOptions) Complete(c *cli.Context) error {
	o.globalOptions.complete(c)
	o.Lab, o.Arg, o.Args = fileLab(c), c.Args().First(), c.NArg()
	o.dirGiven = func(l *labfile.Lab) string { return fileLabDir(c, l) }
	return nil
}

// Validate refuses anything but one step argument.
func (o *FileStepOptions) Validate() error {
	if o.Args != 1 {
		return usageError("%s", i18n.T("cli.lab.step_argument"))
	}
	_, err := output(&o.globalOptions, "text")
	return err
}

// stepsOf are the steps arg names: a number, a step's id, or all.
func stepsOf(l *labfile.Lab, arg string, lang i18n.Lang) ([]*labfile.Step, error) {
	if arg == "all" {
		return l.Steps, nil
	}
	if n, err := strconv.Atoi(arg); err == nil && n >= 1 && n <= len(l.Steps) {
		return l.Steps[n-1 : n], nil
	}
	if s := l.Step(arg); s != nil {
		return []*labfile.Step{s}, nil
	}
	return nil, usageError("%s", lang.T("labfile.out.no_step", i18n.Args{"Lab": l.Metadata.Name, "Step": arg, "Steps": l.Range()}))
}

// Run runs the steps in turn: the lab's resources applied, each step's
// commands, its evidence written and its checks graded; exit 1 at the
// first step whose checks do not all pass.
func (o *FileStepOptions) Run(ctx context.Context) error {
	lang := i18n.Current()
	l, src, err := loadLab(o.Lab, lang)
	if err != nil {
		return err
	}
	steps, err := stepsOf(l, o.Arg, lang)
	if err != nil {
		return err
	}
	dir, err := evidenceDir(o.dirGiven(l))
	if err != nil {
		return err
	}
	e, done, err := labEngine(&o.globalOptions, l, src)
	if err != nil {
		return err
	}
	defer done()
	if err := e.Install(ctx); err != nil {
		return cli.Exit(ui.CleanLines(err.Error()), 2)
	}
	p := printer(o.Out, o.NoColor)
	hints := labfile.LoadHints(dir, l.Metadata.Name)
	for _, s := range steps {
		p.Title("%s", l.Heading(lang, s.ID))
		p.Note("%s", ui.Wrap(l.Word(lang, s.ID+".text"), ui.Cols))
		_, file, err := e.RunStep(ctx, s, dir)
		if err != nil {
			return cli.Exit(ui.CleanLines(err.Error()), 2)
		}
		rep, err := e.Grade(ctx, dir, s.ID)
		if err != nil {
			return err
		}
		l.WriteText(p, lang, rep, hints, true)
		p.Line("  %s", lang.T("labfile.out.wrote", i18n.Args{"File": file}))
		if !rep.OK() {
			return failed()
		}
	}
	return nil
}

// FileCheckOptions are `cnpa check` for a lab kept as a file.
type FileCheckOptions struct {
	FileStepOptions
	Step string
}

// Complete reads the command line into o.
func (o *FileCheckOptions) Complete(c *cli.Context) error {
	if err := o.FileStepOptions.Complete(c); err != nil {
		return err
	}
	o.Step = c.String("step")
	return nil
}

// Validate refuses an -o check does not print for a file lab.
func (o *FileCheckOptions) Validate() error {
	_, err := output(&o.globalOptions, "text", "json")
	return err
}

// Run grades every step (or --step's): exit 1 when a check does not pass
// or nothing is written yet.
func (o *FileCheckOptions) Run(ctx context.Context) error {
	lang := i18n.Current()
	l, src, err := loadLab(o.Lab, lang)
	if err != nil {
		return err
	}
	only := ""
	if o.Step != "" {
		steps, err := stepsOf(l, o.Step, lang)
		if err != nil {
			return err
		}
		only = steps[0].ID
	}
	dir, err := evidenceDir(o.dirGiven(l))
	if err != nil {
		return err
	}
	if !anyEvidence(l, dir) {
		return cli.Exit(lang.T("labfile.out.no_evidence", i18n.Args{"Dir": dir, "Lab": l.Metadata.Name}), 1)
	}
	e, done, err := labEngine(&o.globalOptions, l, src)
	if err != nil {
		return err
	}
	defer done()
	rep, err := e.Grade(ctx, dir, only)
	if err != nil {
		return err
	}
	hints := labfile.LoadHints(dir, l.Metadata.Name)
	// Counted before it is shown: the first failure shows the nudge, the
	// next one more.
	_ = hints.Count(dir, l.Metadata.Name, rep) // a count not kept costs a hint shown again, not the grade
	if o.Output == "json" {
		if err := ui.WriteJSON(o.Out, l.JSON(lang, rep, hints)); err != nil {
			return err
		}
	} else {
		l.WriteText(printer(o.Out, o.NoColor), lang, rep, hints, false)
	}
	if !rep.OK() {
		return failed()
	}
	return nil
}

// FileSubmitOptions are `cnpa submit` for a lab kept as a file.
type FileSubmitOptions struct {
	FileStepOptions
	Learner, SubmissionFile string
}

// Complete reads the command line into o.
func (o *FileSubmitOptions) Complete(c *cli.Context) error {
	if err := o.FileStepOptions.Complete(c); err != nil {
		return err
	}
	o.Learner, o.SubmissionFile = c.String("learner"), c.String("out")
	return nil
}

// Validate refuses an -o submit does not print for a file lab.
func (o *FileSubmitOptions) Validate() error {
	_, err := output(&o.globalOptions, "text", "json")
	return err
}

// Run grades the lab as `cnpa --lab NAME check` does and writes the
// submission: the lab's name and content hash, its evidence, every check
// and the facts read. Exit 1 when a check does not pass (the file is
// written all the same), 2 when the cluster cannot be reached.
func (o *FileSubmitOptions) Run(ctx context.Context) error {
	lang := i18n.Current()
	l, src, err := loadLab(o.Lab, lang)
	if err != nil {
		return err
	}
	hash, err := labfile.Hash(src.FS)
	if err != nil {
		return cli.Exit(err.Error(), 2)
	}
	dir, err := evidenceDir(o.dirGiven(l))
	if err != nil {
		return err
	}
	if !anyEvidence(l, dir) {
		return cli.Exit(lang.T("labfile.out.no_evidence", i18n.Args{"Dir": dir, "Lab": l.Metadata.Name}), 1)
	}
	learner := o.Learner
	if learner == "" {
		u, err := user.Current()
		if err != nil || u.Username == "" {
			return usageError("%s", lang.T("cli.submit.give_learner"))
		}
		learner = u.Username
	}
	if err := submission.CheckName(learner); err != nil {
		return usageError("--learner: %s", err.Error())
	}
	out := o.SubmissionFile
	if out == "" {
		out = filepath.Join(dir, submission.DefaultName)
	}
	if fi, err := os.Stat(out); err == nil && fi.IsDir() {
		return usageError("%s", lang.T("cli.submit.out_is_dir", i18n.Args{"Out": out, "Example": filepath.Join(out, submission.DefaultName)}))
	}
	t, err := target(&o.globalOptions)
	if err != nil {
		return err
	}
	k, err := kube.NewTyped(t.Config)
	if err != nil {
		return cli.Exit(err.Error(), 2)
	}
	cl, err := submit.IdentityOf(ctx, k, t.Server, t.Path)
	if err != nil {
		return cli.Exit(ui.CleanLines(err.Error()), 2)
	}
	e, done, err := labEngine(&o.globalOptions, l, src)
	if err != nil {
		return err
	}
	defer done()
	rep, err := e.Grade(ctx, dir, "")
	if err != nil {
		return err
	}
	content, err := submit.FileLab(l, hash, rep, lang, dir, learner, version, cl)
	if err != nil {
		return cli.Exit(err.Error(), 2)
	}
	if err := submission.Write(out, content); err != nil {
		return cli.Exit(lang.T("cli.submit.write", i18n.Args{"Path": out, "Err": err.Error()}), 2)
	}
	hints := labfile.LoadHints(dir, l.Metadata.Name)
	p := printer(o.Out, o.NoColor)
	if o.Output == "json" {
		if err := ui.WriteJSON(o.Out, l.JSON(lang, rep, hints)); err != nil {
			return err
		}
		p = ui.New(o.ErrOut, o.NoColor)
	} else {
		l.WriteText(p, lang, rep, hints, false)
	}
	p.Line("%s", lang.T("cli.submit.wrote", i18n.Args{"Path": out, "Learner": learner, "Passed": content.Passed, "Failed": content.Failed}))
	p.Note("%s", lang.T("labfile.out.submitted_lab", i18n.Args{"Lab": l.Metadata.Name, "Hash": hash[:12]}))
	p.Line("%s", lang.T("cli.submit.send"))
	if !rep.OK() {
		return failed()
	}
	return nil
}

// anyEvidence tells whether dir holds the evidence file of any step of l.
func anyEvidence(l *labfile.Lab, dir string) bool {
	for _, s := range l.Steps {
		if _, err := os.Stat(filepath.Join(dir, s.Evidence.File)); err == nil {
			return true
		}
	}
	return false
}

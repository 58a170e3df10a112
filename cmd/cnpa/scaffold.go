package main

import (
	"context"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/ui"
)

var scaffoldCommand = &cli.Command{
	Name:      "scaffold",
	Usage:     "write one of cnpa's reference reconcile.sh scripts into the evidence dir, to read or start from",
	ArgsUsage: "reconcile.sh",
	Description: "The lab's exercise is to write reconcile.sh yourself (`--engine own`); cnpa never\n" +
		"writes it then. When you want a reference to read, this writes cnpa's own:\n" +
		"--engine shell (kubectl and jq) or --engine go (one pass of `cnpa controller\n" +
		"--once`), with finalizer handling on. An existing reconcile.sh is kept unless\n" +
		"--force.",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "engine", Value: labenv.EngineShell, Usage: "`ENGINE` of the reference: shell or go"},
		&cli.BoolFlag{Name: "force", Usage: "overwrite an existing reconcile.sh"},
		&cli.BoolFlag{Name: "finalizer", Value: true, Usage: "handle platform.labhub.io/cleanup (the lab text, step 6); --finalizer=false is the script as step 3 installs it"},
	},
	BashComplete: func(c *cli.Context) {
		if !completeFlagValue(c) {
			fmt.Fprintln(c.App.Writer, labenv.ScriptName)
		}
	},
	Action: func(c *cli.Context) error { return runOptions(c, &ScaffoldOptions{IOStreams: streamsOf(c)}) },
}

// ScaffoldOptions are `cnpa scaffold`'s flags and argument.
type ScaffoldOptions struct {
	IOStreams
	globalOptions
	// Arg is the file to write, as typed (reconcile.sh is the one);
	// Args counts the arguments given (one is right).
	Arg              string
	Args             int
	Engine           string
	Force, Finalizer bool
}

// Complete reads the command line into o.
func (o *ScaffoldOptions) Complete(c *cli.Context) error {
	o.globalOptions.complete(c)
	o.Arg, o.Args = c.Args().First(), c.NArg()
	o.Engine, o.Force, o.Finalizer = c.String("engine"), c.Bool("force"), c.Bool("finalizer")
	return nil
}

// Validate refuses any argument but reconcile.sh.
func (o *ScaffoldOptions) Validate() error {
	if o.Args != 1 || o.Arg != labenv.ScriptName {
		return usageError("%s", i18n.T("cli.scaffold.usage", i18n.Args{"Script": labenv.ScriptName}))
	}
	return nil
}

// Run writes the reference script into the evidence dir.
func (o *ScaffoldOptions) Run(context.Context) error {
	dir, err := evidenceDir(o.Dir)
	if err != nil {
		return err
	}
	if err := refuseInExam(o.Dir, o.Command); err != nil {
		return err
	}
	t, err := target(&o.globalOptions)
	if err != nil {
		return err
	}
	// No engine is passed: the evidence dir's own choice stays as it is.
	env, err := labenv.NewEnv(t, labenv.Options{Dir: dir, Progress: ui.New(o.ErrOut, o.NoColor)})
	if err != nil {
		return cli.Exit(err.Error(), 2)
	}
	path, err := env.Scaffold(o.Engine, o.Force, o.Finalizer)
	if err != nil {
		return cli.Exit(err.Error(), 2)
	}
	handling := i18n.T("cli.scaffold.off")
	if o.Finalizer {
		handling = i18n.T("cli.scaffold.on")
	}
	printer(o.Out, o.NoColor).Line("%s", i18n.T("cli.scaffold.wrote", i18n.Args{"Path": path, "Engine": o.Engine, "Handling": handling}))
	return nil
}

package main

import (
	"fmt"
	"os"

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
	Action: func(c *cli.Context) error {
		if c.NArg() != 1 || c.Args().First() != labenv.ScriptName {
			return usageError("%s", i18n.T("cli.scaffold.usage", i18n.Args{"Script": labenv.ScriptName}))
		}
		dir, err := evidenceDir(c)
		if err != nil {
			return err
		}
		if err := refuseInExam(c); err != nil {
			return err
		}
		t, err := target(c)
		if err != nil {
			return err
		}
		// No engine is passed: the evidence dir's own choice stays as it is.
		env, err := labenv.NewEnv(t, labenv.Options{Dir: dir, Progress: ui.New(os.Stderr, c.Bool("no-color"))})
		if err != nil {
			return cli.Exit(err.Error(), 2)
		}
		path, err := env.Scaffold(c.String("engine"), c.Bool("force"), c.Bool("finalizer"))
		if err != nil {
			return cli.Exit(err.Error(), 2)
		}
		handling := i18n.T("cli.scaffold.off")
		if c.Bool("finalizer") {
			handling = i18n.T("cli.scaffold.on")
		}
		printer(c).Line("%s", i18n.T("cli.scaffold.wrote", i18n.Args{"Path": path, "Engine": c.String("engine"), "Handling": handling}))
		return nil
	},
}

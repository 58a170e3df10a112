package main

import (
	"context"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"
	"k8s.io/klog/v2"

	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/ui"
	"github.com/labhub/cnpa/internal/watch"
)

var watchCommand = &cli.Command{
	Name:  "watch",
	Usage: "judge the step you are on again each time you save a file or the cluster changes",
	Description: "Watches your files in the evidence dir (reconcile.sh, crd.yaml, alpha.yaml,\n" +
		"the JSON evidence) and the unit, and the cluster's TeamSpaces, team-*\n" +
		"namespaces and quotas. On every change it judges the step you are on again,\n" +
		"as `cnpa check --step N` does, then the steps after it. It never writes your\n" +
		"files; the step you are on is kept in <dir>/.cnpa/watch.json.\n\n" +
		"Keys: h hint (a nudge, then the commands), n next step, 1-8 a step, l list,\n" +
		"c check all, q quit. Not on a terminal it prints plain lines; -o json one\n" +
		"JSON object a verdict: step, id, status, expected, actual, at.",
	Flags: append([]cli.Flag{
		&cli.DurationFlag{Name: "timeout", Value: 30 * time.Second, Usage: "longest wait for the controller in each live check", Action: positive("timeout")},
	}, serviceFlags...),
	Action: func(c *cli.Context) error {
		out, err := output(c, "text", "json")
		if err != nil {
			return err
		}
		if err := needEvidenceDir(c); err != nil {
			return err
		}
		env, err := labEnv(c)
		if err != nil {
			return err
		}
		// The informers' reflectors log a failed watch through klog; the
		// screen says it once, in the learner's language.
		klog.SetOutput(io.Discard)
		klog.LogToStderr(false)

		format := watch.Plain
		switch {
		case out == "json":
			format = watch.JSON
		case watch.IsTerminal(os.Stdout):
			format = watch.Screen
		}
		// Raw mode only under the screen: elsewhere a key comes with Enter.
		keys, restore, err := watch.Keys(os.Stdin, format == watch.Screen)
		if err != nil {
			return cli.Exit(err.Error(), 2)
		}
		defer restore()

		ctx, cancel := context.WithCancel(c.Context) // cancelled by Ctrl-C, SIGTERM or SIGHUP (see run)
		defer cancel()
		unit := env.Service.UnitPath()
		notes := make(chan string, 16)
		files, err := watch.Files(ctx, watch.LearnerFiles(theLab.Lab(), env.Dir, unit), watch.Debounce, func(s string) {
			select {
			case notes <- s:
			default:
			}
		})
		if err != nil {
			return cli.Exit(err.Error(), 2)
		}
		changed, down := make(chan struct{}, 1), make(chan error, 1)
		watch.Cluster(ctx, env.Clients.Dynamic, changed, func(err error) {
			select {
			case down <- err:
			default:
			}
		})
		view := &watch.View{Dir: env.Dir, P: ui.New(io.Discard, c.Bool("no-color") || format != watch.Screen),
			Where: lab.Where{Dir: env.Dir, UnitDir: env.UnitDir, ServiceManager: env.Service.Name()}}
		return watch.Run(ctx, watch.Options{Steps: theLab.Lab(),
			Dir: env.Dir, View: view, Format: format, Out: os.Stdout, Err: os.Stderr,
			Judge: watch.CheckJudger(theLab.Checker(), env, c.Duration("timeout")),
			Keys:  keys, Files: files, Notes: notes, Changed: changed, Down: down, UnitPath: unit,
		})
	},
}

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
		"JSON object a verdict: step, id, status, expected, actual, at.\n\n" +
		"With --lab NAME|DIR (a lab kept as a file) the step you are on is graded\n" +
		"again at each save of the lab's evidence files and every --poll (the\n" +
		"cluster is polled); q quits.",
	Flags: append([]cli.Flag{
		&cli.DurationFlag{Name: "timeout", Value: 30 * time.Second, Usage: "longest wait for the controller in each live check", Action: positive("timeout")},
		&cli.DurationFlag{Name: "poll", Value: 2 * time.Second, Usage: "with --lab: grade again every `D` (the cluster is polled)", Action: positive("poll")},
	}, serviceFlags...),
	Action: func(c *cli.Context) error {
		if fileLab(c) != "" {
			return runOptions(c, &FileWatchOptions{FileStepOptions: FileStepOptions{IOStreams: streamsOf(c)}})
		}
		return runOptions(c, &WatchOptions{IOStreams: streamsOf(c)})
	},
}

// WatchOptions are `cnpa watch`'s flags.
type WatchOptions struct {
	IOStreams
	globalOptions
	serviceOptions
	// ProbeTimeout (--timeout) is the longest wait for the controller in
	// each live check.
	ProbeTimeout time.Duration

	out string // -o, set by Validate
}

// Complete reads the command line into o.
func (o *WatchOptions) Complete(c *cli.Context) error {
	o.globalOptions.complete(c)
	o.serviceOptions.complete(c)
	o.ProbeTimeout = c.Duration("timeout")
	return nil
}

// Validate refuses an -o watch does not print.
func (o *WatchOptions) Validate() (err error) {
	o.out, err = output(&o.globalOptions, "text", "json")
	return err
}

// Run judges the step the learner is on at every change until q or ctx
// ends. Keys are read from In, which must be a file (the terminal, in
// raw mode under the screen); on Out a terminal gets the screen.
func (o *WatchOptions) Run(ctx context.Context) error {
	out := o.out
	if err := needEvidenceDir(o.Dir); err != nil {
		return err
	}
	env, err := labEnv(&o.globalOptions, o.ErrOut, o.serviceOptions.envOptions())
	if err != nil {
		return err
	}
	// The informers' reflectors log a failed watch through klog; the
	// screen says it once, in the learner's language.
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	// From here stderr gets only watch's notices, which may carry the API
	// server's error text: cleaned of control characters, escapes and
	// bidi overrides at this boundary (R4-6).
	o.ErrOut = ui.CleanWriter(o.ErrOut)

	format := watch.Plain
	switch {
	case out == "json":
		format = watch.JSON
	case isFile(o.Out) && watch.IsTerminal(o.Out.(*os.File)):
		format = watch.Screen
	}
	in, err := fileOf(o.In)
	if err != nil {
		return cli.Exit(err.Error(), 2)
	}
	// Raw mode only under the screen: elsewhere a key comes with Enter.
	keys, restore, err := watch.Keys(in, format == watch.Screen)
	if err != nil {
		return cli.Exit(err.Error(), 2)
	}
	defer restore()

	ctx, cancel := context.WithCancel(ctx)
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
	view := &watch.View{Dir: env.Dir, P: ui.New(io.Discard, o.NoColor || format != watch.Screen),
		Where: lab.Where{Dir: env.Dir, UnitDir: env.UnitDir, ServiceManager: env.Service.Name()}}
	return watch.Run(ctx, watch.Options{Steps: theLab.Lab(),
		Dir: env.Dir, View: view, Format: format, Out: o.Out, Err: o.ErrOut,
		Judge: watch.CheckJudger(theLab.Checker(), env, o.ProbeTimeout), Probes: watch.ProbesOf(theLab.Checker()), Held: watch.Held(env),
		Keys: keys, Files: files, Notes: notes, Changed: changed, Down: down, UnitPath: unit,
	})
}

// isFile tells whether w is a file (stdout is; a test's buffer is not).
func isFile(w io.Writer) bool {
	_, ok := w.(*os.File)
	return ok
}

// fileOf is r as a file, for watch.Keys (which may put a terminal in raw
// mode): r itself when it is one (stdin), else a pipe that r is copied
// into (a test's reader).
func fileOf(r io.Reader) (*os.File, error) {
	if f, ok := r.(*os.File); ok {
		return f, nil
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	go func() {
		_, _ = io.Copy(pw, r) // a reader that fails ends the keys, as EOF does
		pw.Close()
	}()
	return pr, nil
}

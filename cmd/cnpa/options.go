package main

import (
	"context"
	"io"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/labenv"
)

// Every command is an options value, as kubectl's are
// (pkg/cmd/rollout/rollout_restart.go): a struct XxxOptions holding the
// parsed flags and arguments as typed fields, and three methods:
//
//   - Complete reads the command line into the fields: the only method
//     that sees urfave/cli, and it reads only the flags the command (or
//     the app, for the global flags) defines;
//   - Validate refuses input that makes no sense, a usage error (exit 2)
//     naming the thing and the fix; it asks no cluster;
//   - Run does the work, writing to the options' IOStreams only, and
//     returns an error whose cli.ExitCoder is the exit code.
//
// The cli.Action is an adapter (runOptions); a test builds the options
// itself, with buffers for streams, and calls Validate or Run.

// IOStreams are where a command reads and writes: the app's Reader, Writer
// and ErrWriter (stdin, stdout, stderr), buffers in a test.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// streamsOf are the streams of c's app.
func streamsOf(c *cli.Context) IOStreams {
	return IOStreams{In: c.App.Reader, Out: c.App.Writer, ErrOut: c.App.ErrWriter}
}

// commandOptions is what every command's options value does.
type commandOptions interface {
	Complete(c *cli.Context) error
	Validate() error
	Run(ctx context.Context) error
}

// runOptions is a command's Action: o from the command line, checked,
// run with the command's context (cancelled by Ctrl-C, SIGTERM or SIGHUP,
// see run).
func runOptions(c *cli.Context, o commandOptions) error {
	if err := o.Complete(c); err != nil {
		return err
	}
	if err := o.Validate(); err != nil {
		return err
	}
	return o.Run(c.Context)
}

// globalOptions are the app's flags (globalFlags), which every command
// takes, and the command's name as its messages say it.
type globalOptions struct {
	Kubeconfig, Context string
	// Dir is the evidence dir.
	Dir     string
	NoColor bool
	// Output is -o, checked by each command against what it prints.
	Output string
	// Command is the command's name ("step", "grade").
	Command string
}

// complete reads the global flags of c.
func (g *globalOptions) complete(c *cli.Context) {
	g.Kubeconfig, g.Context, g.Dir = c.String("kubeconfig"), c.String("context"), c.String("dir")
	g.NoColor, g.Output = c.Bool("no-color"), c.String("output")
	if c.Command != nil {
		g.Command = c.Command.Name
	}
}

// serviceOptions are the values of serviceFlags.
type serviceOptions struct {
	ServiceManager, UnitDir string
}

func (s *serviceOptions) complete(c *cli.Context) {
	s.ServiceManager, s.UnitDir = c.String("service-manager"), c.String("unit-dir")
}

// envOptions are what the service flags say of the lab's environment.
func (s serviceOptions) envOptions() labenv.Options {
	return labenv.Options{ServiceManager: s.ServiceManager, UnitDir: s.UnitDir}
}

// labEnvOptions are the values of labEnvFlags.
type labEnvOptions struct {
	Engine string
	serviceOptions
	ServiceIdentity string
	// Timeout is the longest wait for any one condition.
	Timeout time.Duration
}

func (l *labEnvOptions) complete(c *cli.Context) {
	l.Engine = c.String("engine")
	l.serviceOptions.complete(c)
	l.ServiceIdentity, l.Timeout = c.String("service-identity"), c.Duration("timeout")
}

// envOptions are what labEnvFlags say of the lab's environment.
func (l labEnvOptions) envOptions() labenv.Options {
	o := l.serviceOptions.envOptions()
	o.Engine, o.ServiceIdentity, o.Timeout = l.Engine, l.ServiceIdentity, l.Timeout
	return o
}

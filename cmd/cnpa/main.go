// Command cnpa runs, verifies and explains the TeamSpace controller lab.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/urfave/cli/v2"
)

// appUsage is what cnpa is, in its help.
const appUsage = "run, verify and explain the TeamSpace controller lab"

// englishHelp is urfave/cli's own help printer, which localizedHelp wraps.
var englishHelp = cli.HelpPrinterCustom

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() { os.Exit(run(os.Args)) }

// run maps the command line to an exit code: 0 ok, 1 a check or step
// failed, 2 usage or environment (unreachable cluster, bad kubeconfig).
func run(args []string) int {
	return runStreams(args, IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr})
}

// runStreams is run with s for stdin, stdout and stderr: the app's Reader,
// Writer and ErrWriter, which every command's options write to.
func runStreams(args []string, s IOStreams) int {
	app := &cli.App{
		Reader:               s.In,
		Writer:               s.Out,
		ErrWriter:            s.ErrOut,
		Name:                 "cnpa",
		Usage:                appUsage,
		Version:              version,
		Flags:                globalFlags,
		Commands:             appCommands(),
		EnableBashCompletion: true,
		ExitErrHandler:       func(*cli.Context, error) {}, // run reports errors itself
		OnUsageError:         onUsageError,
		Before:               refuseFileLab,
	}
	strictUsage(app.Commands)
	cli.HelpPrinterCustom = localizedHelp(app, englishHelp)
	// `cnpa stpe` and `cnpa help stpe` reach urfave/cli's help, which calls
	// CommandNotFound (and, without it, exits 3 with "No help topic"); the
	// usage error is kept here and returned in place of help's nil.
	var notFound error
	app.CommandNotFound = func(c *cli.Context, name string) { notFound = unknownCommand(c, name) }
	cli.VersionFlag = versionFlag
	cli.VersionPrinter = func(c *cli.Context) { printVersion(c.App.Writer) }
	// Ctrl-C, SIGTERM and SIGHUP (what a closed SSH session sends) cancel
	// the command's context instead of killing it, so every command gets
	// to undo what it started: step 7 starts the service it stopped, check
	// removes its temporary TeamSpaces.
	// A second signal is not caught: once the first has cancelled the
	// context, the default action is back (stop), so a command stuck where
	// no context reaches (a read that blocks) still ends on the next
	// Ctrl-C or SIGTERM.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	go func() {
		<-ctx.Done()
		stop()
	}()
	err := chooseLang(args)
	if err == nil {
		err = app.RunContext(ctx, hoistForCompletion(args))
	}
	if notFound != nil {
		err = notFound
	}
	return exitCode(s.ErrOut, err)
}

// exitCode is err's exit code, its message said on w after "cnpa: ": 0
// for nil, a cli.ExitCoder's own code (its message unless empty: a failed
// step or check has printed its own), any other error 1. An ExitCoder
// without a message stays silent however it was wrapped: context put
// before a failure already said ("cnpa-op.service: ") is no reason, and a
// line of context alone would say nothing.
func exitCode(w io.Writer, err error) int {
	if err == nil {
		return 0
	}
	var ec cli.ExitCoder
	if errors.As(err, &ec) {
		if ec.Error() != "" {
			fmt.Fprintln(w, "cnpa: "+err.Error())
		}
		return ec.ExitCode()
	}
	fmt.Fprintln(w, "cnpa: "+err.Error())
	return 1
}

// appCommands are cnpa's commands, in the order help lists them.
func appCommands() []*cli.Command {
	return []*cli.Command{
		stepCommand, controllerCommand, withFlagValues(checkCommand), withFlagValues(statusCommand),
		serviceCommand, withFlagValues(resetCommand), withFlagValues(doctorCommand), versionCommand, completionCommand, explainCommand, scaffoldCommand, reportCommand,
		withFlagValues(submitCommand), classCommand, labCommand, withFlagValues(stressCommand), withFlagValues(watchCommand),
	}
}

// usageError is a wrong command line: exit code 2.
func usageError(format string, a ...any) error {
	return cli.Exit(fmt.Sprintf(format, a...), 2)
}

// failed is a step or check that failed: exit code 1, message already printed.
func failed() error { return cli.Exit("", 1) }

package main

import (
	"context"
	"fmt"
	"io"
	"runtime"

	"github.com/urfave/cli/v2"
)

var versionCommand = &cli.Command{
	Name:  "version",
	Usage: "print cnpa's version",
	Action: func(c *cli.Context) error {
		return runOptions(c, &VersionOptions{IOStreams: streamsOf(c)})
	},
}

// VersionOptions are `cnpa version`'s: none but where to print.
type VersionOptions struct {
	IOStreams
}

// Complete reads nothing: version takes no flags.
func (o *VersionOptions) Complete(*cli.Context) error { return nil }

// Validate has nothing to refuse.
func (o *VersionOptions) Validate() error { return nil }

// Run prints the version.
func (o *VersionOptions) Run(context.Context) error {
	printVersion(o.Out)
	return nil
}

// printVersion is what both `cnpa version` and `cnpa --version` print.
func printVersion(w io.Writer) {
	fmt.Fprintf(w, "cnpa %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

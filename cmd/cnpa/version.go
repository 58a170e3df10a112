package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

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

// commit and buildDate are set by `make dist` with -ldflags "-X
// main.commit=... -X main.buildDate=...", from git (the commit's hash and
// its committer date, so that two builds of one commit are the same
// bytes). Without them the Go toolchain's own record is read, which a
// `go build` in a git checkout stamps (vcs.revision, vcs.time).
var commit, buildDate string

// printVersion is what both `cnpa version` and `cnpa --version` print:
// the version, then the commit and its date when known, the Go release
// and the platform, e.g.
// `cnpa 0.1.0 (commit 181eda6a1b2c, 2026-12-07T18:59:12Z, go1.26.8, linux/amd64)`.
func printVersion(w io.Writer) {
	fmt.Fprintf(w, "cnpa %s (%s%s, %s/%s)\n", version, provenance(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// provenance is "commit C, D, " from the -X values or the build info,
// "" when neither knows the commit (a `go test` binary).
func provenance() string {
	c, d := commit, buildDate
	if c == "" {
		if bi, ok := debug.ReadBuildInfo(); ok {
			dirty := false
			for _, s := range bi.Settings {
				switch s.Key {
				case "vcs.revision":
					c = s.Value
				case "vcs.time":
					d = s.Value
				case "vcs.modified":
					dirty = s.Value == "true"
				}
			}
			if len(c) > 12 {
				c = c[:12]
			}
			if c != "" && dirty {
				c += "-dirty"
			}
		}
	}
	if c == "" {
		return ""
	}
	if d == "" {
		return "commit " + c + ", "
	}
	return "commit " + c + ", " + d + ", "
}

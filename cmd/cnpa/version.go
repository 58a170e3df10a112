package main

import (
	"fmt"
	"runtime"

	"github.com/urfave/cli/v2"
)

var versionCommand = &cli.Command{
	Name:  "version",
	Usage: "print cnpa's version",
	Action: func(c *cli.Context) error {
		printVersion()
		return nil
	},
}

// printVersion is what both `cnpa version` and `cnpa --version` print.
func printVersion() {
	fmt.Printf("cnpa %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

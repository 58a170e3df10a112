package main

import (
	"time"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/i18n"
)

// Numeric flags are checked where they are parsed: a value that makes no
// sense (a negative line count, a zero timeout) is a usage error (exit 2)
// naming the flag and what it takes, not a panic or a silent default.

// positive refuses a duration that is zero or negative.
func positive(name string) func(*cli.Context, time.Duration) error {
	return func(_ *cli.Context, d time.Duration) error {
		if d <= 0 {
			return usageError("%s", i18n.T("cli.flag.duration", i18n.Args{"Flag": "--" + name, "Value": d.String()}))
		}
		return nil
	}
}

// atLeast refuses an integer below min.
func atLeast(name string, min int) func(*cli.Context, int) error {
	return func(_ *cli.Context, n int) error {
		if n < min {
			return usageError("%s", i18n.T("cli.flag.at_least", i18n.Args{"Flag": "--" + name, "Value": n, "Min": min}))
		}
		return nil
	}
}

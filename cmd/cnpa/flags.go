package main

import (
	"time"

	"github.com/urfave/cli/v2"
)

// Numeric flags are checked where they are parsed: a value that makes no
// sense (a negative line count, a zero timeout) is a usage error (exit 2)
// naming the flag and what it takes, not a panic or a silent default.

// positive refuses a duration that is zero or negative.
func positive(name string) func(*cli.Context, time.Duration) error {
	return func(_ *cli.Context, d time.Duration) error {
		if d <= 0 {
			return usageError("--%s %s: give a positive duration, e.g. 30s or 3m", name, d)
		}
		return nil
	}
}

// atLeast refuses an integer below min.
func atLeast(name string, min int) func(*cli.Context, int) error {
	return func(_ *cli.Context, n int) error {
		if n < min {
			return usageError("--%s %d: give a whole number of at least %d", name, n, min)
		}
		return nil
	}
}

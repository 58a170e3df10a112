package main

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/i18n"
)

// A wrong command line is answered as kubectl answers it: one line naming
// what was not understood, the nearest real name ("did you mean"), where
// the list is, and exit code 2. Never the whole help: it hides the one line
// that matters, and scripts read the exit code.

// strictUsage gives every command, at every depth, the usage-error handler:
// urfave/cli sets App.OnUsageError on the root command only, and a
// subcommand without one prints its whole help and exits 1.
//
// A command that takes no arguments (no ArgsUsage) refuses one, rather
// than ignoring it: `cnpa check 5` would otherwise grade every step.
func strictUsage(cmds []*cli.Command) {
	for _, c := range cmds {
		c.OnUsageError = onUsageError
		if action := c.Action; action != nil && c.ArgsUsage == "" && len(c.Subcommands) == 0 {
			c.Action = func(ctx *cli.Context) error {
				if ctx.NArg() > 0 {
					cmd := commandPath(ctx)
					return usageError("%s", i18n.T("usage.no_arguments", i18n.Args{"Cmd": cmd, "QCmd": q(cmd), "Arg": q(ctx.Args().First())}))
				}
				return action(ctx)
			}
		}
		strictUsage(c.Subcommands)
	}
}

// onUsageError turns urfave/cli's (Go flag package's) parse errors into one
// line: an unknown flag with the nearest known one, a flag without its
// value, or a value that does not parse.
func onUsageError(c *cli.Context, err error, _ bool) error {
	cmd := commandPath(c)
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "flag provided but not defined: "):
		name := strings.TrimLeft(strings.TrimPrefix(msg, "flag provided but not defined: "), "-")
		return usageError("%s", i18n.T("usage.unknown_flag", i18n.Args{"Flag": dashed(name), "Cmd": cmd, "QCmd": q(cmd), "DidYouMean": didYouMean(name, flagNames(c), dashed)}))
	case strings.HasPrefix(msg, "flag needs an argument: "):
		name := strings.TrimLeft(strings.TrimPrefix(msg, "flag needs an argument: "), "-")
		return usageError("%s", i18n.T("usage.needs_value", i18n.Args{"Flag": dashed(name), "Cmd": cmd, "QCmd": q(cmd)}))
	}
	if m := invalidValue.FindStringSubmatch(msg); m != nil {
		return usageError("%s", i18n.T("usage.invalid_value", i18n.Args{"Flag": dashed(m[2]), "Cmd": cmd, "QCmd": q(cmd), "Value": q(m[1]), "Err": m[3]}))
	}
	return usageError("%s", i18n.T("usage.other", i18n.Args{"Cmd": cmd, "Err": msg}))
}

// invalidValue is the Go flag package's error for a value that does not parse.
var invalidValue = regexp.MustCompile(`^invalid value "(.*)" for flag -+(\S+): (.*)$`)

// unknownCommand is the usage error for a command name that is none of
// c's subcommands (the app's commands at the top).
func unknownCommand(c *cli.Context, name string) error {
	parent, cmds := c.App.Name, c.App.Commands
	if c.Command != nil && len(c.Command.Subcommands) > 0 && c.Command.Name != c.App.Name {
		parent, cmds = commandPath(c), c.Command.Subcommands
	}
	var names []string
	for _, sc := range cmds {
		if !sc.Hidden {
			names = append(names, sc.Names()...)
		}
	}
	return usageError("%s", i18n.T("usage.unknown_command", i18n.Args{"Name": q(name), "Parent": parent, "QParent": q(parent),
		"DidYouMean": didYouMean(name, names, func(s string) string { return s })}))
}

// commandPath is the command as typed, e.g. "cnpa service logs".
func commandPath(c *cli.Context) string {
	var names []string
	for _, l := range c.Lineage() {
		if l.Command != nil && l.Command.Name != "" && l.Command.Name != c.App.Name {
			names = append(names, l.Command.Name)
		}
	}
	names = append(names, c.App.Name)
	for i, j := 0, len(names)-1; i < j; i, j = i+1, j-1 {
		names[i], names[j] = names[j], names[i]
	}
	return strings.Join(names, " ")
}

// flagNames are the flags a command takes: its own and, since cnpa moves
// global flags written after the command to the front, the global ones.
func flagNames(c *cli.Context) []string {
	var names []string
	add := func(fs []cli.Flag) {
		for _, f := range fs {
			names = append(names, f.Names()...)
		}
	}
	if c.Command != nil {
		add(c.Command.Flags)
	}
	add(c.App.Flags)
	return names
}

// q is s quoted as %q quotes it, for a message's placeholder.
func q(s string) string { return fmt.Sprintf("%q", s) }

func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// didYouMean is ": did you mean X?" for the candidate nearest to typed, as
// kubectl suggests: within an edit distance of 2, or one the typed word is
// a prefix of; "" when none is near enough to be a fair guess.
func didYouMean(typed string, candidates []string, show func(string) string) string {
	best, bestDist := "", 3
	sort.Strings(candidates)
	for _, cand := range candidates {
		if len(cand) < 2 {
			continue // -o is two edits from almost any short word
		}
		d := editDistance(strings.ToLower(typed), strings.ToLower(cand))
		if len(typed) >= 2 && strings.HasPrefix(cand, typed) && d > 0 {
			d = 1
		}
		if d < bestDist && cand != typed {
			best, bestDist = cand, d
		}
	}
	if best == "" {
		return ""
	}
	return i18n.T("usage.did_you_mean", i18n.Args{"Best": show(best)})
}

// editDistance is the Levenshtein distance with adjacent transpositions
// counted as one edit ("stpe" is one from "step").
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	d := make([][]int, len(ra)+1)
	for i := range d {
		d[i] = make([]int, len(rb)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(ra); i++ {
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(ra)][len(rb)]
}

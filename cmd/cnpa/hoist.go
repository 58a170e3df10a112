package main

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// hoistGlobalFlags moves global flags written after the command name to the
// front, so `cnpa doctor --kubeconfig X` works like `cnpa --kubeconfig X
// doctor` (urfave/cli v2 only parses global flags before the command).
func hoistGlobalFlags(args []string) []string {
	if len(args) < 2 {
		return args
	}
	valued, boolean := globalFlagNames()
	var global, rest []string
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, _, hasValue := strings.Cut(a, "=")
		switch {
		case boolean[name]:
			global = append(global, a)
		case valued[name] && hasValue:
			global = append(global, a)
		case valued[name] && i+1 < len(args):
			global = append(global, a, args[i+1])
			i++
		default:
			rest = append(rest, a)
		}
	}
	return append(append([]string{args[0]}, global...), stepNumberLast(rest)...)
}

// globalFlagNames are the global flags as written on a command line (one
// dash for a one-letter alias, two for a name), from globalFlags itself:
// those that take a value, and the booleans, which take none.
func globalFlagNames() (valued, boolean map[string]bool) {
	valued, boolean = map[string]bool{}, map[string]bool{}
	for _, f := range globalFlags {
		_, isBool := f.(*cli.BoolFlag)
		for _, n := range f.Names() {
			dashed := "--" + n
			if len(n) == 1 {
				dashed = "-" + n
			}
			if isBool {
				boolean[dashed] = true
			} else {
				valued[dashed] = true
			}
		}
	}
	return valued, boolean
}

// oneArgCommands take a single argument that learners write first, as in
// `cnpa step all --engine shell` or `cnpa scaffold reconcile.sh --engine go`.
var oneArgCommands = map[string]bool{"step": true, "scaffold": true, "explain": true}

// stepNumberLast turns `step all --engine shell` into `step --engine shell
// all` (likewise for the other oneArgCommands): urfave/cli v2 stops parsing
// flags at the first argument, and the argument is the command's only one.
func stepNumberLast(args []string) []string {
	if len(args) < 3 || !oneArgCommands[args[0]] || strings.HasPrefix(args[1], "-") {
		return args
	}
	out := append([]string{args[0]}, args[2:]...)
	return append(out, args[1])
}

// hoistForCompletion hoists like hoistGlobalFlags, but keeps urfave/cli's
// completion flag last, where it looks for it.
func hoistForCompletion(args []string) []string {
	if n := len(args); n > 1 && args[n-1] == completeFlag {
		return append(hoistGlobalFlags(args[:n-1]), completeFlag)
	}
	return hoistGlobalFlags(args)
}

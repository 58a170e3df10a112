package main

import (
	"io"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/ui"
)

// The learner's commands' help (`cnpa step --help`) is in the chosen
// language. The English is written beside each command, as urfave/cli has
// it; the other languages' catalogs hold the same texts under help.* IDs
// (help.step.usage, help.step.description, help.step.flag.force, and
// help.flag.NAME for a flag every command describes alike). They are put in
// place only when help is printed, so that no other command reads a
// catalog for them.

// learnerCommands are the commands whose help is translated.
var learnerCommands = []string{"step", "explain", "check", "report", "status", "doctor", "reset", "submit"}

// localizedHelp wraps urfave/cli's help printer: the help texts of the
// chosen language, then the help.
func localizedHelp(app *cli.App, print func(io.Writer, string, any, map[string]any)) func(io.Writer, string, any, map[string]any) {
	return func(w io.Writer, templ string, data any, funcs map[string]any) {
		if l := i18n.Current(); l != i18n.English {
			cmd, _ := data.(*cli.Command)
			localizeHelp(app, cmd, l)
		}
		print(w, templ, data, funcs)
	}
}

// localizeHelp puts l's help texts in place of the English ones: the app's
// usage and global flags, every learner's command's usage (the list of
// commands), and cmd's description and flags when it is a learner's
// command. Flags are shared between commands, so only the command whose
// help is printed gets its texts. A text l's catalog lacks stays English.
func localizeHelp(app *cli.App, cmd *cli.Command, l i18n.Lang) {
	set := func(dst *string, ids ...string) {
		for _, id := range ids {
			if l.Has(id) {
				*dst = l.T(id)
				return
			}
		}
	}
	set(&app.Usage, "help.app.usage")
	for _, f := range app.Flags {
		localizeFlag(f, func(dst *string, name string) { set(dst, "help.flag."+name) })
	}
	for _, c := range app.Commands {
		if isLearnerCommand(c.Name) {
			set(&c.Usage, "help."+c.Name+".usage")
		}
	}
	if cmd == nil || !isLearnerCommand(cmd.Name) {
		return
	}
	set(&cmd.Description, "help."+cmd.Name+".description")
	// urfave/cli indents a description by three columns; the languages
	// other than English are written as paragraphs, wrapped here.
	cmd.Description = ui.Wrap(cmd.Description, 77)
	for _, f := range cmd.Flags {
		localizeFlag(f, func(dst *string, name string) { set(dst, "help."+cmd.Name+".flag."+name, "help.flag."+name) })
	}
}

// helpIDs are the help texts of the learner's commands by ID, in English:
// what the catalogs must hold (TestHelpCatalog). A flag described alike
// everywhere it appears is help.flag.NAME, one message; one described
// differently by different commands is help.CMD.flag.NAME.
func helpIDs(app *cli.App) map[string]string {
	out := map[string]string{"help.app.usage": app.Usage}
	usages := map[string]map[string]bool{} // flag name → its English usages
	global := map[string]bool{}
	for _, f := range app.Flags {
		localizeFlag(f, func(dst *string, name string) { out["help.flag."+name], global[name] = *dst, true })
	}
	for _, c := range app.Commands {
		if !isLearnerCommand(c.Name) {
			continue
		}
		for _, f := range c.Flags {
			localizeFlag(f, func(dst *string, name string) {
				if usages[name] == nil {
					usages[name] = map[string]bool{}
				}
				usages[name][*dst] = true
			})
		}
	}
	for _, c := range app.Commands {
		if !isLearnerCommand(c.Name) {
			continue
		}
		out["help."+c.Name+".usage"] = c.Usage
		if c.Description != "" {
			out["help."+c.Name+".description"] = c.Description
		}
		for _, f := range c.Flags {
			localizeFlag(f, func(dst *string, name string) {
				if !global[name] && len(usages[name]) == 1 {
					out["help.flag."+name] = *dst
					return
				}
				out["help."+c.Name+".flag."+name] = *dst
			})
		}
	}
	return out
}
func isLearnerCommand(name string) bool {
	for _, n := range learnerCommands {
		if n == name {
			return true
		}
	}
	return false
}

// localizeFlag calls set with the flag's usage text and its name.
func localizeFlag(f cli.Flag, set func(dst *string, name string)) {
	switch f := f.(type) {
	case *cli.StringFlag:
		set(&f.Usage, f.Name)
	case *cli.BoolFlag:
		set(&f.Usage, f.Name)
	case *cli.DurationFlag:
		set(&f.Usage, f.Name)
	case *cli.IntFlag:
		set(&f.Usage, f.Name)
	}
}

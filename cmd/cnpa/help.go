package main

import (
	"io"
	"regexp"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/ui"
)

// Every command's help (`cnpa step --help`, `cnpa service start --help`)
// is in the chosen language. The English is written beside each command,
// as urfave/cli has it; the other languages' catalogs hold the same texts
// under help.* IDs (help.step.usage, help.step.description,
// help.service.start.usage for a subcommand, help.step.flag.force, and
// help.flag.NAME for a flag described alike wherever the catalog has no
// help.CMD.flag.NAME for it), held to the English by TestHelpCatalog. They
// are put in place only when help is printed, so that no other command
// reads a catalog for them.

// versionFlag is --version, which urfave/cli adds to the global flags.
var versionFlag = &cli.BoolFlag{Name: "version", Usage: "print cnpa's version, as `cnpa version` does"}

// localizedHelp wraps urfave/cli's help printer: the help texts of the
// chosen language, then the help.
func localizedHelp(app *cli.App, print func(io.Writer, string, any, map[string]any)) func(io.Writer, string, any, map[string]any) {
	return func(w io.Writer, templ string, data any, funcs map[string]any) {
		if l := i18n.Current(); l != i18n.English {
			cmd, _ := data.(*cli.Command)
			localizeHelp(app, cmd, l)
			templ = localizeHeadings(templ, l)
			english := cli.FlagStringer
			cli.FlagStringer = func(f cli.Flag) string {
				said := strings.Replace(english(f), " (default: ", " ("+l.T("help.default")+": ", 1)
				if l == i18n.Japanese {
					said = i18n.Typeset(said) // （既定: …）, as the catalog's are said
				}
				return said
			}
			defer func() { cli.FlagStringer = english }()
		}
		print(w, templ, data, funcs)
	}
}

// heading is a heading of urfave/cli's help templates ("OPTIONS:"), at the
// start of a line.
var heading = regexp.MustCompile(`(?m)^(NAME|USAGE|VERSION|DESCRIPTION|AUTHOR|COMMANDS|GLOBAL OPTIONS|OPTIONS|CATEGORY|COPYRIGHT)\b`)

// localizeHeadings says templ's headings in l (help.heading.options); the
// usage line's syntax ([command options], [arguments...]) stays, as
// kubectl's does.
func localizeHeadings(templ string, l i18n.Lang) string {
	return heading.ReplaceAllStringFunc(templ, func(h string) string {
		id := "help.heading." + strings.ToLower(strings.ReplaceAll(h, " ", "_"))
		if l.Has(id) {
			return l.T(id)
		}
		return h
	})
}

// localizeHelp puts l's help texts in place of the English ones: the app's
// usage and global flags, every command's and subcommand's usage (the
// lists of commands), and cmd's description and flags. Flags are shared
// between commands, so only the command whose help is printed gets its
// texts. A text l's catalog lacks stays English.
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
	eachCommand(app.Commands, func(path string, c *cli.Command) {
		set(&c.Usage, "help."+path+".usage")
		if c != cmd {
			return
		}
		set(&c.Description, "help."+path+".description")
		// urfave/cli indents a description by three columns; the languages
		// other than English are written as paragraphs, wrapped here.
		c.Description = ui.Wrap(c.Description, 77)
		for _, f := range c.Flags {
			localizeFlag(f, func(dst *string, name string) { set(dst, flagIDs(path, name)...) })
		}
	})
}

// eachCommand calls fn with every command and subcommand and its path
// ("step", "service.start"); urfave/cli's own help command is "help"
// wherever it is.
func eachCommand(cmds []*cli.Command, fn func(path string, c *cli.Command)) {
	var walk func(prefix string, cmds []*cli.Command)
	walk = func(prefix string, cmds []*cli.Command) {
		for _, c := range cmds {
			path := prefix + c.Name
			if c.Name == "help" {
				path = "help"
			}
			fn(path, c)
			walk(path+".", c.Subcommands)
		}
	}
	walk("", cmds)
}

// flagIDs are the catalog IDs a flag's help may have, the first the
// catalog has wins: the command's own (help.CMD.flag.NAME), then the one
// described alike everywhere (help.flag.NAME).
func flagIDs(path, name string) []string {
	return []string{"help." + path + ".flag." + name, "help.flag." + name}
}

// helpText is one help text in English and the catalog ID that holds it.
type helpText struct{ ID, English string }

// helpTexts are the help texts of app (set up: with urfave/cli's help
// command and --help, --version), in English, with the ID of each as
// localizeHelp looks it up in a catalog that has the IDs has says it has:
// what the catalogs must hold (TestHelpCatalog). A flag's ID is
// help.flag.NAME unless the catalog has help.CMD.flag.NAME; so one ID met
// with two texts names a flag described differently somewhere, which
// needs an ID of its own there.
func helpTexts(app *cli.App, has func(id string) bool) []helpText {
	out := []helpText{{"help.app.usage", app.Usage}}
	for _, f := range app.Flags {
		localizeFlag(f, func(dst *string, name string) { out = append(out, helpText{"help.flag." + name, *dst}) })
	}
	eachCommand(app.Commands, func(path string, c *cli.Command) {
		out = append(out, helpText{"help." + path + ".usage", c.Usage})
		if c.Description != "" {
			out = append(out, helpText{"help." + path + ".description", c.Description})
		}
		for _, f := range c.Flags {
			localizeFlag(f, func(dst *string, name string) {
				ids := flagIDs(path, name)
				id := ids[len(ids)-1]
				if has(ids[0]) {
					id = ids[0]
				}
				out = append(out, helpText{id, *dst})
			})
		}
	})
	return out
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

package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/ui"
)

// globalFlags are shared by every command.
var globalFlags = []cli.Flag{
	&cli.StringFlag{Name: "kubeconfig", Usage: "kubeconfig `FILE` (default: $KUBECONFIG, then " + kube.K3sKubeconfig + ", then ~/.kube/config)"},
	&cli.StringFlag{Name: "context", Usage: "kubeconfig `CONTEXT` to use (default: its current-context)"},
	&cli.StringFlag{Name: "dir", Value: "/root/cnpa-op", EnvVars: []string{"CNPA_DIR"}, Usage: "evidence `DIR`: the lab's JSON files, reconcile.sh, archive/"},
	&cli.BoolFlag{Name: "no-color", Usage: "plain output (NO_COLOR and a non-terminal also turn colour off)"},
	&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Value: "text", Usage: "`FORMAT` of results: text or json (check also: junit; class grade: junit, csv, gradescope, classroom, canvas, moodle)"},
	labFlag,
	&cli.StringFlag{Name: "lang", EnvVars: []string{i18n.OverrideVar}, Usage: "the language of what cnpa says, by its `CODE`: " + i18n.Codes() + " (default: from LC_ALL, LC_MESSAGES or LANG, as kubectl; English when the locale names no language cnpa has)"},
}

// chooseLang sets the language of every message from --lang (wherever it
// is on the command line), CNPA_LANG or the locale, before urfave/cli
// parses anything, so that its help and usage errors are in it too.
func chooseLang(args []string) error {
	flag := ""
	for i := 1; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "--lang="); ok {
			flag = v
			if v == "" {
				return langNeedsValue()
			}
		} else if a == "--lang" {
			if i+1 >= len(args) {
				return langNeedsValue()
			}
			flag = args[i+1]
			i++
		}
	}
	l, err := i18n.Choose(flag, os.Getenv)
	if err != nil {
		// Said in the locale's language: the one asked for is none.
		i18n.Set(i18n.Locale(os.Getenv))
		return usageError("%v", err)
	}
	i18n.Set(l)
	return nil
}

// langNeedsValue is the usage error of a --lang without its value, in the
// language the environment chooses (CNPA_LANG, the locale).
func langNeedsValue() error {
	l, _ := i18n.Choose("", os.Getenv)
	i18n.Set(l)
	return usageError("%s", i18n.T("usage.lang_needs_value", i18n.Args{"Codes": i18n.Codes()}))
}

// target resolves the cluster; a kubeconfig problem is exit code 2.
func target(g *globalOptions) (*kube.Target, error) {
	t, err := kube.Resolve(g.Kubeconfig, g.Context)
	var ce *kube.ConfigError
	if errors.As(err, &ce) {
		return nil, cli.Exit(ce.Msg, 2)
	}
	return t, err
}

// evidenceDir returns --dir, refusing a path that is a file (exit 2).
func evidenceDir(dir string) (string, error) {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return "", cli.Exit(i18n.T("cli.dir.file", i18n.Args{"Dir": dir}), 2)
	}
	return dir, nil
}

// output returns -o, checked against the formats the command supports.
func output(g *globalOptions, allowed ...string) (string, error) {
	o := g.Output
	for _, a := range allowed {
		if o == a {
			return o, nil
		}
	}
	return "", usageError("%s", i18n.T("cli.output.unsupported", i18n.Args{"Output": o, "Cmd": g.Command, "Allowed": fmt.Sprint(allowed)}))
}

// printer prints on w, in colour unless noColor (ui.New says when else).
func printer(w io.Writer, noColor bool) *ui.Printer {
	return ui.New(w, noColor)
}

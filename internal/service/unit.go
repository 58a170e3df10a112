// Package service installs and runs cnpa-op.service, the controller that
// keeps reconciling: under systemd as the lab's VM has it, or as a detached
// process with a pid file where there is no systemd (and in tests). Both
// write the same unit file.
package service

import (
	"fmt"
	"strings"
	"unicode"

	"github.com/labhub/cnpa/assets"
)

// Name is the unit name the lab and its grader use.
const Name = "cnpa-op.service"

// Unit is what the unit file says and what process mode runs.
type Unit struct {
	Engine     string   // go or shell
	Argv       []string // the command, absolute path first
	Kubeconfig string
	Path       string // PATH for the command (kubectl and jq for the shell engine)
	ArchiveDir string
	Dir        string // the evidence dir, the only writable path
}

// ExecStart renders Argv as a systemd command line (systemd.service(5),
// "Command lines"): a word with anything but letters, digits and -_.,/:=+@
// is double-quoted, with `\` and `"` C-escaped inside the quotes; `%` is
// doubled because systemd would expand it as a specifier (systemd.unit(5)),
// and `$` in every word but the first, the only ones where systemd expands
// $VAR (`$$` there would stay two characters of the program's path).
func (u Unit) ExecStart() string {
	words := make([]string, len(u.Argv))
	for i, w := range u.Argv {
		w = strings.ReplaceAll(w, "%", "%%")
		if i > 0 {
			w = strings.ReplaceAll(w, "$", "$$")
		}
		if w == "" || strings.ContainsFunc(w, needsQuote) {
			w = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(w) + `"`
		}
		words[i] = w
	}
	return strings.Join(words, " ")
}

// needsQuote: r would end, split or change a word of a systemd command
// line if it stood unquoted (a space, a quote, a backslash escape, `;`).
func needsQuote(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return false
	}
	return !strings.ContainsRune("-_.,/:=+@$%", r)
}

// quotedValue is s for the inside of a double-quoted systemd value that
// is C-unescaped, as Environment= is (systemd.exec(5)): `\` and `"`
// escaped, `%` doubled so that no specifier is expanded.
func quotedValue(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "%", "%%").Replace(s)
}

// quotedPath is a path for the inside of a double-quoted ReadWritePaths=:
// that list is unquoted but not C-unescaped, so a backslash would stay
// as it is and nothing could protect a `"`; cnpa refuses both rather
// than guess (see checkValues).
func quotedPath(s string) string { return strings.ReplaceAll(s, "%", "%%") }

// checkValues refuses what no unit file line can carry: a control
// character (a newline would start a line of its own: a new directive),
// and in the evidence dir, which ReadWritePaths= lists, a `"` or `\`.
func (u Unit) checkValues() error {
	values := []struct{ what, value string }{
		{"the kubeconfig path", u.Kubeconfig}, {"PATH", u.Path},
		{"the archive dir", u.ArchiveDir}, {"the evidence dir (--dir)", u.Dir},
	}
	for i, w := range u.Argv {
		values = append(values, struct{ what, value string }{fmt.Sprintf("word %d of the command", i+1), w})
	}
	for _, v := range values {
		if strings.ContainsFunc(v.value, unicode.IsControl) {
			return fmt.Errorf("%s %q contains a control character (a newline or tab): a systemd unit file cannot carry it; choose a path without one", v.what, v.value)
		}
	}
	// systemd refuses a program path with a quote or a backslash
	// ("Executable name contains special characters").
	if len(u.Argv) > 0 && strings.ContainsAny(u.Argv[0], `"'\`) {
		return fmt.Errorf("the program %q contains a quote or a backslash, which systemd refuses in the path of the program a unit runs; "+
			"choose an install path without one (e.g. /usr/local/bin)", u.Argv[0])
	}
	if strings.ContainsAny(u.Dir, `"\`) {
		return fmt.Errorf("the evidence dir (--dir) %q contains a `\"` or `\\`: the unit's ReadWritePaths= cannot carry it; choose a dir without one", u.Dir)
	}
	return nil
}

// Env is the environment the unit sets, for process mode.
func (u Unit) Env() []string {
	return []string{"KUBECONFIG=" + u.Kubeconfig, "PATH=" + u.Path, "CNPA_ARCHIVE_DIR=" + u.ArchiveDir}
}

// Render fills the embedded assets/cnpa-op.service template: each
// {{.Field}} is replaced by its value, and any other {{ is an error.
//
// Not text/template: in a binary that links it, the template engine's
// reflective method calls turn off the linker's dead-method elimination
// (urfave/cli's help printer links it too; see kube.NewTyped), and a unit
// file with six plain fields does not need it.
func (u Unit) Render() ([]byte, error) {
	if err := u.checkValues(); err != nil {
		return nil, fmt.Errorf("render %s: %w", Name, err)
	}
	tmpl := string(assets.ServiceUnit)
	// Each value escaped for where the template puts it: the Environment=
	// and ReadWritePaths= values stand inside double quotes there.
	fields := []struct{ name, value string }{
		{"Engine", u.Engine}, {"ExecStart", u.ExecStart()}, {"Kubeconfig", quotedValue(u.Kubeconfig)},
		{"Path", quotedValue(u.Path)}, {"ArchiveDir", quotedValue(u.ArchiveDir)}, {"Dir", quotedPath(u.Dir)},
	}
	var pairs []string
	// Check the template, not the output: a value may contain "{{".
	rest := tmpl
	for _, f := range fields {
		placeholder := "{{." + f.name + "}}"
		pairs = append(pairs, placeholder, f.value)
		rest = strings.ReplaceAll(rest, placeholder, "")
	}
	if i := strings.Index(rest, "{{"); i >= 0 {
		end := min(len(rest), i+40)
		return nil, fmt.Errorf("render unit: unknown placeholder at %q", rest[i:end])
	}
	return []byte(strings.NewReplacer(pairs...).Replace(tmpl)), nil
}

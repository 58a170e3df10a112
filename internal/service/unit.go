// Package service installs and runs cnpa-op.service, the controller that
// keeps reconciling: under systemd as the lab's VM has it, or as a detached
// process with a pid file where there is no systemd (and in tests). Both
// write the same unit file.
package service

import (
	"fmt"
	"strings"

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

// ExecStart renders Argv as a systemd command line: words with spaces or
// quotes are double-quoted with C escapes, and `$` is doubled because
// systemd would expand it.
func (u Unit) ExecStart() string {
	words := make([]string, len(u.Argv))
	for i, w := range u.Argv {
		w = strings.ReplaceAll(w, "$", "$$")
		if strings.ContainsAny(w, " \t\"'\\;") {
			w = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(w) + `"`
		}
		words[i] = w
	}
	return strings.Join(words, " ")
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
	tmpl := string(assets.ServiceUnit)
	fields := []struct{ name, value string }{
		{"Engine", u.Engine}, {"ExecStart", u.ExecStart()}, {"Kubeconfig", u.Kubeconfig},
		{"Path", u.Path}, {"ArchiveDir", u.ArchiveDir}, {"Dir", u.Dir},
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

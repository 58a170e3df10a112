// Package service installs and runs cnpa-op.service, the controller that
// keeps reconciling: under systemd as the lab's VM has it, or as a detached
// process with a pid file where there is no systemd (and in tests). Both
// write the same unit file.
package service

import (
	"bytes"
	"fmt"
	"strings"
	"text/template"

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

// Render fills the embedded assets/cnpa-op.service template.
func (u Unit) Render() ([]byte, error) {
	tmpl, err := template.New(Name).Option("missingkey=error").Parse(string(assets.ServiceUnit))
	if err != nil {
		return nil, fmt.Errorf("parse unit template: %w", err)
	}
	var b bytes.Buffer
	if err := tmpl.Execute(&b, map[string]string{
		"Engine": u.Engine, "ExecStart": u.ExecStart(), "Kubeconfig": u.Kubeconfig,
		"Path": u.Path, "ArchiveDir": u.ArchiveDir, "Dir": u.Dir,
	}); err != nil {
		return nil, fmt.Errorf("render unit: %w", err)
	}
	return b.Bytes(), nil
}

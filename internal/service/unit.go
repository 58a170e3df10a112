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
	// Dir is the only writable path: the evidence dir as root (the admin
	// identity), just the archive dir as User.
	Dir string
	// User is the system user the service runs as (the own identity);
	// empty runs it as root.
	User string
	// Credential is the service's own kubeconfig file. Under systemd it is
	// handed over with LoadCredential= (systemd reads it as root and gives
	// User a private copy in $CREDENTIALS_DIRECTORY), and KUBECONFIG points
	// there; process mode reads it in place. Empty: Kubeconfig, as is.
	Credential string
	// Reads are the paths User must reach, read-only, although they lie
	// under /root or /home, which the unit hides (ProtectHome=tmpfs): the
	// program it runs, or the directory of the script it runs.
	Reads []string
}

// CredentialName is the kubeconfig's name in $CREDENTIALS_DIRECTORY.
const CredentialName = "kubeconfig"

// unitKubeconfig is the unit's KUBECONFIG: with a Credential, its copy in
// the credentials directory (%d is systemd's specifier for it).
func (u Unit) unitKubeconfig() string {
	if u.Credential != "" {
		return "%d/" + CredentialName
	}
	return u.Kubeconfig
}

// identity renders the directives that differ between the own identity
// (a system user, the kubeconfig as a credential, home directories hidden
// but for the paths it needs) and root with the learner's kubeconfig.
func (u Unit) identity() string {
	if u.User == "" {
		return "# Root with the learner's kubeconfig (--service-identity admin); home\n" +
			"# directories readable (the kubeconfig may live in ~/.kube) but not writable.\n" +
			"ProtectHome=read-only"
	}
	lines := []string{
		"# Its own identity (cnpa step 4): a system user without privileges, and the",
		"# ServiceAccount's kubeconfig as a credential only this service can read.",
		"User=" + u.User,
		"Group=" + u.User,
		"LoadCredential=" + CredentialName + ":" + u.Credential,
		"# /root and /home are empty to it, but for what it must reach: the archive",
		"# dir (owned by " + u.User + ", at the path LAB.md names) and what it runs.",
		"ProtectHome=tmpfs",
		"BindPaths=" + u.ArchiveDir,
	}
	for _, r := range u.Reads {
		lines = append(lines, "BindReadOnlyPaths="+r)
	}
	return strings.Join(lines, "\n")
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
	kc := u.Kubeconfig
	if u.Credential != "" {
		kc = u.Credential
	}
	return []string{"KUBECONFIG=" + kc, "PATH=" + u.Path, "CNPA_ARCHIVE_DIR=" + u.ArchiveDir}
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
		{"Engine", u.Engine}, {"ExecStart", u.ExecStart()}, {"Kubeconfig", u.unitKubeconfig()},
		{"Path", u.Path}, {"ArchiveDir", u.ArchiveDir}, {"Dir", u.Dir},
		{"Identity", u.identity()},
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

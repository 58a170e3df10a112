// Package service installs and runs cnpa-op.service, the controller that
// keeps reconciling: under systemd as the lab's VM has it, or as a detached
// process with a pid file where there is no systemd (and in tests). Both
// write the same unit file.
package service

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"unicode"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
)

// Name is the unit name the lab and its grader use (lab.ServiceName).
const Name = lab.ServiceName

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
	// Lab renders LAB.md step 4's own simple unit (assets/cnpa-op-lab.service:
	// the command, Restart=always, root with Kubeconfig) instead of cnpa's
	// hardened one: the unit cnpa writes for a learner's own controller.
	Lab bool `json:",omitempty"`
	// Theirs: the unit file is the learner's. Install never writes it; it
	// reloads systemd, or in process mode records what the file says to
	// run (Argv, Environment, Dir as parsed by ParseUnit).
	Theirs bool `json:",omitempty"`
	// Environment is a learner's unit's Environment= assignments, in
	// order, which process mode sets on top of KUBECONFIG=Kubeconfig.
	Environment []string `json:",omitempty"`
	// Restart and RestartSec are a learner's unit's, as written: process
	// mode starts their command again after RestartSec when it ends, as
	// systemd's Restart=always does (a record without them, an earlier
	// cnpa's, runs the command once).
	Restart    string `json:",omitempty"`
	RestartSec string `json:",omitempty"`
}

// CredentialName is the kubeconfig's name in $CREDENTIALS_DIRECTORY.
const CredentialName = "kubeconfig"

// unitKubeconfig is the unit's KUBECONFIG: with a Credential, its copy in
// the credentials directory (%d is systemd's specifier for it).
func (u Unit) unitKubeconfig() string {
	if u.Credential != "" {
		return "%d/" + CredentialName // a specifier, meant to be expanded
	}
	return quotedValue(u.Kubeconfig)
}

// identity renders the directives that differ between the own identity
// (a system user, the kubeconfig as a credential, home directories hidden
// but for the paths it needs) and root with the learner's kubeconfig.
func (u Unit) identity() string {
	switch {
	case u.User == "" && u.Credential != "":
		// Process mode: the service runs as the user running cnpa, which
		// reads the kubeconfig in place; the unit still says where %d
		// comes from.
		return "# Its own identity (cnpa step 4), as the user running cnpa: the\n" +
			"# ServiceAccount's kubeconfig as a credential.\n" +
			"LoadCredential=" + CredentialName + ":" + specifierFree(u.Credential) + "\n" +
			"ProtectHome=read-only"
	case u.User == "":
		return "# Root with the learner's kubeconfig (--service-identity admin); home\n" +
			"# directories readable (the kubeconfig may live in ~/.kube) but not writable.\n" +
			"ProtectHome=read-only"
	}
	lines := []string{
		"# Its own identity (cnpa step 4): a system user without privileges, and the",
		"# ServiceAccount's kubeconfig as a credential only this service can read.",
		"User=" + u.User,
		"Group=" + u.User,
		// The rest of the line after "ID:" is the path, spaces and all; only
		// its specifiers would be expanded.
		"LoadCredential=" + CredentialName + ":" + specifierFree(u.Credential),
		"# /root and /home are empty to it, but for what it must reach: the archive",
		"# dir (owned by " + u.User + ", at the path the lab text names) and what it runs.",
		"ProtectHome=tmpfs",
		"BindPaths=" + bindPath(u.ArchiveDir),
	}
	for _, r := range u.Reads {
		lines = append(lines, "BindReadOnlyPaths="+bindPath(r))
	}
	return strings.Join(lines, "\n")
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

// specifierFree is s with every `%` doubled, so that systemd expands no
// specifier in it (systemd.unit(5), "Specifiers").
func specifierFree(s string) string { return strings.ReplaceAll(s, "%", "%%") }

// bindPath is a path for BindPaths= or BindReadOnlyPaths=, a list of
// "SOURCE[:DEST]" words that systemd unquotes: quoted when it holds
// anything but plain characters, its specifiers doubled. A `:` cannot be
// carried at all (it would split source from destination); checkValues
// refuses it.
func bindPath(s string) string {
	if strings.ContainsFunc(s, needsQuote) {
		return `"` + quotedValue(s) + `"`
	}
	return specifierFree(s)
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
		{i18n.T("service.what.kubeconfig"), u.Kubeconfig}, {"PATH", u.Path},
		{i18n.T("service.what.archive_dir"), u.ArchiveDir}, {i18n.T("service.what.dir"), u.Dir},
	}
	for i, w := range u.Argv {
		values = append(values, struct{ what, value string }{i18n.T("service.what.word", i18n.Args{"N": i + 1}), w})
	}
	for _, v := range values {
		if strings.ContainsFunc(v.value, unicode.IsControl) {
			return i18n.NewError("service.control_character", i18n.Args{"What": v.what, "Value": fmt.Sprintf("%q", v.value)})
		}
	}
	// systemd refuses a program path with a quote or a backslash
	// ("Executable name contains special characters").
	if len(u.Argv) > 0 && strings.ContainsAny(u.Argv[0], `"'\`) {
		return i18n.NewError("service.program_quote", i18n.Args{"Program": fmt.Sprintf("%q", u.Argv[0])})
	}
	if u.User != "" {
		for _, p := range append([]string{u.ArchiveDir, u.Credential}, u.Reads...) {
			if strings.ContainsFunc(p, unicode.IsControl) {
				return i18n.NewError("service.path_control", i18n.Args{"Path": fmt.Sprintf("%q", p)})
			}
		}
		for _, p := range append([]string{u.ArchiveDir}, u.Reads...) {
			if strings.Contains(p, ":") {
				return i18n.NewError("service.path_colon", i18n.Args{"Path": fmt.Sprintf("%q", p)})
			}
		}
	}
	if strings.ContainsAny(u.Dir, `"\`) {
		return i18n.NewError("service.dir_quote", i18n.Args{"Dir": fmt.Sprintf("%q", u.Dir)})
	}
	return nil
}

// Env is the environment the unit sets, for process mode.
func (u Unit) Env() []string {
	if u.Theirs {
		// The learner's unit says what it needs; root's kubeconfig is the
		// admin one, as on the lab's VM, unless it sets another.
		return append([]string{"KUBECONFIG=" + u.Kubeconfig}, u.Environment...)
	}
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
	if err := u.checkValues(); err != nil {
		return nil, fmt.Errorf("render %s: %w", Name, err)
	}
	tmpl := string(assets.ServiceUnit)
	if u.Lab {
		tmpl = string(assets.LabServiceUnit)
	}
	// Each value escaped for where the template puts it: the Environment=
	// and ReadWritePaths= values stand inside double quotes there.
	fields := []struct{ name, value string }{
		{"Engine", u.Engine}, {"ExecStart", u.ExecStart()}, {"Kubeconfig", u.unitKubeconfig()},
		{"Path", quotedValue(u.Path)}, {"ArchiveDir", quotedValue(u.ArchiveDir)}, {"Dir", quotedPath(u.Dir)},
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

// archiveDirLine is the unit's Environment= line that names the archive
// dir, as Render writes it.
var archiveDirLine = regexp.MustCompile(`(?m)^Environment="CNPA_ARCHIVE_DIR=((?:[^"\\]|\\.)*)"\s*$`)

// ServedDir is the evidence dir a rendered unit serves (its archive dir's
// parent), read back from its CNPA_ARCHIVE_DIR line; ok is false for a
// unit cnpa did not render, which names none. The unit path is one per
// machine, so it is how `cnpa check` and `reset` tell this lab's service
// from another evidence dir's.
func ServedDir(unit []byte) (dir string, ok bool) {
	m := archiveDirLine.FindSubmatch(unit)
	if m == nil {
		return "", false
	}
	v := strings.NewReplacer(`\\`, `\`, `\"`, `"`, "%%", "%").Replace(string(m[1]))
	return filepath.Dir(v), true
}

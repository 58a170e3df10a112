package labenv

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/service"
)

// Engines: cnpa's Go controller, cnpa's kubectl+jq script, or the
// learner's own reconcile.sh; their one home is package lab.
const (
	EngineGo    = lab.EngineGo
	EngineShell = lab.EngineShell
	EngineOwn   = lab.EngineOwn
)

func validEngine(e string) bool { return e == EngineGo || e == EngineShell || e == EngineOwn }

// OwnScriptAsk is what the lab text asks reconcile.sh to do, in the
// chosen language, for the errors that find it missing or not runnable.
func OwnScriptAsk() string { return i18n.T("labenv.own_script_ask") }

// ScriptName is the lab's reconcile script in the evidence dir (lab.ScriptName).
const ScriptName = lab.ScriptName

// ScriptPath is <dir>/reconcile.sh.
func (e *Env) ScriptPath() string { return filepath.Join(e.Dir, ScriptName) }

// shellQuote quotes s for bash with single quotes.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Script is what reconcile.sh is rendered from.
type Script struct {
	Engine   string
	CnpaPath string
	// Kubeconfig is the KUBECONFIG pinned as the default (CommandKubeconfig).
	Kubeconfig string
	// Context is the kubeconfig context named with --context, or "".
	Context   string
	Dir       string
	Finalizer bool
}

// goScriptMark and shellScriptMark mark the reconcile.sh of each engine
// cnpa renders, for recoveredState.
const (
	goScriptMark    = "reconcile.sh (cnpa Go engine)"
	shellScriptMark = "Pinned by cnpa for this machine"
)

// ScriptFor renders reconcile.sh for an engine. The Go engine's script runs
// one pass of `cnpa controller --once`; the shell engine's is the asset
// with this machine's defaults pinned at the top. Every value is
// single-quoted for bash: a path may hold spaces, `$(…)`, `}` or quotes,
// and must reach the command as it is, never run. The pinned defaults
// apply only where the environment sets nothing, as before.
func ScriptFor(s Script) ([]byte, error) {
	archive := filepath.Join(s.Dir, evidence.ArchiveDir)
	kubeconfig := fmt.Sprintf(`[ -n "${KUBECONFIG:-}" ] || KUBECONFIG=%s`, shellQuote(s.Kubeconfig))
	switch s.Engine {
	case EngineGo:
		context := ""
		if s.Context != "" {
			context = " --context " + shellQuote(s.Context)
		}
		return []byte(fmt.Sprintf(`#!/usr/bin/env bash
# %s: one level-triggered pass over every
# TeamSpace. For each one it makes sure namespace team-<name> (owned by the
# TeamSpace), ResourceQuota team-quota and status.observedGeneration match
# the spec, and writes nothing when they already do. Installed by cnpa.
%s
exec %s controller --once --kubeconfig "$KUBECONFIG"%s --archive-dir %s --finalizer=%t
`, goScriptMark, kubeconfig, shellQuote(s.CnpaPath), context, shellQuote(archive), s.Finalizer)), nil
	case EngineShell:
		lines := strings.SplitN(string(assets.ReconcileScript), "\n", 2)
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "#!") {
			return nil, errors.New("embedded reconcile.sh has no shebang line") // a build gone wrong, not the learner's
		}
		context := ""
		if s.Context != "" {
			// %q: a name is printed in a comment, where a newline would end it.
			context = fmt.Sprintf("# --context %q: the first file of KUBECONFIG names it as current-context\n# (kubectl has no environment variable for a context).\n", s.Context)
		}
		pinned := fmt.Sprintf(`%s
# %s (the environment still wins):
%s%s
[ -n "${CNPA_ARCHIVE_DIR:-}" ] || CNPA_ARCHIVE_DIR=%s
[ -n "${CNPA_FINALIZER:-}" ] || CNPA_FINALIZER=%t
export KUBECONFIG CNPA_ARCHIVE_DIR CNPA_FINALIZER
%s`, lines[0], shellScriptMark, context, kubeconfig, shellQuote(archive), s.Finalizer, lines[1])
		return []byte(pinned), nil
	case EngineOwn:
		return nil, i18n.NewError("labenv.own_not_written")
	}
	return nil, i18n.NewError("labenv.unknown_engine", i18n.Args{"Engine": fmt.Sprintf("%q", s.Engine)})
}

// script is the Script for engine in this environment; it writes the
// ContextFile the script's KUBECONFIG names, if any.
func (e *Env) script(engine string, finalizer bool) (Script, error) {
	if err := e.writeContextFile(); err != nil {
		return Script{}, err
	}
	kc, err := e.CommandKubeconfig()
	if err != nil {
		return Script{}, err
	}
	s := Script{Engine: engine, CnpaPath: e.CnpaPath, Kubeconfig: kc, Dir: e.Dir, Finalizer: finalizer}
	if e.Target.ContextGiven {
		s.Context = e.Target.Context
	}
	return s, nil
}

// InstallScript writes <dir>/reconcile.sh (executable) for the engine and
// the finalizer switch of the state. With the own engine it writes nothing:
// it checks that the learner's script is there and can run.
func (e *Env) InstallScript() error {
	if e.Engine == EngineOwn {
		return e.checkOwnScript()
	}
	s, err := e.script(e.Engine, e.State.Finalizer)
	if err != nil {
		return err
	}
	data, err := ScriptFor(s)
	if err != nil {
		return err
	}
	_, err = evidence.WriteRaw(e.Dir, ScriptName, data, 0o755)
	var theirs *evidence.LearnersFileError
	if errors.As(err, &theirs) {
		// Never --force: the learner's controller is the lab's point.
		return i18n.NewError("labenv.script_is_yours", i18n.Args{"Path": theirs.Path, "Why": theirs.Why, "Engine": e.Engine,
			"Quoted": QuoteArg(theirs.Path)})
	}
	return err
}

// QuoteArg single-quotes s for a shell when it needs it (lab.QuoteArg).
func QuoteArg(s string) string { return lab.QuoteArg(s) }

// checkOwnScript says exactly what is wrong with the learner's
// reconcile.sh, if anything keeps it from running.
func (e *Env) checkOwnScript() error {
	path := e.ScriptPath()
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return i18n.NewError("labenv.own_missing", i18n.Args{"Path": path, "Ask": OwnScriptAsk()})
	case err != nil:
		return fmt.Errorf("%s: %w", i18n.T("labenv.own_unreadable", i18n.Args{"Path": path}), err)
	case fi.IsDir():
		return i18n.NewError("labenv.own_directory", i18n.Args{"Path": path, "Ask": OwnScriptAsk()})
	case fi.Mode()&0o111 == 0:
		return i18n.NewError("labenv.own_not_executable", i18n.Args{"Path": path})
	}
	return nil
}

// Scaffold writes one of cnpa's reference scripts to <dir>/reconcile.sh for
// a learner to read or start from: engine shell (kubectl and jq) or go (one
// pass of `cnpa controller --once`), with finalizer handling as asked (on
// as the lab's last step has it, off as step 3 installs it). An existing
// file is kept unless force is set.
func (e *Env) Scaffold(engine string, force, finalizer bool) (string, error) {
	if engine != EngineGo && engine != EngineShell {
		return "", i18n.NewError("labenv.scaffold_engine", i18n.Args{"Engine": fmt.Sprintf("%q", engine)})
	}
	path := e.ScriptPath()
	if _, err := os.Lstat(path); err == nil && !force {
		return "", i18n.NewError("labenv.scaffold_exists", i18n.Args{"Path": path})
	}
	sc, err := e.script(engine, finalizer)
	if err != nil {
		return "", err
	}
	data, err := ScriptFor(sc)
	if err != nil {
		return "", err
	}
	// --force on a file of the learner's keeps it as reconcile.sh.bak-<time>.
	path, _, err = evidence.Put(e.Dir, ScriptName, data, 0o755, force)
	return path, err
}

// Unit is cnpa-op.service for the engine: the Go engine runs the
// controller, the shell engine loops reconcile.sh every 3 s as LAB.md step 4
// describes.
func (e *Env) Unit() (service.Unit, error) {
	kc, err := e.CommandKubeconfig()
	if err != nil {
		return service.Unit{}, err
	}
	u := service.Unit{Engine: e.Engine, Kubeconfig: kc, ArchiveDir: e.ArchiveDir(), Dir: e.Dir, Path: toolPath()}
	kubeconfigArg := []string{"--kubeconfig", e.Target.Path}
	if e.Target.ContextGiven {
		kubeconfigArg = append(kubeconfigArg, "--context", e.Target.Context)
	}
	if e.OwnIdentity() {
		// Every engine finds the ServiceAccount's kubeconfig in KUBECONFIG;
		// its only context is the identity's own, so --context goes too.
		u.Credential = e.CredentialPath()
		kubeconfigArg = nil
	}
	// A learner's own controller, without a unit of theirs, gets LAB.md
	// step 4's own unit: root with the admin kubeconfig.
	u.Lab = e.Engine == EngineOwn && !e.OwnIdentity()
	switch e.Engine {
	case EngineGo:
		u.Argv = append(append([]string{e.CnpaPath, "controller"}, kubeconfigArg...), "--archive-dir", e.ArchiveDir(),
			fmt.Sprintf("--finalizer=%t", e.State.Finalizer), "--interval=3s")
	case EngineShell, EngineOwn:
		// LAB.md step 4's unit: the script, every 3 s, forever.
		bash, err := exec.LookPath("bash")
		if err != nil {
			return u, fmt.Errorf("%s: %w", i18n.T("labenv.needs_bash", i18n.Args{"Engine": e.Engine}), err)
		}
		bash, _ = filepath.Abs(bash)
		u.Argv = []string{bash, "-c", fmt.Sprintf("while true; do %s; sleep 3; done", shellQuote(e.ScriptPath()))}
	default:
		return u, i18n.NewError("labenv.unknown_engine", i18n.Args{"Engine": fmt.Sprintf("%q", e.Engine)})
	}
	if e.SystemUser() {
		u.User = service.User
		u.Dir = e.ArchiveDir() // its only writes are archive records
		// What it runs, read-only. For a script, the whole evidence dir:
		// reconcile.sh is rewritten while the loop runs (step 6, a
		// learner's edit), and a file bound on its own would stay the old
		// inode until a restart. The dir holds nothing secret to this user:
		// the kubeconfig in it is root's, mode 0600.
		u.Reads = []string{e.Dir}
		if e.Engine == EngineGo {
			u.Reads = []string{e.CnpaPath}
		}
	}
	return u, nil
}

// toolPath is the PATH the service gets: where kubectl and jq are found
// now, then the usual system directories.
func toolPath() string {
	dirs := []string{}
	seen := map[string]bool{}
	for _, tool := range []string{"kubectl", "jq", "bash"} {
		if p, err := exec.LookPath(tool); err == nil {
			if abs, err := filepath.Abs(filepath.Dir(p)); err == nil && !seen[abs] {
				seen[abs] = true
				dirs = append(dirs, abs)
			}
		}
	}
	for _, d := range []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"} {
		if !seen[d] {
			dirs = append(dirs, d)
		}
	}
	return strings.Join(dirs, ":")
}

// InstallService gives the service its own identity (unless it is to run
// as admin), writes the unit for the current state and restarts it
// (restart) or only enables it.
func (e *Env) InstallService(ctx context.Context, restart bool) error {
	if err := e.writeContextFile(); err != nil {
		return err
	}
	// The identity as resolved now is the lab's from here on.
	if e.State.ServiceIdentity == "" {
		e.State.ServiceIdentity = e.Identity()
	}
	if data, theirs := e.LearnersUnit(); theirs {
		return e.installLearnersUnit(ctx, data, restart)
	}
	if e.OwnIdentity() {
		if err := e.ProvisionIdentity(ctx); err != nil {
			return err
		}
	}
	if err := e.giveArchiveDir(ctx); err != nil {
		return err
	}
	u, err := e.Unit()
	if err != nil {
		return err
	}
	if e.Progress != nil {
		for _, w := range e.PrivateTmpWarnings() {
			e.Progress.Warn("warning: %s", w)
		}
	}
	if err := e.Service.Install(ctx, u); err != nil {
		return fmt.Errorf("%s: %w", i18n.T("labenv.install", i18n.Args{"Unit": service.Name}), err)
	}
	if restart {
		return e.Service.Restart(ctx)
	}
	return e.Service.Enable(ctx)
}

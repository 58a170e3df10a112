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
	"github.com/labhub/cnpa/internal/service"
)

// Engines: cnpa's Go controller, cnpa's kubectl+jq script, or the
// learner's own reconcile.sh.
const (
	EngineGo    = "go"
	EngineShell = "shell"
	// EngineOwn runs the learner's <dir>/reconcile.sh: cnpa never writes,
	// rewrites or moves it, and the service loops it as LAB.md step 4 says.
	EngineOwn = "own"
)

func validEngine(e string) bool { return e == EngineGo || e == EngineShell || e == EngineOwn }

// OwnScriptAsk is what LAB.md asks reconcile.sh to do, for the errors that
// find it missing or not runnable.
const OwnScriptAsk = "LAB.md step 3: one run must, for every TeamSpace <name>, converge namespace team-<name> " +
	"(label platform.labhub.io/teamspace=<name>, an ownerReference to the TeamSpace), ResourceQuota team-quota in it " +
	"(hard.pods = spec.pods, hard.requests.cpu = spec.cpu) and the TeamSpace's status subresource " +
	"(observedGeneration = metadata.generation, namespace = team-<name>); step 6 adds the finalizer " +
	"platform.labhub.io/cleanup. A reference to read: `cnpa scaffold reconcile.sh --engine shell`"

// ScriptName is the lab's reconcile script in the evidence dir.
const ScriptName = "reconcile.sh"

// ScriptPath is <dir>/reconcile.sh.
func (e *Env) ScriptPath() string { return filepath.Join(e.Dir, ScriptName) }

// shellQuote quotes s for bash with single quotes.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// ScriptFor renders reconcile.sh for an engine. The Go engine's script runs
// one pass of `cnpa controller --once`; the shell engine's is the asset
// with this machine's defaults pinned at the top. finalizer is the lab's
// step 6 switch.
func ScriptFor(engine, cnpaPath, kubeconfig, dir string, finalizer bool) ([]byte, error) {
	archive := filepath.Join(dir, evidence.ArchiveDir)
	switch engine {
	case EngineGo:
		return []byte(fmt.Sprintf(`#!/usr/bin/env bash
# reconcile.sh (cnpa Go engine): one level-triggered pass over every
# TeamSpace. For each one it makes sure namespace team-<name> (owned by the
# TeamSpace), ResourceQuota team-quota and status.observedGeneration match
# the spec, and writes nothing when they already do. Installed by cnpa.
exec %s controller --once --kubeconfig "${KUBECONFIG:-%s}" --archive-dir %s --finalizer=%t
`, shellQuote(cnpaPath), kubeconfig, shellQuote(archive), finalizer)), nil
	case EngineShell:
		lines := strings.SplitN(string(assets.ReconcileScript), "\n", 2)
		if len(lines) != 2 || !strings.HasPrefix(lines[0], "#!") {
			return nil, fmt.Errorf("embedded reconcile.sh has no shebang line")
		}
		pinned := fmt.Sprintf(`%s
# Pinned by cnpa for this machine (the environment still wins):
export KUBECONFIG="${KUBECONFIG:-%s}"
export CNPA_ARCHIVE_DIR="${CNPA_ARCHIVE_DIR:-%s}"
export CNPA_FINALIZER="${CNPA_FINALIZER:-%t}"
%s`, lines[0], kubeconfig, archive, finalizer, lines[1])
		return []byte(pinned), nil
	case EngineOwn:
		return nil, fmt.Errorf("the own engine's reconcile.sh is the learner's: cnpa does not write it")
	}
	return nil, fmt.Errorf("unknown engine %q: use go, shell or own", engine)
}

// InstallScript writes <dir>/reconcile.sh (executable) for the engine and
// the finalizer switch of the state. With the own engine it writes nothing:
// it checks that the learner's script is there and can run.
func (e *Env) InstallScript() error {
	if e.Engine == EngineOwn {
		return e.checkOwnScript()
	}
	data, err := ScriptFor(e.Engine, e.CnpaPath, e.Target.Path, e.Dir, e.State.Finalizer)
	if err != nil {
		return err
	}
	_, err = evidence.WriteRaw(e.Dir, ScriptName, data, 0o755)
	return err
}

// checkOwnScript says exactly what is wrong with the learner's
// reconcile.sh, if anything keeps it from running.
func (e *Env) checkOwnScript() error {
	path := e.ScriptPath()
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("--engine own: %s does not exist. Write it (and `chmod +x` it): %s", path, OwnScriptAsk)
	case err != nil:
		return fmt.Errorf("--engine own: cannot read %s: %w", path, err)
	case fi.IsDir():
		return fmt.Errorf("--engine own: %s is a directory; it must be your executable reconcile script. %s", path, OwnScriptAsk)
	case fi.Mode()&0o111 == 0:
		return fmt.Errorf("--engine own: %s is not executable: run `chmod +x %s`", path, path)
	}
	return nil
}

// Scaffold writes one of cnpa's reference scripts to <dir>/reconcile.sh for
// a learner to read or start from: engine shell (kubectl and jq) or go (one
// pass of `cnpa controller --once`), with finalizer handling on, as the
// lab's last step has it. An existing file is kept unless force is set.
func (e *Env) Scaffold(engine string, force bool) (string, error) {
	if engine != EngineGo && engine != EngineShell {
		return "", fmt.Errorf("cnpa scaffold: --engine %q: the reference scripts are go and shell", engine)
	}
	path := e.ScriptPath()
	if _, err := os.Lstat(path); err == nil && !force {
		return "", fmt.Errorf("%s exists: cnpa never overwrites it (move it away, or --force)", path)
	}
	data, err := ScriptFor(engine, e.CnpaPath, e.Target.Path, e.Dir, true)
	if err != nil {
		return "", err
	}
	return evidence.WriteRaw(e.Dir, ScriptName, data, 0o755)
}

// Unit is cnpa-op.service for the engine: the Go engine runs the
// controller, the shell engine loops reconcile.sh every 3 s as LAB.md step 4
// describes.
func (e *Env) Unit() (service.Unit, error) {
	u := service.Unit{Engine: e.Engine, Kubeconfig: e.Target.Path, ArchiveDir: e.ArchiveDir(), Dir: e.Dir, Path: toolPath()}
	kubeconfigArg := []string{"--kubeconfig", e.Target.Path}
	if e.OwnIdentity() {
		// Every engine finds the ServiceAccount's kubeconfig in KUBECONFIG.
		u.Credential = e.CredentialPath()
		kubeconfigArg = nil
	}
	switch e.Engine {
	case EngineGo:
		u.Argv = append(append([]string{e.CnpaPath, "controller"}, kubeconfigArg...), "--archive-dir", e.ArchiveDir(),
			fmt.Sprintf("--finalizer=%t", e.State.Finalizer), "--interval=3s")
	case EngineShell, EngineOwn:
		// LAB.md step 4's unit: the script, every 3 s, forever.
		bash, err := exec.LookPath("bash")
		if err != nil {
			return u, fmt.Errorf("the %s engine needs bash: %w", e.Engine, err)
		}
		bash, _ = filepath.Abs(bash)
		u.Argv = []string{bash, "-c", fmt.Sprintf("while true; do %s; sleep 3; done", shellQuote(e.ScriptPath()))}
	default:
		return u, fmt.Errorf("unknown engine %q: use go, shell or own", e.Engine)
	}
	if e.systemUser() {
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
	if err := e.Service.Install(ctx, u); err != nil {
		return fmt.Errorf("install %s: %w", service.Name, err)
	}
	if restart {
		return e.Service.Restart(ctx)
	}
	return e.Service.Enable(ctx)
}

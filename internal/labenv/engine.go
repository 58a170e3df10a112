package labenv

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/service"
)

// Engines: the Go controller, or the kubectl+jq script.
const (
	EngineGo    = "go"
	EngineShell = "shell"
)

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
	}
	return nil, fmt.Errorf("unknown engine %q: use go or shell", engine)
}

// InstallScript writes <dir>/reconcile.sh (executable) for the engine and
// the finalizer switch of the state.
func (e *Env) InstallScript() error {
	data, err := ScriptFor(e.Engine, e.CnpaPath, e.Target.Path, e.Dir, e.State.Finalizer)
	if err != nil {
		return err
	}
	_, err = evidence.WriteRaw(e.Dir, ScriptName, data, 0o755)
	return err
}

// Unit is cnpa-op.service for the engine: the Go engine runs the
// controller, the shell engine loops reconcile.sh every 3 s as LAB.md step 4
// describes.
func (e *Env) Unit() (service.Unit, error) {
	u := service.Unit{Engine: e.Engine, Kubeconfig: e.Target.Path, ArchiveDir: e.ArchiveDir(), Dir: e.Dir, Path: toolPath()}
	switch e.Engine {
	case EngineGo:
		u.Argv = []string{e.CnpaPath, "controller", "--kubeconfig", e.Target.Path, "--archive-dir", e.ArchiveDir(),
			fmt.Sprintf("--finalizer=%t", e.State.Finalizer), "--interval=3s"}
	case EngineShell:
		bash, err := exec.LookPath("bash")
		if err != nil {
			return u, fmt.Errorf("the shell engine needs bash: %w", err)
		}
		bash, _ = filepath.Abs(bash)
		u.Argv = []string{bash, "-c", fmt.Sprintf("while true; do %s; sleep 3; done", shellQuote(e.ScriptPath()))}
	default:
		return u, fmt.Errorf("unknown engine %q: use go or shell", e.Engine)
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

// InstallService writes the unit for the current state and restarts it
// (restart) or only enables it.
func (e *Env) InstallService(ctx context.Context, restart bool) error {
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

// Package labenv is the lab's environment: the cluster and evidence dir a
// command works on, the engine and service manager the learner chose (and
// the state file that remembers them), and the files that choice renders,
// reconcile.sh and cnpa-op.service. The steps, check, reset, status and
// `cnpa service` all work through one Env.
package labenv

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/safefs"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/ui"
)

// LabCatchupWait is LAB.md step 7's "After 8 seconds read alpha's …".
const LabCatchupWait = 8 * time.Second

// Env is what every lab command works with.
type Env struct {
	Dir     string
	Target  *kube.Target
	Clients *kube.Clients
	// Progress receives wait progress (stderr for people).
	Progress *ui.Printer
	// Show receives what a step does as the commands a learner would type,
	// the server's answers and the files installed (stdout); nil shows
	// nothing (`cnpa step --quiet`, -o json).
	Show *ui.Printer
	// Verbose shows in full what Show would summarise: files and
	// manifests written through a heredoc of more than a few lines (the
	// CRD, the identity's RBAC and policy, the unit), and the commands
	// behind the service's kubeconfig (`cnpa step --verbose`). Replaying
	// the shown commands needs it.
	Verbose bool
	// Engine is "go" or "shell"; Service runs cnpa-op.service.
	Engine  string
	Service service.Manager
	UnitDir string
	// CnpaPath is the absolute path of this cnpa binary, for reconcile.sh
	// and the unit of the Go engine.
	CnpaPath string
	// CatchupWait is how long step 7 waits with the service stopped
	// (LabCatchupWait unless told otherwise).
	CatchupWait time.Duration
	// Timeout bounds each wait.
	Timeout time.Duration
	State   *State
	// Force: see Options.
	Force bool
}

// ArchiveDir is where the controller archives deleted TeamSpaces.
func (e *Env) ArchiveDir() string { return filepath.Join(e.Dir, evidence.ArchiveDir) }

// Options are the command line's choices for NewEnv; empty Engine or
// ServiceManager mean "as remembered, else the default".
type Options struct {
	Dir, Engine, ServiceManager, UnitDir string
	// ServiceIdentity is own or admin; empty means as remembered, else
	// Env.Identity's default (admin for a learner's own controller or unit).
	ServiceIdentity      string
	CatchupWait, Timeout time.Duration
	Progress             *ui.Printer
	// Force lets the steps write over the learner's files, keeping each as
	// a backup (evidence.Put); never reconcile.sh.
	Force bool
}

// NewEnv builds the lab's environment. What the command line asks for
// replaces what the evidence dir remembers until evidence depends on it
// (State.EngineLocked, State.ServiceLocked); after that a different choice
// is refused, naming the step that locked it, since the evidence so far
// was made with the first.
func NewEnv(t *kube.Target, opts Options) (*Env, error) {
	clients, err := kube.NewClients(t)
	if err != nil {
		return nil, err
	}
	st, err := LoadState(opts.Dir)
	if err != nil {
		return nil, err
	}
	recovered := st == nil
	if recovered {
		st = recoveredState(opts.Dir)
	}
	if err := st.choose(opts); err != nil {
		return nil, err
	}
	if recovered {
		// Locked as the lab's files say, as a state of today would be
		// once written again (the unit dir is the one chosen now).
		st.EngineLocked = fileExists(filepath.Join(opts.Dir, lab.ReconcileFile))
		st.ServiceLocked = serviceInstalledBefore(opts.Dir, st)
	}
	// Unlike the engine, the identity may change between steps: step 4
	// installs the unit again with whatever was asked last.
	if opts.ServiceIdentity != "" {
		st.ServiceIdentity = opts.ServiceIdentity
	}
	if !identity.Valid(st.Identity()) {
		return nil, fmt.Errorf("unknown --service-identity %q: use own (the cnpa-controller ServiceAccount) or admin (root with your kubeconfig)", st.ServiceIdentity)
	}
	if !validEngine(st.Engine) {
		return nil, fmt.Errorf("unknown engine %q: use go, shell or own", st.Engine)
	}
	mgr, err := service.New(st.ServiceManager, st.UnitDir, opts.Dir)
	if err != nil {
		return nil, err
	}
	st.ServiceManager = mgr.Name() // remember what auto resolved to
	st.Kubeconfig = t.Path
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	if self, err = filepath.EvalSymlinks(self); err != nil {
		return nil, err
	}
	if opts.CatchupWait <= 0 {
		opts.CatchupWait = LabCatchupWait
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 3 * time.Minute
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, err
	}
	return &Env{Dir: dir, Target: t, Clients: clients, Progress: opts.Progress, Engine: st.Engine, Service: mgr,
		UnitDir: st.UnitDir, CnpaPath: self, CatchupWait: opts.CatchupWait, Timeout: opts.Timeout, State: st, Force: opts.Force}, nil
}

// DefaultUnitDir is where cnpa-op.service goes without --unit-dir.
const DefaultUnitDir = "/etc/systemd/system"

// choose applies the command line's engine, service manager and unit dir
// to the state, refusing one that differs from a locked choice.
func (s *State) choose(opts Options) error {
	if opts.Engine != "" && opts.Engine != s.Engine {
		if s.EngineLocked || fileExists(filepath.Join(opts.Dir, lab.ReconcileFile)) {
			return fmt.Errorf("--engine %s: step 3 wrote %s with --engine %s, and the later steps depend on it; keep --engine %s, or start over with `cnpa reset --yes` to switch",
				opts.Engine, lab.ReconcileFile, s.Engine, s.Engine)
		}
		s.Engine = opts.Engine
	}
	serviceLocked := s.ServiceLocked || (s.loaded && serviceInstalledBefore(opts.Dir, s))
	if m := opts.ServiceManager; m != "" && m != "auto" && m != s.ServiceManager {
		if serviceLocked {
			return fmt.Errorf("--service-manager %s: step 4 installed %s with --service-manager %s; keep it, or start over with `cnpa reset --yes` to switch",
				m, service.Name, s.ServiceManager)
		}
		s.ServiceManager = m
	}
	if opts.UnitDir != "" {
		dir, err := filepath.Abs(opts.UnitDir)
		if err != nil {
			return fmt.Errorf("--unit-dir %s: %w", opts.UnitDir, err)
		}
		if dir != s.UnitDir {
			if serviceLocked {
				return fmt.Errorf("--unit-dir %s: step 4 installed %s in %s; keep --unit-dir %s, or start over with `cnpa reset --yes` (it removes that unit) to install it elsewhere",
					opts.UnitDir, service.Name, s.UnitDir, s.UnitDir)
			}
			s.UnitDir = dir
		}
	}
	return nil
}

// serviceInstalledBefore tells, for a state written before ServiceLocked
// existed (which locked every choice at step 1), whether step 4 has
// installed the service with the remembered manager and unit dir: the
// unit there serves this evidence dir, or process mode's command line is
// in the dir. Both are cnpa's and go with `cnpa reset`; an evidence file
// of a later step is no such proof, since reset keeps one the learner
// edited. None, and the choice is still open, as a state of today says.
func serviceInstalledBefore(dir string, s *State) bool {
	if fileExists(filepath.Join(dir, service.ArgvFile)) {
		return true
	}
	if s.UnitDir == "" {
		return false
	}
	unit, err := os.ReadFile(filepath.Join(s.UnitDir, service.Name))
	if err != nil {
		return false
	}
	served, ok := service.ServedDir(unit)
	abs, err := filepath.Abs(dir)
	return ok && err == nil && filepath.Clean(served) == abs
}

// fileExists: a state written before EngineLocked existed locked the
// engine at step 1; its reconcile.json tells whether step 3 depends on it.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// SaveState persists the engine and switches for later steps.
func (e *Env) SaveState() error {
	if err := os.MkdirAll(e.Dir, 0o755); err != nil {
		return err
	}
	return SaveState(e.Dir, e.State)
}

// RunScriptAsService runs reconcile.sh once the way the installed service
// runs it (PrepareScriptRun, then ScriptRun.Run). as says whom it ran as,
// Unix user and Kubernetes user, for the learner.
func (e *Env) RunScriptAsService(ctx context.Context, extraEnv ...string) (out, as string, err error) {
	run, err := e.PrepareScriptRun(ctx, extraEnv...)
	if err != nil {
		return "", "", err
	}
	out, err = run.Run()
	return out, run.As, err
}

// ScriptRun is one run of reconcile.sh, prepared by PrepareScriptRun: the
// command exactly as it will run, and the line a learner types to run it
// the same way. Step 3 shows Shown and then runs the very command behind
// it, so that a replay of what it showed is the run it graded.
type ScriptRun struct {
	cmd *exec.Cmd
	// Shown is the command line of the run, quoted for a shell. The
	// environment a learner has set already (KUBECONFIG, PATH) is left
	// out; what the run sets on top of it is in.
	Shown string
	// As says whom it runs as, Unix user and Kubernetes user.
	As string
}

// Run runs it and returns the combined output and the error of the run as
// exec gives it.
func (r *ScriptRun) Run() (string, error) {
	var b bytes.Buffer
	r.cmd.Stdout, r.cmd.Stderr = &b, &b
	err := r.cmd.Run()
	return b.String(), err
}

// PrepareScriptRun builds one run of reconcile.sh the way the installed
// service runs it, so that the learner's script is graded under the
// identity it runs under. With the own identity, once step 4 has made it:
//   - under systemd, as the Unix user cnpa-op with the unit's credential,
//     environment and sandbox: a transient unit with every directive of
//     cnpa-op.service's [Service] section (service.TransientRun), so that
//     it sees the filesystem as the service does (/root is reachable to
//     it only through the unit's BindPaths); shown as that systemd-run;
//   - in process mode, as process mode starts the service: as the user
//     running cnpa, with the unit's environment (the ServiceAccount's
//     kubeconfig, PATH, CNPA_ARCHIVE_DIR), from the evidence dir; shown
//     with the ServiceAccount's KUBECONFIG.
//
// Else (no identity yet, or --service-identity admin) as RunScript does.
func (e *Env) PrepareScriptRun(ctx context.Context, extraEnv ...string) (*ScriptRun, error) {
	if !e.ScriptRunsAsIdentity() {
		cmd, err := e.scriptCmd(ctx, extraEnv...)
		if err != nil {
			return nil, err
		}
		return &ScriptRun{cmd: cmd, Shown: shellLine(append(slices.Clone(extraEnv), e.ScriptPath())),
			As: "as Unix user " + unixUser() + " with your kubeconfig (the service's identity does not exist yet, or is admin)"}, nil
	}
	for _, p := range []string{e.ScriptPath(), e.CredentialPath()} {
		if err := safefs.Trusted(p); err != nil {
			return nil, err
		}
	}
	u, err := e.Unit()
	if err != nil {
		return nil, err
	}
	k8sUser := "Kubernetes user " + identity.Username + " (" + CredentialFile + ")"
	if e.SystemUser() {
		// The Go engine's service runs the cnpa binary, not the script:
		// the run needs the script's dir too, read-only as for the others.
		var reads []string
		if !slices.Contains(u.Reads, e.Dir) {
			reads = []string{e.Dir}
		}
		var maxRuntime time.Duration
		if deadline, ok := ctx.Deadline(); ok {
			maxRuntime = time.Until(deadline)
		}
		args, err := service.TransientRun(u, lab.TempName("cnpa-op-run-")+".service", []string{e.ScriptPath()}, extraEnv, reads, maxRuntime)
		if err != nil {
			return nil, err
		}
		return &ScriptRun{cmd: exec.CommandContext(ctx, "systemd-run", args...), Shown: shellLine(append([]string{"systemd-run"}, args...)),
			As: "as Unix user " + service.User + " and " + k8sUser + ", in " + service.Name + "'s sandbox (systemd-run with its directives), as the service runs it"}, nil
	}
	cmd := exec.CommandContext(ctx, e.ScriptPath())
	cmd.Env = append(append(os.Environ(), u.Env()...), extraEnv...)
	cmd.Dir = e.Dir
	return &ScriptRun{cmd: cmd, Shown: shellLine(append([]string{"KUBECONFIG=" + e.CredentialPath()}, append(slices.Clone(extraEnv), e.ScriptPath())...)),
		As: "as Unix user " + unixUser() + " and " + k8sUser + ", as " + service.Name + " runs it in process mode (as the user running cnpa)"}, nil
}

// shellLine quotes each word of a command line for a shell, as little as
// it can: a word that needs quotes keeps its head up to the last "=" of
// its plain part as it is, so that NAME=value still reads as an
// assignment and --property=Key=value as an option with its key.
func shellLine(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		plain := strings.IndexFunc(w, func(r rune) bool { return !strings.ContainsRune(shellPlain, r) })
		switch eq := strings.LastIndex(w[:max(plain, 0)], "="); {
		case w != "" && plain < 0:
			q[i] = w
		case eq > 0:
			q[i] = w[:eq+1] + QuoteArg(w[eq+1:])
		default:
			q[i] = QuoteArg(w)
		}
	}
	return strings.Join(q, " ")
}

// shellPlain are the characters a shell word needs no quotes for (no ~: a
// bash expands it after = even in an argument).
const shellPlain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-=:,@%+"

// unixUser names the user this process runs as.
func unixUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "uid " + strconv.Itoa(os.Getuid())
}

// ScriptRunsAsIdentity tells whether RunScriptAsService runs the script
// under the service's own identity: chosen, and made by step 4.
func (e *Env) ScriptRunsAsIdentity() bool {
	return e.Identity() == identity.Own && fileExists(e.CredentialPath())
}

// RunScript runs the installed reconcile.sh once, from the evidence dir and
// with the lab's kubeconfig and context (CommandKubeconfig), as the learner
// (or the grader) would, and the extra environment given (NAME=value). It
// returns the combined output and the error of the run as exec gives it.
func (e *Env) RunScript(ctx context.Context, extraEnv ...string) (string, error) {
	cmd, err := e.scriptCmd(ctx, extraEnv...)
	if err != nil {
		return "", err
	}
	return (&ScriptRun{cmd: cmd}).Run()
}

// scriptCmd is RunScript's command: reconcile.sh from the evidence dir with
// the lab's kubeconfig and context and the extra environment.
func (e *Env) scriptCmd(ctx context.Context, extraEnv ...string) (*exec.Cmd, error) {
	if err := e.writeContextFile(); err != nil {
		return nil, err
	}
	kc, err := e.CommandKubeconfig()
	if err != nil {
		return nil, err
	}
	// Run as root, the script and every kubeconfig of the evidence dir it
	// is given must be beyond another user's reach (safefs.Trusted): step
	// 3 and cnpa check would otherwise execute what anyone who can write
	// the dir put there. (Your own --kubeconfig cnpa has read already.)
	for _, p := range append([]string{e.ScriptPath()}, filepath.SplitList(kc)...) {
		if p == "" || (p != e.ScriptPath() && !strings.HasPrefix(p, e.Dir+string(filepath.Separator))) {
			continue
		}
		if err := safefs.Trusted(p); err != nil {
			return nil, err
		}
	}
	cmd := exec.CommandContext(ctx, e.ScriptPath())
	cmd.Env = append(append(os.Environ(), "KUBECONFIG="+kc), extraEnv...)
	cmd.Dir = e.Dir
	return cmd, nil
}

package labenv

// Running reconcile.sh: once as the learner or the grader would
// (RunScript), or the way the installed service runs it, under the
// service's identity (PrepareScriptRun, RunScriptAsService). Step 3 and
// the grader's reruns call these; what the service itself runs is
// engine.go's and unitfile.go's.

import (
	"bytes"
	"context"
	"github.com/labhub/cnpa/internal/i18n"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/safefs"
	"github.com/labhub/cnpa/internal/service"
)

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
			As: i18n.T("labenv.runs_as_you", i18n.Args{"User": unixUser()})}, nil
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
	k8sUser := i18n.T("labenv.k8s_user", i18n.Args{"User": identity.Username, "File": CredentialFile})
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
			As: i18n.T("labenv.runs_in_sandbox", i18n.Args{"User": service.User, "K8sUser": k8sUser, "Unit": service.Name})}, nil
	}
	cmd := exec.CommandContext(ctx, e.ScriptPath())
	cmd.Env = append(append(os.Environ(), u.Env()...), extraEnv...)
	cmd.Dir = e.Dir
	return &ScriptRun{cmd: cmd, Shown: shellLine(append([]string{"KUBECONFIG=" + e.CredentialPath()}, append(slices.Clone(extraEnv), e.ScriptPath())...)),
		As: i18n.T("labenv.runs_in_process", i18n.Args{"User": unixUser(), "K8sUser": k8sUser, "Unit": service.Name})}, nil
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

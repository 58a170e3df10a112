package kit

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labhub/cnpa/test/kit/cluster"
)

// Lab runs the cnpa binary as a learner runs it, against one cluster, with
// one evidence dir and one unit dir: the one harness of the suites that
// run cnpa (test/grader, test/learners, test/lab). Every command gets
// `--kubeconfig`, `--dir` and `--no-color` (and `--context` when set), and
// the environment in Env.
type Lab struct {
	T testing.TB
	// Ctx bounds every command; a command it kills fails the test: no
	// wait in cnpa may outlast its own --timeout.
	Ctx     context.Context
	Cluster *cluster.Cluster
	// Bin is the cnpa binary (kit.RunWithCnpa's).
	Bin string
	// Dir is the evidence dir, UnitDir the process-mode service's unit dir.
	Dir, UnitDir string
	// Kubeconfig is what cnpa is given (Cluster.Kubeconfig unless set),
	// and Context its --context when not empty.
	Kubeconfig, Context string
	// Env is every command's environment (Cluster.Env() unless set).
	Env []string
	// Quiet: do not log each command and its exit code.
	Quiet bool
	// Color: leave out --no-color (with CLICOLOR_FORCE=1 in Env, cnpa
	// colours its output as on a terminal).
	Color bool
}

// NewLab is a Lab on c with the binary bin, bounded by ctx, with a fresh
// evidence dir (…/cnpa-op) and unit dir (…/systemd) in t's temporary dirs.
func NewLab(ctx context.Context, t testing.TB, c *cluster.Cluster, bin string) *Lab {
	return &Lab{T: t, Ctx: ctx, Cluster: c, Bin: bin,
		Dir: filepath.Join(t.TempDir(), "cnpa-op"), UnitDir: filepath.Join(t.TempDir(), "systemd")}
}

// Result is one cnpa command's exit code and output.
type Result struct {
	// Prog is the program's name (cnpa, or what Run ran), Args its
	// arguments as the caller gave them (without the Lab's global flags).
	Prog string
	Args []string
	Code int
	// Stdout and Stderr apart, and Output both as they came.
	Stdout, Stderr, Output string
	Took                   time.Duration
}

// Err is nil when the command exited 0, else an error with its exit code.
func (r Result) Err() error {
	if r.Code == 0 {
		return nil
	}
	return fmt.Errorf("exit status %d", r.Code)
}

// Command is the command line, for messages.
func (r Result) Command() string { return r.Prog + " " + strings.Join(r.Args, " ") }

func (r Result) String() string {
	return fmt.Sprintf("%s: exit %d in %s\n--- stdout\n%s--- stderr\n%s", r.Command(), r.Code, r.Took.Round(time.Millisecond), r.Stdout, r.Stderr)
}

// Cnpa runs cnpa with args under l.Ctx.
func (l *Lab) Cnpa(args ...string) Result {
	l.T.Helper()
	return l.CnpaIn(l.Ctx, args...)
}

// CnpaIn runs cnpa with args under ctx: for the cleanups, which run when
// the test's own context is over. A command that cannot start, or that ctx
// kills, fails the test.
func (l *Lab) CnpaIn(ctx context.Context, args ...string) Result {
	l.T.Helper()
	kubeconfig := l.Kubeconfig
	if kubeconfig == "" {
		kubeconfig = l.Cluster.Kubeconfig
	}
	global := []string{"--kubeconfig", kubeconfig}
	if l.Context != "" {
		global = append(global, "--context", l.Context)
	}
	global = append(global, "--dir", l.Dir)
	if !l.Color {
		global = append(global, "--no-color")
	}
	return l.run(ctx, l.env(), l.Bin, global, args)
}

// Run runs another program (a learner's script, bash) the way Cnpa runs
// cnpa, with the environment env (the Lab's when nil).
func (l *Lab) Run(env []string, name string, args ...string) Result {
	l.T.Helper()
	if env == nil {
		env = l.env()
	}
	return l.run(l.Ctx, env, name, nil, args)
}

func (l *Lab) env() []string {
	if l.Env != nil {
		return l.Env
	}
	return l.Cluster.Env()
}

// run runs name with global and args under ctx.
func (l *Lab) run(ctx context.Context, env []string, name string, global, args []string) Result {
	l.T.Helper()
	cmd := exec.CommandContext(ctx, name, append(append([]string{}, global...), args...)...)
	cmd.Env = env
	// The service's loop is detached and may hold a copy of an output
	// pipe: do not wait for it once the command itself has exited.
	cmd.WaitDelay = 5 * time.Second
	var out, errOut bytes.Buffer
	all := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = io.MultiWriter(&out, all), io.MultiWriter(&errOut, all)
	start := time.Now()
	err := cmd.Run()
	r := Result{Prog: filepath.Base(name), Args: args, Stdout: out.String(), Stderr: errOut.String(), Output: all.String(), Took: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		l.T.Fatalf("%s: killed at the test's deadline: a wait does not honour --timeout\n%s", r.Command(), r)
	case err == nil:
	case errors.As(err, &ee) && ee.Exited():
		r.Code = ee.ExitCode()
	default:
		l.T.Fatalf("%s: %v\n%s", r.Command(), err, r)
	}
	if !l.Quiet {
		l.T.Logf("%s: exit %d in %s", r.Command(), r.Code, r.Took.Round(time.Millisecond))
	}
	return r
}

// CombinedOutput runs cnpa with args and returns its stdout and stderr
// together, as they came, and an error when it did not exit 0.
func (l *Lab) CombinedOutput(args ...string) ([]byte, error) {
	l.T.Helper()
	r := l.Cnpa(args...)
	return []byte(r.Output), r.Err()
}

// Must runs cnpa and fails the test unless it exits 0; it returns stdout.
func (l *Lab) Must(args ...string) string {
	l.T.Helper()
	r := l.Cnpa(args...)
	if r.Code != 0 {
		l.T.Fatalf("%s: exit %d\n%s\n%s", r.Command(), r.Code, r.Stdout, r.Stderr)
	}
	return r.Stdout
}

// StepAll runs `cnpa step all --engine engine` with the service in process
// mode in l.UnitDir, and extra arguments after.
func (l *Lab) StepAll(engine string, extra ...string) Result {
	l.T.Helper()
	return l.Cnpa(append([]string{"step", "all", "--engine", engine, "--service-manager", "process", "--unit-dir", l.UnitDir}, extra...)...)
}

// Check runs `cnpa check -o json` with extra arguments and decodes its
// report into report (a *judge.Report: kit does not import the grader,
// which imports what unit tests of internal/ packages that use kit test).
// An exit code of 2 (usage, environment) or a report that does not parse
// fails the test.
func (l *Lab) Check(report any, extra ...string) Result {
	l.T.Helper()
	r := l.Cnpa(append([]string{"check", "-o", "json"}, extra...)...)
	if r.Code == 2 {
		l.T.Fatalf("cnpa check: usage or environment error\n%s", r)
	}
	if err := json.Unmarshal([]byte(r.Stdout), report); err != nil {
		l.T.Fatalf("cnpa check -o json (exit %d) does not parse: %v\n%s", r.Code, err, r)
	}
	return r
}

// Submit runs `cnpa submit` with its arguments.
func (l *Lab) Submit(args ...string) Result {
	l.T.Helper()
	return l.Cnpa(append([]string{"submit"}, args...)...)
}

// Reset runs `cnpa reset --yes` naming the service manager, so that a dir
// without state never reaches for the machine's /etc/systemd/system.
func (l *Lab) Reset(extra ...string) Result {
	l.T.Helper()
	return l.Cnpa(append([]string{"reset", "--yes", "--service-manager", "process", "--unit-dir", l.UnitDir}, extra...)...)
}

// StopService stops the detached loop with `cnpa service stop`, under a
// context of its own (the test's may be over: it is for cleanups), and
// only logs a failure.
func (l *Lab) StopService() {
	l.T.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if r := l.CnpaIn(ctx, "service", "stop", "--service-manager", "process", "--unit-dir", l.UnitDir); r.Code != 0 {
		l.T.Logf("%s: exit %d\n%s%s", r.Command(), r.Code, r.Stdout, r.Stderr)
	}
}

// ServiceLog is the last n lines of the service's log (cnpa-op.log in the
// evidence dir), for failure messages.
func (l *Lab) ServiceLog(n int) string {
	data, err := os.ReadFile(filepath.Join(l.Dir, "cnpa-op.log"))
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// lockedBuffer is a buffer that stdout's and stderr's copies both write.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/labhub/cnpa/internal/controller"
	"github.com/labhub/cnpa/test/kit"
)

// engine reconciles TeamSpaces. Once engines act only in pass; running
// engines act by themselves between start and stop.
type engine interface {
	start(t *testing.T)
	stop(t *testing.T)
	// pass runs one pass (once engines) and returns the names that failed;
	// running engines return nil at once.
	pass(t *testing.T) []string
	// idle lets two more passes happen.
	idle(t *testing.T)
	continuous() bool
	// diag is what the engine said last, for failure messages.
	diag() string
	// writes lists every write request the engine made so far.
	writes() []string
}

type engineConfig struct {
	archiveDir string
	finalizer  bool
	kubectlLog string
}

type engineKind struct {
	name, short string
	new         func(env *env, cfg engineConfig) engine
}

var engineKinds = []engineKind{
	{"go-once", "go1", func(e *env, cfg engineConfig) engine { return &goOnce{env: e, cfg: cfg} }},
	{"go-running", "gor", func(e *env, cfg engineConfig) engine { return &goRunning{env: e, cfg: cfg} }},
	{"shell-once", "sh1", func(e *env, cfg engineConfig) engine { return &shellOnce{env: e, cfg: cfg, kubectlLog: cfg.kubectlLog} }},
	{"shell-loop", "shl", func(e *env, cfg engineConfig) engine {
		return &shellLoop{shellOnce: shellOnce{env: e, cfg: cfg, kubectlLog: cfg.kubectlLog}}
	}},
}

// goOnce is `cnpa controller --once`: controller.Once per pass.
type goOnce struct {
	env  *env
	cfg  engineConfig
	c    *controller.Controller
	last string
	log  writeLog
}

func (g *goOnce) start(t *testing.T) {
	c, err := controller.New(g.log.wrap(g.env.Rest), controller.Config{ArchiveDir: g.cfg.archiveDir, Finalizer: g.cfg.finalizer, Logger: quietLogger(nil)})
	if err != nil {
		t.Fatalf("controller.New: %v", err)
	}
	g.c = c
}
func (g *goOnce) stop(*testing.T)   {}
func (g *goOnce) continuous() bool  { return false }
func (g *goOnce) diag() string      { return g.last }
func (g *goOnce) writes() []string  { return g.log.list() }
func (g *goOnce) idle(t *testing.T) { g.pass(t); g.pass(t) }
func (g *goOnce) pass(t *testing.T) []string {
	t.Helper()
	failures, err := g.c.Once(context.Background())
	if err != nil {
		t.Fatalf("Once: %v", err)
	}
	var names, lines []string
	for _, f := range failures {
		names = append(names, f.Name)
		lines = append(lines, f.Error())
	}
	g.last = strings.Join(lines, "\n")
	return names
}

// goRunning is the Go controller running with a 3 s resync.
type goRunning struct {
	env    *env
	cfg    engineConfig
	cancel context.CancelFunc
	done   chan error
	logs   *kit.TailBuffer
	log    writeLog
}

func (g *goRunning) start(t *testing.T) {
	t.Helper()
	if g.logs == nil {
		g.logs = &kit.TailBuffer{Max: 8 << 10}
	}
	c, err := controller.New(g.log.wrap(g.env.Rest), controller.Config{ArchiveDir: g.cfg.archiveDir, Finalizer: g.cfg.finalizer,
		Interval: goInterval, Logger: quietLogger(g.logs)})
	if err != nil {
		t.Fatalf("controller.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	g.cancel, g.done = cancel, make(chan error, 1)
	go func() { g.done <- c.Run(ctx) }()
	select {
	case <-c.Ready():
	case err := <-g.done:
		t.Fatalf("controller stopped before its caches synced: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatalf("controller caches not synced after 30s; log:\n%s", g.logs)
	}
}

func (g *goRunning) stop(t *testing.T) {
	if g.cancel == nil {
		return
	}
	g.cancel()
	g.cancel = nil
	select {
	case err := <-g.done:
		if err != nil {
			t.Errorf("controller Run: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("controller did not stop within 30s")
	}
}

func (g *goRunning) pass(*testing.T) []string { return nil }
func (g *goRunning) continuous() bool         { return true }
func (g *goRunning) diag() string             { return g.logs.String() }
func (g *goRunning) writes() []string         { return g.log.list() }

// idle waits two resync intervals: that no write happens can only be
// observed over a window, there is no event to wait for.
func (g *goRunning) idle(*testing.T) { <-time.After(2*goInterval + time.Second) }

// shellOnce runs `bash assets/reconcile.sh` once per pass.
type shellOnce struct {
	env  *env
	cfg  engineConfig
	mu   sync.Mutex
	last string
	// kubectlLog receives one line per kubectl call (see env.kubectlWrapper).
	kubectlLog string
}

func (s *shellOnce) start(*testing.T)  {}
func (s *shellOnce) stop(*testing.T)   {}
func (s *shellOnce) continuous() bool  { return false }
func (s *shellOnce) idle(t *testing.T) { s.pass(t); s.pass(t) }

// writes lists the kubectl calls other than `get`. reconcile.sh gives
// every call --request-timeout first (a blackholed request ends), so the
// verb is the first word that is no flag.
func (s *shellOnce) writes() []string {
	data, _ := os.ReadFile(s.kubectlLog) // missing: no call yet
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		verb := ""
		for _, w := range strings.Fields(line) {
			if !strings.HasPrefix(w, "-") {
				verb = w
				break
			}
		}
		if line != "" && verb != "get" {
			out = append(out, line)
		}
	}
	return out
}

func (s *shellOnce) diag() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

func (s *shellOnce) pass(t *testing.T) []string {
	t.Helper()
	failed, err := s.run()
	if err != nil {
		t.Fatalf("reconcile.sh: %v\n%s", err, s.diag())
	}
	return failed
}

var failureLine = regexp.MustCompile(`(?m)^teamspace (\S+): `)

// run runs the script once. Exit 1 (some TeamSpace failed) is a normal
// outcome; the names are parsed from stderr.
func (s *shellOnce) run() ([]string, error) {
	cmd := exec.Command("bash", s.env.script)
	cmd.Env = append(s.env.shellEnv(),
		"CNPA_E2E_KUBECTL_LOG="+s.kubectlLog,
		"CNPA_ARCHIVE_DIR="+s.cfg.archiveDir,
		fmt.Sprintf("CNPA_FINALIZER=%t", s.cfg.finalizer))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	s.mu.Lock()
	s.last = "stdout:\n" + stdout.String() + "stderr:\n" + stderr.String()
	s.mu.Unlock()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return nil, err
	}
	var failed []string
	for _, m := range failureLine.FindAllStringSubmatch(stderr.String(), -1) {
		failed = append(failed, m[1])
	}
	return failed, nil
}

// shellLoop is the script in a loop with 1 s between passes, like
// cnpa-op.service.
type shellLoop struct {
	shellOnce
	cancel context.CancelFunc
	done   chan struct{}
	passes atomic.Int64
	errMu  sync.Mutex
	err    error
}

func (s *shellLoop) start(*testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel, s.done = cancel, make(chan struct{})
	go func() {
		defer close(s.done)
		for {
			// A pass is never interrupted: stopping waits for it to finish.
			if _, err := s.run(); err != nil {
				s.errMu.Lock()
				s.err = err
				s.errMu.Unlock()
			}
			s.passes.Add(1)
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
		}
	}()
}

func (s *shellLoop) stop(t *testing.T) {
	if s.cancel == nil {
		return
	}
	s.cancel()
	s.cancel = nil
	<-s.done
	s.errMu.Lock()
	defer s.errMu.Unlock()
	if s.err != nil {
		t.Errorf("reconcile.sh in the loop: %v\n%s", s.err, s.diag())
	}
}

func (s *shellLoop) pass(*testing.T) []string { return nil }
func (s *shellLoop) continuous() bool         { return true }

// idle waits for two passes that started after the call (the pass running
// at call time may have read the cluster before, so it does not count).
func (s *shellLoop) idle(t *testing.T) {
	want := s.passes.Load() + 3
	deadline := time.After(2 * time.Minute)
	for s.passes.Load() < want {
		select {
		case <-deadline:
			t.Fatalf("shell loop: passes got %d, want %d within 2m", s.passes.Load(), want)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// quietLogger logs into w (discarded when nil): the running controller's
// logs are shown only when a scenario fails.
func quietLogger(w io.Writer) *slog.Logger {
	if w == nil {
		w = io.Discard
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// writeLog records the write requests (every method but GET) a Go engine
// sends.
type writeLog struct {
	mu    sync.Mutex
	lines []string
}

func (w *writeLog) wrap(rc *rest.Config) *rest.Config {
	c := rest.CopyConfig(rc)
	c.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				w.mu.Lock()
				w.lines = append(w.lines, r.Method+" "+r.URL.Path)
				w.mu.Unlock()
			}
			return rt.RoundTrip(r)
		})
	})
	return c
}

func (w *writeLog) list() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.lines)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

package kit

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/labhub/cnpa/internal/ui"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// Resync is the controller's --interval in every StartController.
const Resync = 3 * time.Second

var (
	buildMu sync.Mutex
	builds  = map[string]string{} // build tags → binary path
)

// CnpaBinary places cmd/cnpa (with the given build tags) once per test
// binary (PlaceCnpa: a copy of $CNPA_BIN, or a build). It goes to one
// fixed path per user, checkout and tag set, written through a rename, so
// repeated runs reuse the space and a concurrent run never sees half a
// binary, nor another checkout's (worktrees share the temp dir).
func CnpaBinary(t testing.TB, tags ...string) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	key := strings.Join(tags, ",")
	if p, ok := builds[key]; ok {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("cnpa-test-%d", os.Getuid()), fmt.Sprintf("%x", sha256.Sum256([]byte(wd)))[:12])
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	name := "cnpa"
	if key != "" {
		name += "-" + strings.Join(tags, "-")
	}
	tmp := filepath.Join(dir, fmt.Sprintf("%s.tmp-%d", name, os.Getpid()))
	os.Remove(tmp) // a leftover of an earlier process with this pid
	if err := PlaceCnpa(tmp, tags...); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
	builds[key] = p
	return p
}

// CtrlOpts say how to run one `cnpa controller`.
type CtrlOpts struct {
	Kubeconfig string   // default: the cluster's admin kubeconfig
	ArchiveDir string   // required
	Args       []string // extra controller flags
	Env        []string // extra environment, e.g. CNPA_FAULT=…
	NoWait     bool     // do not wait for /readyz (a standby never gets ready)
	Tags       []string // build tags of the cnpa binary (see CnpaBinary)
}

// Ctrl is one `cnpa controller` process.
type Ctrl struct {
	t       testing.TB
	Name    string
	Cmd     *exec.Cmd
	Done    chan struct{}
	logPath string
	Metrics string // host:port of /metrics
	Health  string // host:port of /healthz and /readyz
}

var ctrlSeq sync.Map // test name → number of controllers started, for log names

// StartController starts `cnpa --kubeconfig K controller …` with our
// finalizer, a Resync interval, its metrics and health endpoints on free
// ports, its stderr in a log file, and (unless NoWait) waits for /readyz. A
// cleanup stops it, and logs its tail when the test failed
// ($CNPA_FAULTS_LOGS: all of it, always).
func (e *Env) StartController(name string, o CtrlOpts) *Ctrl {
	e.T.Helper()
	if o.Kubeconfig == "" {
		o.Kubeconfig = e.Cluster.Kubeconfig
	}
	ports := FreePorts(e.T, 2)
	p := &Ctrl{t: e.T, Name: name, Done: make(chan struct{}),
		Metrics: "127.0.0.1:" + strconv.Itoa(ports[0]), Health: "127.0.0.1:" + strconv.Itoa(ports[1])}
	n, _ := ctrlSeq.LoadOrStore(e.T.Name(), new(int))
	*n.(*int)++
	p.logPath = filepath.Join(e.T.TempDir(), fmt.Sprintf("%s-%d.log", name, *n.(*int)))
	logf, err := os.Create(p.logPath)
	if err != nil {
		e.T.Fatal(err)
	}
	args := append([]string{"--kubeconfig", o.Kubeconfig, "controller",
		"--archive-dir", o.ArchiveDir, "--finalizer=true", "--interval", Resync.String(),
		"--metrics-addr", p.Metrics, "--health-addr", p.Health}, o.Args...)
	p.Cmd = exec.Command(CnpaBinary(e.T, o.Tags...), args...)
	var environ []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KUBECONFIG=") && !strings.HasPrefix(kv, "CNPA_") {
			environ = append(environ, kv)
		}
	}
	p.Cmd.Env = append(environ, o.Env...)
	p.Cmd.Stdout, p.Cmd.Stderr = logf, logf
	// The controller dies with the test binary, whatever happens to it.
	p.Cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := p.Cmd.Start(); err != nil {
		logf.Close()
		e.T.Fatalf("start controller %s: %v", name, err)
	}
	go func() { p.Cmd.Wait(); logf.Close(); close(p.Done) }()
	e.T.Cleanup(func() {
		p.Cmd.Process.Signal(syscall.SIGCONT) // in case the test failed while it was paused
		p.Stop()
		switch {
		case os.Getenv("CNPA_FAULTS_LOGS") != "":
			e.T.Logf("controller %s log:\n%s", p.Name, p.Log())
		case e.T.Failed():
			e.T.Logf("controller %s log (tail):\n%s", p.Name, ui.Tail(p.Log(), 40))
		}
	})
	if !o.NoWait {
		p.WaitReady()
	}
	return p
}

// WaitReady waits up to 2 minutes for /readyz, failing at once if the
// process exits.
func (p *Ctrl) WaitReady() {
	p.t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(p.t.Context(), Interval, 2*time.Minute, true, func(context.Context) (bool, error) {
		if !p.Alive() {
			return false, fmt.Errorf("exited before it was ready: %v", p.Cmd.ProcessState)
		}
		code, body := HTTPGet("http://" + p.Health + "/readyz")
		last = fmt.Sprintf("/readyz: %d %s", code, body)
		return code == http.StatusOK, nil
	})
	if err != nil {
		p.t.Fatalf("controller %s not ready: %v (last %s)\n%s", p.Name, err, last, ui.Tail(p.Log(), 30))
	}
}

// Pid is the process id.
func (p *Ctrl) Pid() int { return p.Cmd.Process.Pid }

// Alive tells whether the process still runs.
func (p *Ctrl) Alive() bool {
	select {
	case <-p.Done:
		return false
	default:
		return true
	}
}

// WaitExit waits up to d for the process to end and returns its state, or
// nil if it is still running.
func (p *Ctrl) WaitExit(d time.Duration) *os.ProcessState {
	select {
	case <-p.Done:
		return p.Cmd.ProcessState
	case <-time.After(d):
		return nil
	}
}

// Stop sends SIGTERM and waits (SIGKILL after 20 s).
func (p *Ctrl) Stop() {
	if !p.Alive() {
		return
	}
	p.Cmd.Process.Signal(syscall.SIGTERM)
	if p.WaitExit(20*time.Second) == nil {
		p.Cmd.Process.Kill()
		<-p.Done
	}
}

// Kill sends SIGKILL and waits for the process to be gone.
func (p *Ctrl) Kill() {
	p.Cmd.Process.Kill()
	<-p.Done
}

// Signal sends s to the process.
func (p *Ctrl) Signal(s syscall.Signal) {
	p.t.Helper()
	if err := p.Cmd.Process.Signal(s); err != nil {
		p.t.Fatalf("signal %v to controller %s: %v", s, p.Name, err)
	}
}

// Log is what the process wrote so far.
func (p *Ctrl) Log() string {
	b, _ := os.ReadFile(p.logPath) // missing: nothing written yet
	return string(b)
}

// Identity is the leader-election identity RunLeaderElected picks.
func (p *Ctrl) Identity() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s_%d", host, p.Pid())
}

// Metric sums every series of one metric on the controller's /metrics
// (0 when the metric has no series yet).
func (p *Ctrl) Metric(name string) (float64, error) {
	return p.MetricWhere(name, "")
}

// MetricWhere sums the series of one metric whose labels contain sel.
func (p *Ctrl) MetricWhere(name, sel string) (float64, error) {
	code, body := HTTPGet("http://" + p.Metrics + "/metrics")
	if code != http.StatusOK {
		return 0, fmt.Errorf("GET %s/metrics: %d %s", p.Metrics, code, body)
	}
	return SumMetric(body, name, sel), nil
}

// MustMetric is Metric failing the test on error.
func (p *Ctrl) MustMetric(name string) float64 {
	p.t.Helper()
	v, err := p.Metric(name)
	if err != nil {
		p.t.Fatal(err)
	}
	return v
}

// SumMetric sums the series of one metric in a Prometheus text body whose
// labels contain sel ("" for all).
func SumMetric(body, name, sel string) float64 {
	var sum float64
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		if sel != "" && !(strings.HasPrefix(line, name+"{") && strings.Contains(line, sel)) {
			continue
		}
		if i := strings.LastIndexByte(line, ' '); i > 0 {
			if v, err := strconv.ParseFloat(line[i+1:], 64); err == nil {
				sum += v
			}
		}
	}
	return sum
}

// HTTPGet returns the status code and body of a GET (0 and the error when
// the request fails).
func HTTPGet(url string) (int, string) {
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	b.ReadFrom(resp.Body)
	return resp.StatusCode, b.String()
}

// FreePorts returns n loopback ports that were free a moment ago.
func FreePorts(t testing.TB, n int) []int {
	t.Helper()
	ports, err := cluster.FreePorts(n)
	if err != nil {
		t.Fatal(err)
	}
	return ports
}

// MustMetricWhere is MetricWhere failing the test on error.
func (p *Ctrl) MustMetricWhere(name, sel string) float64 {
	p.t.Helper()
	v, err := p.MetricWhere(name, sel)
	if err != nil {
		p.t.Fatal(err)
	}
	return v
}

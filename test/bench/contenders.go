package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/metrics"

	"github.com/labhub/cnpa/internal/controller"
	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/ui"
	"github.com/labhub/cnpa/test/kit"
)

// Contender names, as given to -contenders.
const (
	nameCnpa   = "cnpa"
	nameShell  = "shell"
	namePeer   = "peer"
	nameRaw    = "raw"
	nameInproc = "cnpa-inproc"
	nameMin    = "cnpa-min"
)

// benchPods is spec.pods of every TeamSpace the harness creates; drift
// edits set the quota to 99 and expect this value back.
const benchPods = 4

// rawManager is the field manager of the raw floor's writes; driftManager
// of the harness's hand edits.
const (
	rawManager   = "cnpa-bench-raw"
	driftManager = "cnpa-bench-drift"
)

// contender is one way of making TeamSpaces converge. A new value is made
// for every control plane it runs on.
type contender interface {
	// Start begins reconciling e's cluster. It does not wait for readiness:
	// the harness's warm-up TeamSpace does, the same way for everyone.
	Start(ctx context.Context, e *env) error
	// Create is what happens when a user creates a TeamSpace: for a
	// controller the create request alone, for the raw floor all five
	// requests one TeamSpace needs.
	Create(ctx context.Context, e *env, name string) error
	// QuotaChanged is called right after the harness deleted or edited the
	// TeamSpace's quota: the raw floor puts it back, a controller has to
	// notice by itself.
	QuotaChanged(ctx context.Context, e *env, name string) error
	// Pause freezes the contender (SIGSTOP) for the idle baseline window;
	// Resume thaws it.
	Pause() error
	Resume() error
	// Stop ends the contender and reports an early exit as an error.
	Stop() error
	// PeakRSS, valid after Stop, is the peak resident set in bytes and how
	// it was read; bytes < 0 means not applicable.
	PeakRSS() (int64, string)
	// Exited is closed when the contender's process ends (nil: never).
	Exited() <-chan struct{}
	// Diag is the tail of the contender's log, for error messages.
	Diag() string
}

// noter is a contender with measurements of its own to report.
type noter interface{ Notes() string }

// binaries are the programs the process contenders run, built once.
type binaries struct {
	cnpa   string
	peer   string
	script string
	minctl string
}

func newContender(name string, cfg *config, bin *binaries) (contender, error) {
	switch name {
	case nameCnpa:
		p := &procContender{name: name}
		p.argv = func(e *env) ([]string, []string) {
			p.metricsAddr = freeAddr()
			return []string{bin.cnpa, "--kubeconfig", e.contenderKubeconfig, "controller",
				"--archive-dir", filepath.Join(e.dir, "archive"), "--finalizer=true",
				"--workers", strconv.Itoa(cfg.workers), "--metrics-addr", p.metricsAddr}, nil
		}
		return p, nil
	case namePeer:
		return &procContender{name: name, argv: func(e *env) ([]string, []string) {
			return []string{bin.peer, "--archive", filepath.Join(e.dir, "archive")}, nil
		}}, nil
	case nameShell:
		// What cnpa-op.service runs: a pass, 3 s of sleep, forever.
		return &procContender{name: name, shell: true, argv: func(e *env) ([]string, []string) {
			return []string{"bash", "-c", `while true; do bash "$0"; sleep 3; done`, bin.script},
				[]string{"CNPA_ARCHIVE_DIR=" + filepath.Join(e.dir, "archive"), "CNPA_FINALIZER=true"}
		}}, nil
	case nameMin:
		p := &procContender{name: name}
		p.argv = func(e *env) ([]string, []string) {
			p.pprofAddr, p.metricsAddr = freeAddr(), freeAddr()
			return []string{bin.minctl, "--kubeconfig", e.contenderKubeconfig,
				"--archive-dir", filepath.Join(e.dir, "archive"), "--workers", strconv.Itoa(cfg.workers),
				"--pprof", p.pprofAddr, "--metrics", p.metricsAddr}, nil
		}
		return p, nil
	case nameRaw:
		return &rawContender{}, nil
	case nameInproc:
		return &inprocContender{cfg: cfg}, nil
	}
	return nil, fmt.Errorf("unknown contender %q (known: %s)", name, strings.Join(knownContenders, ", "))
}

var knownContenders = []string{nameCnpa, nameShell, namePeer, nameRaw, nameInproc, nameMin}

// passive is the harness's side for a controller: it only creates the
// TeamSpace and lets the controller do the rest.
type passive struct{}

func (passive) Create(ctx context.Context, e *env, name string) error {
	_, err := e.dyn.Resource(teamspace.GVR).Create(ctx, kit.NewTeamSpace(name, benchPods, ""), metav1.CreateOptions{})
	return err
}

func (passive) QuotaChanged(context.Context, *env, string) error { return nil }

// procContender is a controller running as a process of its own: the cnpa
// binary, the peer, or the shell loop.
type procContender struct {
	passive
	name string
	// shell marks the kubectl+jq loop: its memory is that of many short
	// processes, read from wait4's rusage instead of one VmHWM.
	shell  bool
	argv   func(e *env) (args, extraEnv []string)
	cmd    *exec.Cmd
	logf   string
	exited chan struct{}
	waited error
	status map[string]int64
	maxrss int64
	// pprofAddr, when set, serves net/http/pprof: Stop saves a heap
	// profile first (heapProfile).
	pprofAddr   string
	heapProfile string
	// metricsAddr, when set, serves the controller's Prometheus metrics
	// (the scale phase reads its workqueue histogram there).
	metricsAddr string
}

func (p *procContender) Start(_ context.Context, e *env) error {
	args, extra := p.argv(e)
	p.logf = filepath.Join(e.dir, p.name+".log")
	logw, err := os.Create(p.logf)
	if err != nil {
		return err
	}
	p.cmd = exec.Command(args[0], args[1:]...)
	p.cmd.Env = append(e.contenderEnv(), extra...)
	p.cmd.Stdout, p.cmd.Stderr = logw, logw
	if err := startTied(p.cmd); err != nil {
		logw.Close()
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	p.exited = make(chan struct{})
	go func() {
		p.waited = p.cmd.Wait()
		logw.Close()
		close(p.exited)
	}()
	return nil
}

// signal reaches the contender's whole process group (its own, see startTied).
func (p *procContender) signal(sig syscall.Signal) error {
	if p.cmd == nil || p.cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-p.cmd.Process.Pid, sig)
	if errors.Is(err, syscall.ESRCH) {
		return nil // already gone; Stop reports an early exit
	}
	return err
}

func (p *procContender) Pause() error  { return p.signal(syscall.SIGSTOP) }
func (p *procContender) Resume() error { return p.signal(syscall.SIGCONT) }

func (p *procContender) Stop() error {
	if p.cmd == nil {
		return nil
	}
	select {
	case <-p.exited:
		return fmt.Errorf("%s exited by itself: %v\n%s", p.name, p.waited, p.Diag())
	default:
	}
	p.status = procStatus(p.cmd.Process.Pid)
	if p.pprofAddr != "" {
		p.heapProfile = strings.TrimSuffix(p.logf, ".log") + "-heap.pprof"
		if err := fetch("http://"+p.pprofAddr+"/debug/pprof/heap", p.heapProfile); err != nil {
			p.heapProfile = "not saved: " + err.Error()
		}
	}
	_ = p.signal(syscall.SIGCONT) // a paused process cannot act on SIGTERM
	_ = p.signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		_ = p.signal(syscall.SIGKILL)
		<-p.exited
	}
	if ru, ok := p.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		p.maxrss = ru.Maxrss * 1024 // KiB on Linux
	}
	return nil
}

func (p *procContender) PeakRSS() (int64, string) {
	if p.shell {
		if p.maxrss <= 0 {
			return -1, "n/a"
		}
		return p.maxrss, "largest single process of the loop (bash, kubectl or jq), wait4 rusage"
	}
	if p.status["VmHWM"] <= 0 {
		return -1, "n/a"
	}
	return p.status["VmHWM"], "VmHWM of the process"
}

// Breakdown is where the process's memory was when its peak was read.
func (p *procContender) Breakdown() map[string]int64 {
	if p.shell || p.status == nil {
		return nil
	}
	return map[string]int64{"VmRSS": p.status["VmRSS"], "RssAnon": p.status["RssAnon"], "RssFile": p.status["RssFile"]}
}

// Notes says where the heap profile went, if one was taken.
func (p *procContender) Notes() string {
	if p.heapProfile == "" {
		return ""
	}
	return "heap profile at the RSS read: " + p.heapProfile
}

func (p *procContender) Exited() <-chan struct{} { return p.exited }

// freeAddr is a free loopback address (a tiny race with whoever takes the
// port next is acceptable for a diagnostics endpoint).
func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "127.0.0.1:0"
	}
	defer l.Close()
	return l.Addr().String()
}

func fetch(url, path string) error {
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

func (p *procContender) Diag() string {
	if p.logf == "" {
		return ""
	}
	b, _ := os.ReadFile(p.logf)
	return p.name + " log (" + p.logf + "), last lines:\n" + ui.Tail(string(b), 20)
}

// procStatus reads the memory lines of /proc/<pid>/status, in bytes.
func procStatus(pid int) map[string]int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return nil
	}
	defer f.Close()
	out := map[string]int64{}
	s := bufio.NewScanner(f)
	for s.Scan() {
		key, rest, ok := strings.Cut(s.Text(), ":")
		if !ok || !(strings.HasPrefix(key, "Vm") || strings.HasPrefix(key, "Rss")) {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
		if err == nil {
			out[key] = kb * 1024
		}
	}
	return out
}

// rawContender is the floor: a plain client making exactly the requests
// one TeamSpace needs, with no controller, no cache and no watch.
type rawContender struct {
	kube kubernetes.Interface
	dyn  dynamic.Interface
}

func (r *rawContender) Start(_ context.Context, e *env) error {
	rc := *e.contenderRC // unthrottled, like the harness; a connection of its own
	rc.UserAgent = rawManager
	var err error
	if r.kube, err = kubernetes.NewForConfig(&rc); err != nil {
		return err
	}
	r.dyn, err = dynamic.NewForConfig(&rc)
	return err
}

// Create makes the five requests back to back: create the TeamSpace, patch
// the finalizer in, create the owned namespace, apply the quota, patch
// status. Each needs the previous one's answer (uid, generation) or order.
func (r *rawContender) Create(ctx context.Context, _ *env, name string) error {
	ts, err := r.dyn.Resource(teamspace.GVR).Create(ctx, kit.NewTeamSpace(name, benchPods, ""), metav1.CreateOptions{FieldManager: rawManager})
	if err != nil {
		return fmt.Errorf("create teamspace %s: %w", name, err)
	}
	fin, _ := json.Marshal(map[string]any{"metadata": map[string]any{"finalizers": []string{teamspace.Finalizer}}})
	if _, err := r.dyn.Resource(teamspace.GVR).Patch(ctx, name, types.MergePatchType, fin, metav1.PatchOptions{FieldManager: rawManager}); err != nil {
		return fmt.Errorf("patch finalizer of %s: %w", name, err)
	}
	yes := true
	ns := teamspace.NamespaceName(name)
	if _, err := r.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name:   ns,
		Labels: map[string]string{teamspace.OwnerLabel: name},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: teamspace.APIVersion, Kind: teamspace.Kind,
			Name: name, UID: ts.GetUID(), Controller: &yes}},
	}}, metav1.CreateOptions{FieldManager: rawManager}); err != nil {
		return fmt.Errorf("create namespace %s: %w", ns, err)
	}
	if err := r.applyQuota(ctx, name); err != nil {
		return err
	}
	status, _ := json.Marshal(map[string]any{"status": map[string]any{"observedGeneration": ts.GetGeneration(), "namespace": ns}})
	if _, err := r.dyn.Resource(teamspace.GVR).Patch(ctx, name, types.MergePatchType, status, metav1.PatchOptions{FieldManager: rawManager}, "status"); err != nil {
		return fmt.Errorf("patch status of %s: %w", name, err)
	}
	return nil
}

// QuotaChanged re-applies the quota at once: the floor of drift restore is
// the harness's delete (or edit) round trip plus one apply round trip.
func (r *rawContender) QuotaChanged(ctx context.Context, _ *env, name string) error {
	return r.applyQuota(ctx, name)
}

func (r *rawContender) applyQuota(ctx context.Context, name string) error {
	ns := teamspace.NamespaceName(name)
	cfg := applycorev1.ResourceQuota(teamspace.QuotaName, ns).
		WithLabels(map[string]string{teamspace.OwnerLabel: name}).
		WithSpec(applycorev1.ResourceQuotaSpec().WithHard(corev1.ResourceList{
			corev1.ResourcePods:        *resource.NewQuantity(benchPods, resource.DecimalSI),
			corev1.ResourceRequestsCPU: resource.MustParse(teamspace.DefaultCPU),
		}))
	if _, err := r.kube.CoreV1().ResourceQuotas(ns).Apply(ctx, cfg, metav1.ApplyOptions{FieldManager: rawManager, Force: true}); err != nil {
		return fmt.Errorf("apply quota %s/%s: %w", ns, teamspace.QuotaName, err)
	}
	return nil
}

func (r *rawContender) Pause() error             { return nil }
func (r *rawContender) Resume() error            { return nil }
func (r *rawContender) Stop() error              { return nil }
func (r *rawContender) PeakRSS() (int64, string) { return -1, "n/a (no process)" }
func (r *rawContender) Exited() <-chan struct{}  { return nil }
func (r *rawContender) Diag() string             { return "" }

// inprocContender runs internal/controller inside the harness, for
// profiling: the same controller.New + Run as `cnpa controller`, on the same
// client config (kube.Resolve: QPS 100, burst 200) unless -inproc-qps says
// otherwise. Its goroutines carry the pprof label contender=cnpa-inproc, and
// client-go reports every wait on its client-side rate limiters (the
// harness's own clients have none). It has no RSS of its own.
type inprocContender struct {
	passive
	cfg    *config
	qps    float32
	cancel context.CancelFunc
	done   chan struct{}
	runErr error
	logs   *kit.TailBuffer
}

func (c *inprocContender) Start(ctx context.Context, e *env) error {
	t, err := kube.Resolve(e.contenderKubeconfig, "")
	if err != nil {
		return err
	}
	rc := t.Config
	if c.cfg.inprocQPS != 0 {
		rc.QPS, rc.Burst = float32(c.cfg.inprocQPS), c.cfg.inprocBurst
	}
	c.qps = rc.QPS
	limiterWaits.reset()
	c.logs = &kit.TailBuffer{Max: 64 << 10}
	ctrl, err := controller.New(rc, controller.Config{
		ArchiveDir: filepath.Join(e.dir, "archive"), Finalizer: true, Workers: c.cfg.workers,
		Logger: slog.New(slog.NewTextHandler(c.logs, nil)),
	})
	if err != nil {
		return err
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c.cancel, c.done = cancel, make(chan struct{})
	go pprof.Do(runCtx, pprof.Labels("contender", nameInproc), func(ctx context.Context) {
		defer close(c.done)
		c.runErr = ctrl.Run(ctx)
	})
	return nil
}

func (c *inprocContender) Stop() error {
	if c.cancel == nil {
		return nil
	}
	c.cancel()
	<-c.done
	return c.runErr
}

// Notes reports how long the controller's requests waited for the
// client-side rate limiters (the clientset and the dynamic client have one
// each), a limit nobody sees from outside.
func (c *inprocContender) Notes() string {
	if c.qps <= 0 {
		return "client rate limiter off"
	}
	return fmt.Sprintf("client rate limiters at QPS %.0f: %s", c.qps, limiterWaits.String())
}

func (c *inprocContender) Pause() error             { return nil }
func (c *inprocContender) Resume() error            { return nil }
func (c *inprocContender) PeakRSS() (int64, string) { return -1, "n/a (in-process)" }
func (c *inprocContender) Exited() <-chan struct{}  { return c.done }
func (c *inprocContender) Diag() string {
	return "cnpa-inproc log, last lines:\n" + ui.Tail(c.logs.String(), 20)
}

// waits adds up client-go's client-side rate limiter latency, by verb.
type waits struct {
	mu     sync.Mutex
	n      int
	total  time.Duration
	max    time.Duration
	byVerb map[string]time.Duration
}

var limiterWaits = &waits{byVerb: map[string]time.Duration{}}

func init() {
	metrics.Register(metrics.RegisterOpts{RateLimiterLatency: limiterWaits})
}

func (w *waits) Observe(_ context.Context, verb string, _ url.URL, latency time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n++
	w.total += latency
	w.max = max(w.max, latency)
	w.byVerb[verb] += latency
}

func (w *waits) reset() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n, w.total, w.max, w.byVerb = 0, 0, 0, map[string]time.Duration{}
}

func (w *waits) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var parts []string
	for _, v := range sortedKeys(w.byVerb) {
		parts = append(parts, fmt.Sprintf("%s %s", v, w.byVerb[v].Round(time.Millisecond)))
	}
	return fmt.Sprintf("%d requests waited %s in total (longest %s; %s)", w.n, w.total.Round(time.Millisecond),
		w.max.Round(time.Millisecond), strings.Join(parts, ", "))
}

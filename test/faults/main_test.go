// Package faults breaks the TeamSpace controller on purpose and checks that
// it loses nothing and lets no one in: the API server going away, SIGKILL
// around the archive write, a hostile writer, a dead leader, and a
// least-privilege ServiceAccount. The controller always runs as a real
// `cnpa controller` subprocess, so it can be paused, killed and restarted,
// against a real control plane (internal/testcluster).
//
// Tests run one after another and share one cluster (TestAPIServerOutage
// starts its own, since it stops the API server); each uses its own
// TeamSpace names and archive dir, and removes its TeamSpaces before it
// ends, because every running controller reconciles every TeamSpace.
package faults

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/testcluster"
	"github.com/labhub/cnpa/internal/ui"
)

func TestMain(m *testing.M) { testcluster.Main(m) }

// resync is the controller's --interval in every test.
const resync = 3 * time.Second

var (
	buildOnce sync.Once
	cnpaPath  string
	buildErr  error
)

// cnpaBinary builds cmd/cnpa once per test binary, with the faultinject
// tag so that CNPA_FAULT can kill it inside its crash-safety paths
// ($CNPA_BIN overrides; it must be built with that tag too). It goes to one
// fixed path per user and checkout, written through a rename, so repeated
// runs reuse the space and a concurrent run never sees half a binary, nor
// another checkout's.
func cnpaBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		if p := os.Getenv("CNPA_BIN"); p != "" {
			cnpaPath = p
			return
		}
		wd, err := os.Getwd()
		if err != nil {
			buildErr = err
			return
		}
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("cnpa-faults-%d", os.Getuid()), fmt.Sprintf("%x", sha256.Sum256([]byte(wd)))[:12])
		if buildErr = os.MkdirAll(dir, 0o700); buildErr != nil {
			return
		}
		goTool, err := exec.LookPath("go")
		if err != nil {
			goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
		}
		tmp := filepath.Join(dir, fmt.Sprintf("cnpa.tmp-%d", os.Getpid()))
		out, err := exec.Command(goTool, "build", "-tags", "faultinject", "-o", tmp, "github.com/labhub/cnpa/cmd/cnpa").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build cmd/cnpa: %v\n%s", err, out)
			return
		}
		cnpaPath = filepath.Join(dir, "cnpa")
		buildErr = os.Rename(tmp, cnpaPath)
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return cnpaPath
}

// env is one test's view of a cluster: admin clients and helpers.
type env struct {
	t    *testing.T
	c    *testcluster.Cluster
	ctx  context.Context
	rc   *rest.Config
	kube kubernetes.Interface
	dyn  dynamic.Interface
}

var (
	crdMu        sync.Mutex
	crdInstalled = map[*testcluster.Cluster]bool{}
)

// newEnv builds admin clients for c and installs the CRD once per cluster.
// Its context outlives the test's cleanups, which still talk to the cluster.
func newEnv(t *testing.T, c *testcluster.Cluster) *env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	t.Cleanup(cancel)
	rc, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	rc.QPS, rc.Burst = 200, 400
	e := &env{t: t, c: c, ctx: ctx, rc: rc, kube: kubernetes.NewForConfigOrDie(rc), dyn: dynamic.NewForConfigOrDie(rc)}
	crdMu.Lock()
	defer crdMu.Unlock()
	if !crdInstalled[c] {
		e.kubectl(assets.CRD, "apply", "-f", "-")
		e.kubectl(nil, "wait", "--for=condition=Established", "--timeout=60s", "crd/"+teamspace.CRDName)
		crdInstalled[c] = true
	}
	return e
}

func (e *env) kubectl(stdin []byte, args ...string) string {
	e.t.Helper()
	cmd := exec.CommandContext(e.ctx, e.c.Kubectl(), args...)
	cmd.Env = e.c.Env()
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		e.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// create makes a TeamSpace and registers a cleanup that removes it even if
// the test failed half-way (deleted, and our finalizer stripped, so a
// leftover never blocks or kills the next test's controller).
func (e *env) create(name string, pods int64, cpu string) *unstructured.Unstructured {
	e.t.Helper()
	spec := map[string]any{"pods": pods}
	if cpu != "" {
		spec["cpu"] = cpu
	}
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": teamspace.APIVersion, "kind": teamspace.Kind,
		"metadata": map[string]any{"name": name}, "spec": spec}}
	created, err := e.dyn.Resource(teamspace.GVR).Create(e.ctx, u, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatalf("create teamspace %s: %v", name, err)
	}
	e.t.Cleanup(func() { e.forceRemove(name) })
	return created
}

func (e *env) forceRemove(name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := e.dyn.Resource(teamspace.GVR)
	if err := r.Delete(ctx, name, metav1.DeleteOptions{}); apierrors.IsNotFound(err) {
		return
	}
	r.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
}

func (e *env) patchSpec(name string, spec map[string]any) {
	e.t.Helper()
	patch := fmt.Sprintf(`{"spec":%s}`, mustJSON(spec))
	if _, err := e.dyn.Resource(teamspace.GVR).Patch(e.ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		e.t.Fatalf("patch spec of %s: %v", name, err)
	}
}

func (e *env) deleteTS(name string) {
	e.t.Helper()
	if err := e.dyn.Resource(teamspace.GVR).Delete(e.ctx, name, metav1.DeleteOptions{}); err != nil {
		e.t.Fatalf("delete teamspace %s: %v", name, err)
	}
}

func (e *env) teamSpace(name string) (*teamspace.TeamSpace, error) {
	u, err := e.dyn.Resource(teamspace.GVR).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return teamspace.FromUnstructured(u)
}

func (e *env) quota(name string) (*corev1.ResourceQuota, error) {
	return e.kube.CoreV1().ResourceQuotas(teamspace.NamespaceName(name)).Get(e.ctx, teamspace.QuotaName, metav1.GetOptions{})
}

// converged checks everything the controller owes one TeamSpace: our
// finalizer, status for the current generation, the labelled and owned
// namespace, and the quota with spec's values.
func (e *env) converged(name string, pods int64, cpu string) func() error {
	return func() error {
		ts, err := e.teamSpace(name)
		if err != nil {
			return err
		}
		return checkConverged(ts, func(ns string) (*corev1.Namespace, error) {
			return e.kube.CoreV1().Namespaces().Get(e.ctx, ns, metav1.GetOptions{})
		}, func(ns string) (*corev1.ResourceQuota, error) {
			return e.kube.CoreV1().ResourceQuotas(ns).Get(e.ctx, teamspace.QuotaName, metav1.GetOptions{})
		}, pods, cpu)
	}
}

// checkConverged is converged on already-read objects; pods < 0 means
// "whatever the spec says" (the soak does not track each spec).
func checkConverged(ts *teamspace.TeamSpace, getNS func(string) (*corev1.Namespace, error),
	getQuota func(string) (*corev1.ResourceQuota, error), pods int64, cpu string) error {
	if pods < 0 {
		pods, cpu = ts.Spec.Pods, ts.CPU()
	}
	if ts.Spec.Pods != pods || ts.CPU() != cpu {
		return fmt.Errorf("teamspace %s spec: got pods=%d cpu=%s, want pods=%d cpu=%s", ts.Name, ts.Spec.Pods, ts.CPU(), pods, cpu)
	}
	if !teamspace.HasFinalizer(ts.Finalizers, teamspace.Finalizer) {
		return fmt.Errorf("teamspace %s finalizers: got %v, want %s among them", ts.Name, ts.Finalizers, teamspace.Finalizer)
	}
	nsName := teamspace.NamespaceName(ts.Name)
	if ts.Status.ObservedGeneration != ts.Generation || ts.Status.Namespace != nsName {
		return fmt.Errorf("teamspace %s status: got observedGeneration=%d namespace=%q, want %d %q",
			ts.Name, ts.Status.ObservedGeneration, ts.Status.Namespace, ts.Generation, nsName)
	}
	ns, err := getNS(nsName)
	if err != nil {
		return fmt.Errorf("namespace %s: %w", nsName, err)
	}
	if ns.Labels[teamspace.OwnerLabel] != ts.Name || !teamspace.OwnedBy(ns.OwnerReferences, ts.UID) {
		return fmt.Errorf("namespace %s: got labels %v owners %v, want label %s=%s and owner uid %s",
			nsName, ns.Labels, ns.OwnerReferences, teamspace.OwnerLabel, ts.Name, ts.UID)
	}
	q, err := getQuota(nsName)
	if err != nil {
		return fmt.Errorf("quota %s/%s: %w", nsName, teamspace.QuotaName, err)
	}
	wantPods, wantCPU := *resource.NewQuantity(pods, resource.DecimalSI), resource.MustParse(cpu)
	gotPods, gotCPU := q.Spec.Hard[corev1.ResourcePods], q.Spec.Hard[corev1.ResourceRequestsCPU]
	if gotPods.Cmp(wantPods) != 0 || gotCPU.Cmp(wantCPU) != 0 {
		return fmt.Errorf("quota %s/%s hard: got pods=%s cpu=%s, want pods=%d cpu=%s",
			nsName, teamspace.QuotaName, gotPods.String(), gotCPU.String(), pods, cpu)
	}
	return nil
}

// gone checks that a TeamSpace no longer exists.
func (e *env) gone(name string) func() error {
	return func() error {
		ts, err := e.teamSpace(name)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("teamspace %s still there: deletionTimestamp=%v finalizers=%v", name, ts.DeletionTimestamp, ts.Finalizers)
	}
}

// waitFor polls check until it passes and returns how long that took; on
// the deadline it fails with the last observed state.
func (e *env) waitFor(what string, timeout time.Duration, check func() error) time.Duration {
	e.t.Helper()
	start := time.Now()
	var last error
	for {
		if last = check(); last == nil {
			if d := time.Since(start); d > 10*time.Second {
				e.t.Logf("slow: %s took %s", what, d.Round(time.Millisecond))
			}
			return time.Since(start)
		}
		if time.Since(start) > timeout {
			e.t.Fatalf("%s: not within %s; last observed: %v", what, timeout, last)
		}
		select {
		case <-e.ctx.Done():
			e.t.Fatalf("%s: %v; last observed: %v", what, e.ctx.Err(), last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// waitAll polls several checks together until each has passed once and
// returns, for each, how long after ref it first passed; on the deadline it
// fails with the last observed state of those still pending.
func (e *env) waitAll(ref time.Time, timeout time.Duration, checks map[string]func() error) map[string]time.Duration {
	e.t.Helper()
	took := map[string]time.Duration{}
	last := map[string]error{}
	deadline := time.Now().Add(timeout)
	for {
		for what, check := range checks {
			if _, ok := took[what]; ok {
				continue
			}
			if last[what] = check(); last[what] == nil {
				took[what] = time.Since(ref)
			}
		}
		if len(took) == len(checks) {
			return took
		}
		if time.Now().After(deadline) {
			for what := range checks {
				if _, ok := took[what]; !ok {
					e.t.Errorf("%s: not within %s; last observed: %v", what, timeout, last[what])
				}
			}
			e.t.FailNow()
		}
		select {
		case <-e.ctx.Done():
			e.t.Fatalf("waiting: %v", e.ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// removeAll deletes TeamSpaces through the running controller (archive,
// finalizer) and waits until they are gone.
func (e *env) removeAll(names ...string) {
	e.t.Helper()
	for _, n := range names {
		e.deleteTS(n)
	}
	for _, n := range names {
		e.waitFor("teamspace "+n+" finalized and gone", 2*time.Minute, e.gone(n))
	}
}

// ctrlOpts say how to run one `cnpa controller`.
type ctrlOpts struct {
	kubeconfig string   // default: the cluster's admin kubeconfig
	archiveDir string   // required
	args       []string // extra controller flags
	env        []string // extra environment, e.g. CNPA_FAULT=…
	noWait     bool     // do not wait for /readyz (a standby never gets ready)
}

// ctrl is one `cnpa controller` process.
type ctrl struct {
	t       *testing.T
	name    string
	cmd     *exec.Cmd
	done    chan struct{}
	logPath string
	metrics string // host:port of /metrics
	health  string // host:port of /healthz and /readyz
}

var ctrlSeq sync.Map // test name → number of controllers started, for log names

// startController starts `cnpa --kubeconfig K controller …` with its
// metrics and health endpoints on free ports, its stderr in a log file, and
// (unless noWait) waits for /readyz. A cleanup stops it, and logs its tail
// when the test failed.
func (e *env) startController(name string, o ctrlOpts) *ctrl {
	e.t.Helper()
	if o.kubeconfig == "" {
		o.kubeconfig = e.c.Kubeconfig
	}
	ports := freePorts(e.t, 2)
	p := &ctrl{t: e.t, name: name, done: make(chan struct{}),
		metrics: "127.0.0.1:" + strconv.Itoa(ports[0]), health: "127.0.0.1:" + strconv.Itoa(ports[1])}
	n, _ := ctrlSeq.LoadOrStore(e.t.Name(), new(int))
	*n.(*int)++
	p.logPath = filepath.Join(e.t.TempDir(), fmt.Sprintf("%s-%d.log", name, *n.(*int)))
	logf, err := os.Create(p.logPath)
	if err != nil {
		e.t.Fatal(err)
	}
	args := append([]string{"--kubeconfig", o.kubeconfig, "controller",
		"--archive-dir", o.archiveDir, "--finalizer=true", "--interval", resync.String(),
		"--metrics-addr", p.metrics, "--health-addr", p.health}, o.args...)
	p.cmd = exec.Command(cnpaBinary(e.t), args...)
	var environ []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KUBECONFIG=") && !strings.HasPrefix(kv, "CNPA_") {
			environ = append(environ, kv)
		}
	}
	p.cmd.Env = append(environ, o.env...)
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	// The controller dies with the test binary, whatever happens to it.
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		logf.Close()
		e.t.Fatalf("start controller %s: %v", name, err)
	}
	go func() { p.cmd.Wait(); logf.Close(); close(p.done) }()
	e.t.Cleanup(func() {
		p.cmd.Process.Signal(syscall.SIGCONT) // in case the test failed while it was paused
		p.stop()
		switch {
		case os.Getenv("CNPA_FAULTS_LOGS") != "":
			e.t.Logf("controller %s log:\n%s", p.name, p.log())
		case e.t.Failed():
			e.t.Logf("controller %s log (tail):\n%s", p.name, ui.Tail(p.log(), 40))
		}
	})
	if !o.noWait {
		p.waitReady()
	}
	return p
}

func (p *ctrl) waitReady() {
	p.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if !p.alive() {
			p.t.Fatalf("controller %s exited before it was ready: %v\n%s", p.name, p.cmd.ProcessState, ui.Tail(p.log(), 30))
		}
		if code, _ := httpGet("http://" + p.health + "/readyz"); code == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("controller %s not ready within 2m\n%s", p.name, ui.Tail(p.log(), 30))
		}
		select {
		case <-p.done:
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func (p *ctrl) pid() int { return p.cmd.Process.Pid }

func (p *ctrl) alive() bool {
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// waitExit waits up to d for the process to end and returns its state, or
// nil if it is still running.
func (p *ctrl) waitExit(d time.Duration) *os.ProcessState {
	select {
	case <-p.done:
		return p.cmd.ProcessState
	case <-time.After(d):
		return nil
	}
}

// stop sends SIGTERM and waits (SIGKILL after 20 s).
func (p *ctrl) stop() {
	if !p.alive() {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	if p.waitExit(20*time.Second) == nil {
		p.cmd.Process.Kill()
		<-p.done
	}
}

// kill sends SIGKILL and waits for the process to be gone.
func (p *ctrl) kill() {
	p.cmd.Process.Kill()
	<-p.done
}

func (p *ctrl) signal(s syscall.Signal) {
	p.t.Helper()
	if err := p.cmd.Process.Signal(s); err != nil {
		p.t.Fatalf("signal %v to controller %s: %v", s, p.name, err)
	}
}

func (p *ctrl) log() string {
	b, _ := os.ReadFile(p.logPath)
	return string(b)
}

// identity is the leader-election identity RunLeaderElected picks.
func (p *ctrl) identity() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s_%d", host, p.pid())
}

// metric sums every series of one metric on the controller's /metrics
// (0 when the metric has no series yet).
func (p *ctrl) metric(name string) (float64, error) {
	code, body := httpGet("http://" + p.metrics + "/metrics")
	if code != http.StatusOK {
		return 0, fmt.Errorf("GET %s/metrics: %d %s", p.metrics, code, body)
	}
	return sumMetric(body, name), nil
}

func (p *ctrl) mustMetric(name string) float64 {
	p.t.Helper()
	v, err := p.metric(name)
	if err != nil {
		p.t.Fatal(err)
	}
	return v
}

func sumMetric(body, name string) float64 {
	var sum float64
	sc := bufio.NewScanner(strings.NewReader(body))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
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

// logErrors counts the error lines in a controller log: slog's
// level=ERROR (the controller's own) and klog's E-lines (client-go:
// reflectors, event broadcaster, leader election).
func logErrors(log string) (slogErrors, klogErrors, lines int) {
	for _, l := range strings.Split(strings.TrimRight(log, "\n"), "\n") {
		if l == "" {
			continue
		}
		lines++
		switch {
		case strings.Contains(l, "level=ERROR"):
			slogErrors++
		case len(l) > 5 && l[0] == 'E' && l[1] >= '0' && l[1] <= '9':
			klogErrors++
		}
	}
	return
}

func httpGet(url string) (int, string) {
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

func freePorts(t testing.TB, n int) []int {
	t.Helper()
	ports, err := testcluster.FreePorts(n)
	if err != nil {
		t.Fatal(err)
	}
	return ports
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// killedBySIGKILL tells whether a process state is death by SIGKILL.
func killedBySIGKILL(st *os.ProcessState) bool {
	ws, ok := st.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

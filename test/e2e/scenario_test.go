package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// env is the suite's view of the shared cluster: kit's admin clients, and
// what the shell engines need.
type env struct {
	*kit.Env
	// wrapperDir holds a kubectl that logs its arguments and runs the
	// kubebox one; it comes first on the script's PATH.
	wrapperDir string
	script     string
	kubeCache  string
	timings    *timings
}

// newEnv prepares the shared cluster for the scenarios. Phases: admin
// clients and the CRD (kit.New); the script to test; the logging kubectl
// wrapper; a garbage collector that already knows TeamSpaces.
func newEnv(t *testing.T) *env {
	t.Helper()
	c := cluster.Shared(t)
	// CNPA_E2E_SCRIPT runs another script (a mutant, to see the suite catch it).
	script := os.Getenv("CNPA_E2E_SCRIPT")
	if script == "" {
		var err error
		if script, err = filepath.Abs(filepath.Join("..", "..", "assets", "reconcile.sh")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("reconcile.sh: %v", err)
	}
	e := &env{Env: kit.New(t, c), script: script, kubeCache: t.TempDir(), timings: &timings{}, wrapperDir: t.TempDir()}
	wrapper := "#!/bin/sh\n" +
		"# Test instrumentation: log the call, then run the real kubectl.\n" +
		"printf '%s\\n' \"$*\" >>\"$CNPA_E2E_KUBECTL_LOG\"\n" +
		"exec " + c.Kubectl() + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(e.wrapperDir, "kubectl"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	e.WarmUpGarbageCollector("e2e-gc-probe")
	return e
}

// shellEnv is the environment of reconcile.sh: the cluster's, with the
// logging kubectl first on PATH and a private kubectl cache.
func (e *env) shellEnv() []string {
	var out []string
	for _, kv := range e.Cluster.Env() {
		if path, ok := strings.CutPrefix(kv, "PATH="); ok {
			kv = "PATH=" + e.wrapperDir + string(os.PathListSeparator) + path
		}
		out = append(out, kv)
	}
	return append(out, "KUBECACHEDIR="+e.kubeCache)
}

// scn is one scenario run on one engine.
type scn struct {
	// Env is kit's, bound to the scenario's test and reporting the
	// engine's last words on a failed wait.
	*kit.Env
	t               *testing.T
	env             *env
	ek              engineKind
	sc              scenario
	eng             engine
	archiveDir      string
	extraNamespaces []string
	// lastFailures is what the last once-engine pass reported as failed.
	lastFailures []string
}

func (e *env) newScenario(t *testing.T, ek engineKind, sc scenario) *scn {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "archive")
	if sc.archiveDir != nil {
		dir = sc.archiveDir(tmp)
	}
	s := &scn{Env: e.For(t), t: t, env: e, ek: ek, sc: sc, archiveDir: dir,
		eng: ek.new(e, engineConfig{archiveDir: dir, finalizer: sc.finalizer, kubectlLog: filepath.Join(tmp, "kubectl.log")})}
	s.Diag = func() string { return "engine: " + s.eng.diag() }
	// Registered after For's removal of the TeamSpaces, so it runs before:
	// the engine stops first and acts on none of the removals.
	t.Cleanup(s.cleanup)
	s.eng.start(t)
	return s
}

// cleanup stops the engine and removes the namespaces the scenario made
// (kit removes its TeamSpaces next).
func (s *scn) cleanup() {
	s.eng.stop(s.t)
	for _, ns := range s.extraNamespaces {
		s.Kube.CoreV1().Namespaces().Delete(s.Ctx, ns, metav1.DeleteOptions{}) // NotFound: already gone
	}
}

// name is a TeamSpace name unique to this engine and scenario.
func (s *scn) name(suffix string) string {
	return s.ek.short + "-" + s.sc.short + "-" + suffix
}

// resourceVersions of the TeamSpace, its namespace and its quota.
func (s *scn) resourceVersions(name string) [3]string {
	ns := teamspace.NamespaceName(name)
	return [3]string{s.TeamSpace(name).ResourceVersion, s.Namespace(ns).ResourceVersion, s.Quota(ns).ResourceVersion}
}

// pass runs one pass on a once engine.
func (s *scn) pass() []string { return s.eng.pass(s.t) }

// idle lets the engine make two more passes.
func (s *scn) idle() { s.eng.idle(s.t) }

// converge: a once engine runs one pass and check must hold right after
// it; a running engine must make check hold by itself within a deadline.
func (s *scn) converge(what string, check func() error) {
	s.t.Helper()
	if !s.eng.continuous() {
		s.lastFailures = s.pass()
		if err := check(); err != nil {
			s.t.Fatalf("%s after one pass: %v\nengine: %s", what, err, s.eng.diag())
		}
		return
	}
	timeout := 30 * time.Second
	if strings.HasPrefix(s.ek.name, "shell") {
		timeout = 90 * time.Second
	}
	s.WaitFor(what, timeout, check)
}

// expectFailed checks, for a once engine, that the last pass reported bad
// as failed and ok as not failed.
func (s *scn) expectFailed(bad, ok string) {
	s.t.Helper()
	if s.eng.continuous() {
		return
	}
	if !slices.Contains(s.lastFailures, bad) {
		s.t.Errorf("failures of the pass: got %v, want %s among them", s.lastFailures, bad)
	}
	if slices.Contains(s.lastFailures, ok) {
		s.t.Errorf("failures of the pass: got %v, want %s not among them", s.lastFailures, ok)
	}
}

// expectNothingFor checks that an invalid TeamSpace got no namespace and no status.
func (s *scn) expectNothingFor(name string) {
	s.t.Helper()
	if ns := s.Namespace(teamspace.NamespaceName(name)); ns != nil {
		s.t.Errorf("namespace %s: got one, want none", ns.Name)
	}
	live := s.TeamSpace(name)
	if live.Status.Namespace != "" || live.Status.ObservedGeneration != 0 {
		s.t.Errorf("status: got %+v, want empty", live.Status)
	}
}

// createConverged creates a TeamSpace and has the engine converge it.
func (s *scn) createConverged(name string, pods int64, cpu string, finalizers ...string) *unstructured.Unstructured {
	s.t.Helper()
	ts := s.Create(name, pods, cpu, finalizers...)
	s.converge("created", s.converged(name, pods, cpu))
	return ts
}

// converged checks everything a converged TeamSpace has (kit's converged,
// on top of teamspace.FindGaps): spec as the scenario set it, namespace with
// label and controller ownerReference, quota with the wanted values and
// label, status at the current generation, and the finalizer present or
// absent as the scenario configures the engine.
func (s *scn) converged(name string, pods int64, cpu string) func() error {
	return s.Converged(name, pods, cpu, s.sc.finalizer)
}

// warned checks that a Warning event with reason exists in namespace
// default for the TeamSpace uid, with every one of words in its message.
func (s *scn) warned(uid types.UID, reason string, words ...string) func() error {
	return func() error {
		list, err := s.Kube.CoreV1().Events(metav1.NamespaceDefault).List(s.Ctx, metav1.ListOptions{
			FieldSelector: fields.Set{"involvedObject.uid": string(uid), "reason": reason}.String()})
		if err != nil {
			return err
		}
		var seen []string
		for _, e := range list.Items {
			if e.Type != corev1.EventTypeWarning {
				seen = append(seen, e.Type+": "+e.Message)
				continue
			}
			if containsAll(e.Message, words) {
				if e.InvolvedObject.Kind != teamspace.Kind {
					return fmt.Errorf("event involvedObject.kind: got %v, want %v", e.InvolvedObject.Kind, teamspace.Kind)
				}
				return nil
			}
			seen = append(seen, e.Message)
		}
		return fmt.Errorf("Warning %s event naming %q: got %q, want one", reason, words, seen)
	}
}

func containsAll(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

func controllerOwnerUID(refs []metav1.OwnerReference) types.UID {
	for _, r := range refs {
		if r.Controller != nil && *r.Controller {
			return r.UID
		}
	}
	return ""
}

func quantitiesEqual(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, va := range a {
		vb, ok := b[k]
		if !ok || va.Cmp(vb) != 0 {
			return false
		}
	}
	return true
}

// timings collects the quota delete→restore times per engine.
type timings struct {
	mu sync.Mutex
	ms map[string][]int64
}

func (t *timings) add(engine string, d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ms == nil {
		t.ms = map[string][]int64{}
	}
	t.ms[engine] = append(t.ms[engine], d.Milliseconds())
}

func (t *timings) report(tb testing.TB) {
	t.mu.Lock()
	defer t.mu.Unlock()
	names := make([]string, 0, len(t.ms))
	for n := range t.ms {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		tb.Logf("quota delete → restore: %-10s %v ms", n, t.ms[n])
	}
}

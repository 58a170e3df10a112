// Package kit is the vocabulary the tests under test/ share: admin clients
// for a cluster from its kubeconfig, TeamSpaces with cleanups, waits with a
// deadline that report the last observed state, the tests' "converged" (on
// top of teamspace.FindGaps), "gone", and the `cnpa controller` under test,
// alone or as two leader-elected replicas.
//
// It is a plain package, not a _test one, so that every test package (and
// the bench harness) imports the same words instead of its own copy.
package kit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// Env is one test's admin view of a cluster. Its methods fail the test
// through T; the ones named Get… return errors instead, for goroutines that
// must not call T.Fatal.
type Env struct {
	T       testing.TB
	Ctx     context.Context
	Cluster *cluster.Cluster
	Rest    *rest.Config
	Kube    kubernetes.Interface
	Dyn     dynamic.Interface
	// Diag, when set, is added to every failed wait: what the engine under
	// test said last.
	Diag func() string

	kubeCache string
	mu        sync.Mutex
	created   []string
}

// crdMu keeps two tests from installing the CRD at once.
var crdMu sync.Mutex

// New is Connect, with the CRD installed when the cluster has none. It
// asks the cluster rather than remembering: a test that ends with `cnpa
// reset --yes` removes the CRD, and the next test of the package on the
// shared cluster still needs it.
func New(t testing.TB, c *cluster.Cluster) *Env {
	t.Helper()
	e := Connect(t, c)
	crdMu.Lock()
	defer crdMu.Unlock()
	crds := e.Dyn.Resource(teamspace.CRDGVR)
	crd, err := crds.Get(e.Ctx, teamspace.CRDName, metav1.GetOptions{})
	if err == nil && crd.GetDeletionTimestamp() != nil {
		// Being removed: a new one can only be made once it is gone.
		e.WaitFor("the TeamSpace CRD being deleted is gone", 2*time.Minute, func() error {
			_, err = crds.Get(e.Ctx, teamspace.CRDName, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("still there (get: %v)", err)
		})
	}
	switch {
	case apierrors.IsNotFound(err):
		if err := InstallCRD(e.Ctx, c, e.kubeCache); err != nil {
			t.Fatal(err)
		}
	case err != nil:
		t.Fatalf("is the TeamSpace CRD installed? %v", err)
	}
	return e
}

// Connect builds admin clients for c from its kubeconfig, for tests that
// install the CRD themselves (or remove it). Its context outlives the
// test's cleanups, which still talk to the cluster.
func Connect(t testing.TB, c *cluster.Cluster) *Env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	t.Cleanup(cancel)
	rc, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	// The tests' own requests must never wait on a client-side limiter.
	rc.QPS, rc.Burst = 200, 400
	e := &Env{T: t, Ctx: ctx, Cluster: c, Rest: rc, kubeCache: t.TempDir()}
	if e.Kube, err = kubernetes.NewForConfig(rc); err != nil {
		t.Fatal(err)
	}
	if e.Dyn, err = dynamic.NewForConfig(rc); err != nil {
		t.Fatal(err)
	}
	e.removeCreatedOnCleanup()
	return e
}

// For is e bound to another test (a subtest): its failures, its cleanups,
// its own list of TeamSpaces to remove.
func (e *Env) For(t testing.TB) *Env {
	n := &Env{T: t, Ctx: e.Ctx, Cluster: e.Cluster, Rest: e.Rest, Kube: e.Kube, Dyn: e.Dyn, Diag: e.Diag, kubeCache: e.kubeCache}
	n.removeCreatedOnCleanup()
	return n
}

// removeCreatedOnCleanup registers, first of all the test's cleanups and
// so run last, the removal of every TeamSpace Create made: controllers the
// test started are stopped by then, so none of them acts on the removal.
func (e *Env) removeCreatedOnCleanup() {
	e.T.Cleanup(func() {
		e.mu.Lock()
		names := e.created
		e.mu.Unlock()
		for _, n := range names {
			e.ForceRemove(n)
		}
	})
}

// Kubectl runs the kubebox kubectl against the cluster as the admin and
// returns its output.
func (e *Env) Kubectl(stdin []byte, args ...string) string {
	e.T.Helper()
	out, err := Kubectl(e.Ctx, e.Cluster, e.kubeCache, stdin, args...)
	if err != nil {
		e.T.Fatal(err)
	}
	return out
}

// Kubectl runs the kubebox kubectl against c as the admin, with cacheDir as
// its discovery cache (empty: kubectl's default).
func Kubectl(ctx context.Context, c *cluster.Cluster, cacheDir string, stdin []byte, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, c.Kubectl(), args...)
	cmd.Env = c.Env()
	if cacheDir != "" {
		cmd.Env = append(cmd.Env, "KUBECACHEDIR="+cacheDir)
	}
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("kubectl %s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

// InstallCRD applies the shipped assets/crd.yaml with the kubebox kubectl
// and waits until it is Established.
//
// It is LAB.md's schema (LabSchemaCRD), not the stricter one cnpa ships:
// the engines must stay sound on the CRD a learner writes from LAB.md,
// which lets through names and cpu values no controller can serve.
// test/crd proves the shipped CRD refuses them.
func InstallCRD(ctx context.Context, c *cluster.Cluster, cacheDir string) error {
	crd, err := LabSchemaCRD()
	if err != nil {
		return err
	}
	if _, err := Kubectl(ctx, c, cacheDir, crd, "apply", "-f", "-"); err != nil {
		return err
	}
	_, err = Kubectl(ctx, c, cacheDir, nil, "wait", "--for=condition=Established", "--timeout=60s", "crd/"+teamspace.CRDName)
	return err
}

// WarmUpGarbageCollector waits until the garbage collector acts on
// TeamSpace owners. It notices a new CRD only at its next discovery resync
// (every 30 s), so right after the CRD is created an orphaned namespace can
// wait ~45 s; on the lab's VM the CRD is old by then. A ConfigMap owned by a
// deleted probe TeamSpace going away proves the collector is ready.
func (e *Env) WarmUpGarbageCollector(probe string) {
	e.T.Helper()
	ts, err := e.Dyn.Resource(teamspace.GVR).Create(e.Ctx, NewTeamSpace(probe, 1, ""), metav1.CreateOptions{})
	if err != nil {
		e.T.Fatalf("create probe teamspace: %v", err)
	}
	_, err = e.Kube.CoreV1().ConfigMaps(metav1.NamespaceDefault).Create(e.Ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: probe, OwnerReferences: []metav1.OwnerReference{{APIVersion: teamspace.APIVersion, Kind: teamspace.Kind, Name: probe, UID: ts.GetUID()}},
	}}, metav1.CreateOptions{})
	if err != nil {
		e.T.Fatalf("create probe configmap: %v", err)
	}
	if err := e.Dyn.Resource(teamspace.GVR).Delete(e.Ctx, probe, metav1.DeleteOptions{}); err != nil {
		e.T.Fatalf("delete probe teamspace: %v", err)
	}
	took := e.WaitFor("garbage collector removes a ConfigMap owned by a deleted TeamSpace", 2*time.Minute, func() error {
		cm, err := e.Kube.CoreV1().ConfigMaps(metav1.NamespaceDefault).Get(e.Ctx, probe, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("configmap %s still there (deletionTimestamp %v)", probe, cm.DeletionTimestamp)
	})
	e.T.Logf("garbage collector acts on TeamSpace owners after %s", took.Round(time.Millisecond))
}

// LabSchemaCRD is assets/crd.yaml without what cnpa adds beyond LAB.md
// step 1's schema: the rule on metadata.name and spec.cpu's pattern and
// maxLength.
func LabSchemaCRD() ([]byte, error) {
	var crd map[string]any
	if err := yaml.Unmarshal(assets.CRD, &crd); err != nil {
		return nil, fmt.Errorf("parse assets/crd.yaml: %w", err)
	}
	var strip func(v any)
	strip = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			delete(x, "x-kubernetes-validations")
			delete(x, "pattern")
			delete(x, "maxLength")
			for _, sub := range x {
				strip(sub)
			}
		case []any:
			for _, sub := range x {
				strip(sub)
			}
		}
	}
	strip(crd)
	return json.Marshal(crd)
}

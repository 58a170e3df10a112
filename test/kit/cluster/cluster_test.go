package cluster_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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
	"k8s.io/client-go/tools/clientcmd"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/test/kit/cluster"
)

func TestMain(m *testing.M) { cluster.Main(m) }

// TestControlPlaneIsReal proves the behaviours the lab relies on come from
// real components: the status subresource, garbage collection through an
// ownerReference to a cluster-scoped custom object, and the quota controller.
func TestControlPlaneIsReal(t *testing.T) {
	c := cluster.Shared(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rc, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	kube := kubernetes.NewForConfigOrDie(rc)
	dyn := dynamic.NewForConfigOrDie(rc)

	// kubectl is the kubebox one, v1.37.2, and applies the shipped CRD.
	crd := filepath.Join(t.TempDir(), "crd.yaml")
	os.WriteFile(crd, assets.CRD, 0o600)
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.CommandContext(ctx, c.Kubectl(), args...)
		cmd.Env = c.Env()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	if v := run("version", "--client", "-o", "json"); !strings.Contains(v, `"gitVersion": "v1.37.2"`) {
		t.Fatalf("kubectl on PATH is not kubebox v1.37.2:\n%s", v)
	}
	run("apply", "-f", crd)
	run("wait", "--for=condition=Established", "crd/"+teamspace.CRDName, "--timeout=60s")

	t.Run("status sent to the main endpoint is dropped", func(t *testing.T) {
		ts := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": teamspace.APIVersion, "kind": teamspace.Kind,
			"metadata": map[string]any{"name": "real-status"}, "spec": map[string]any{"pods": int64(4)}}}
		created, err := dyn.Resource(teamspace.GVR).Create(ctx, ts, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := created.GetGeneration(); got != 1 {
			t.Fatalf("generation after create: got %d, want 1", got)
		}
		if cpu, _, _ := unstructured.NestedString(created.Object, "spec", "cpu"); cpu != "1" {
			t.Fatalf("defaulted spec.cpu: got %q, want \"1\"", cpu)
		}
		patched, err := dyn.Resource(teamspace.GVR).Patch(ctx, "real-status", types.MergePatchType,
			[]byte(`{"status":{"observedGeneration":7}}`), metav1.PatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, found := patched.Object["status"]; found {
			t.Fatalf("status after a main-endpoint patch: got %v, want absent", patched.Object["status"])
		}
		if patched.GetResourceVersion() != created.GetResourceVersion() {
			t.Fatalf("resourceVersion moved on a dropped status patch: %s → %s", created.GetResourceVersion(), patched.GetResourceVersion())
		}
	})

	t.Run("namespace owned by a custom object is garbage-collected", func(t *testing.T) {
		owner, err := dyn.Resource(teamspace.GVR).Create(ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": teamspace.APIVersion, "kind": teamspace.Kind,
			"metadata": map[string]any{"name": "real-gc"}, "spec": map[string]any{"pods": int64(2)}}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		yes := true
		_, err = kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name: "team-real-gc",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: teamspace.APIVersion, Kind: teamspace.Kind,
				Name: "real-gc", UID: owner.GetUID(), Controller: &yes}},
		}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if err := dyn.Resource(teamspace.GVR).Delete(ctx, "real-gc", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		var last string
		for deadline := time.Now().Add(90 * time.Second); time.Now().Before(deadline); time.Sleep(250 * time.Millisecond) {
			ns, err := kube.CoreV1().Namespaces().Get(ctx, "team-real-gc", metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return
			}
			if err == nil {
				last = string(ns.Status.Phase)
			}
		}
		t.Fatalf("team-real-gc still there 90s after its owner went (last phase %q)", last)
	})

	t.Run("the quota controller fills status.hard", func(t *testing.T) {
		if _, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "real-quota"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q"}, Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{
			corev1.ResourcePods: resource.MustParse("3"), corev1.ResourceRequestsCPU: resource.MustParse("500m")}}}
		if _, err := kube.CoreV1().ResourceQuotas("real-quota").Create(ctx, q, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		var last corev1.ResourceList
		for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			got, err := kube.CoreV1().ResourceQuotas("real-quota").Get(ctx, "q", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			last = got.Status.Hard
			pods := got.Status.Hard[corev1.ResourcePods]
			if pods.String() == "3" {
				used := got.Status.Used[corev1.ResourcePods]
				if used.String() != "0" {
					t.Fatalf("status.used.pods: got %s, want 0", used.String())
				}
				return
			}
		}
		b, _ := json.Marshal(last)
		t.Fatalf("status.hard not filled within 60s (last %s)", b)
	})
}

// TestKubectlBeside: the tests' kubectl is kubebox-kubectl when it sits
// beside kubebox, else kubebox itself (kubectl by name).
func TestKubectlBeside(t *testing.T) {
	dir := t.TempDir()
	kb := filepath.Join(dir, "kubebox")
	if err := os.WriteFile(kb, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := cluster.KubectlBeside(kb); got != kb {
		t.Errorf("without kubebox-kubectl: got %s, want %s", got, kb)
	}
	if err := os.Mkdir(filepath.Join(dir, "kubebox-kubectl"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := cluster.KubectlBeside(kb); got != kb {
		t.Errorf("with a directory named kubebox-kubectl: got %s, want %s", got, kb)
	}
	os.Remove(filepath.Join(dir, "kubebox-kubectl"))
	want := filepath.Join(dir, "kubebox-kubectl")
	if err := os.WriteFile(want, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := cluster.KubectlBeside(kb); got != want {
		t.Errorf("with kubebox-kubectl: got %s, want %s", got, want)
	}
}

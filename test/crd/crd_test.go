// Package crd proves on a real kube-apiserver that the CRD cnpa installs
// refuses what no controller can serve: a name whose team-<name> is no
// namespace name, and a spec.cpu outside the grammar both engines serve
// (assets/testdata/cpu.json, the table the engines are held to).
package crd

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/yaml"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/internal/poll"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/test/kit/cluster"
)

func TestMain(m *testing.M) { cluster.Main(m) }

// install applies assets/crd.yaml as it ships and waits until TeamSpaces
// can be created.
func install(ctx context.Context, t *testing.T) dynamic.Interface {
	t.Helper()
	rc, err := clientcmd.BuildConfigFromFlags("", cluster.Shared(t).Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(rc)
	var obj map[string]any
	if err := yaml.Unmarshal(assets.CRD, &obj); err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(obj)
	force := true
	if _, err := dyn.Resource(teamspace.CRDGVR).Patch(ctx, teamspace.CRDName, types.ApplyPatchType, data,
		metav1.PatchOptions{FieldManager: "crd-test", Force: &force}); err != nil {
		t.Fatalf("apply assets/crd.yaml: %v", err)
	}
	if _, err := poll.Until(ctx, 100*time.Millisecond, time.Minute, func(ctx context.Context) (bool, string, error) {
		_, err := dyn.Resource(teamspace.GVR).List(ctx, metav1.ListOptions{})
		return err == nil, "list teamspaces: " + errString(err), nil
	}); err != nil {
		t.Fatal(err)
	}
	return dyn
}

func errString(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

func create(ctx context.Context, dyn dynamic.Interface, name string, spec map[string]any) error {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": teamspace.APIVersion, "kind": teamspace.Kind,
		"metadata": map[string]any{"name": name}, "spec": spec,
	}}
	_, err := dyn.Resource(teamspace.GVR).Create(ctx, u, metav1.CreateOptions{})
	if err == nil {
		_ = dyn.Resource(teamspace.GVR).Delete(ctx, name, metav1.DeleteOptions{})
	}
	return err
}

// TestCRDRefusesWhatNoControllerServes: every spec.cpu of the shared table
// is accepted or refused by the API server exactly as the engines serve or
// refuse it, and names that make no namespace are refused with a message
// that says why.
func TestCRDRefusesWhatNoControllerServes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	dyn := install(ctx, t)

	data, err := os.ReadFile("../../assets/testdata/cpu.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		CPU   string `json:"cpu"`
		Valid bool   `json:"valid"`
	}
	if err := json.Unmarshal(data, &cases); err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		name := "cpu-" + strings.Repeat("x", i%3) + string(rune('a'+i))
		err := create(ctx, dyn, name, map[string]any{"pods": int64(1), "cpu": c.CPU})
		switch {
		case c.Valid && err != nil:
			t.Errorf("spec.cpu %q: refused (%v), want accepted: both engines serve it", c.CPU, err)
		case !c.Valid && !apierrors.IsInvalid(err):
			t.Errorf("spec.cpu %q: got %v, want Invalid: neither engine serves it", c.CPU, err)
		}
	}

	names := []struct {
		name  string
		valid bool
	}{
		{strings.Repeat("a", 58), true},
		{"team-ok-1", true},
		{strings.Repeat("a", 59), false},  // team-<59> is 64 characters
		{strings.Repeat("b", 245), false}, // once made undeletable by its archive file name
		{"dot.b", false},                  // a valid object name, no valid namespace name
	}
	for _, n := range names {
		err := create(ctx, dyn, n.name, map[string]any{"pods": int64(1)})
		switch {
		case n.valid && err != nil:
			t.Errorf("name %q: refused (%v), want accepted", n.name, err)
		case !n.valid && !apierrors.IsInvalid(err):
			t.Errorf("name %q (%d chars): got %v, want Invalid", n.name, len(n.name), err)
		case !n.valid && !strings.Contains(err.Error(), "team-<name>"):
			t.Errorf("name %q: the refusal %q does not say why (team-<name> must be a namespace name)", n.name, err)
		}
	}
}

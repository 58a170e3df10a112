package kit

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/teamspace"
)

// NewTeamSpace is a TeamSpace object to create: cpu "" leaves spec.cpu out
// (the CRD defaults it), finalizers go into metadata as given.
func NewTeamSpace(name string, pods int64, cpu string, finalizers ...string) *unstructured.Unstructured {
	spec := map[string]any{"pods": pods}
	if cpu != "" {
		spec["cpu"] = cpu
	}
	meta := map[string]any{"name": name}
	if len(finalizers) > 0 {
		fs := make([]any, len(finalizers))
		for i, f := range finalizers {
			fs[i] = f
		}
		meta["finalizers"] = fs
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": teamspace.APIVersion, "kind": teamspace.Kind, "metadata": meta, "spec": spec}}
}

// Create makes a TeamSpace and removes it when the test ends, even if the
// test failed half-way (deleted, and every finalizer stripped, so a
// leftover never blocks or kills the next test's controller).
func (e *Env) Create(name string, pods int64, cpu string, finalizers ...string) *unstructured.Unstructured {
	e.T.Helper()
	created, err := e.Dyn.Resource(teamspace.GVR).Create(e.Ctx, NewTeamSpace(name, pods, cpu, finalizers...), metav1.CreateOptions{})
	if err != nil {
		e.T.Fatalf("create teamspace %s: %v", name, err)
	}
	e.mu.Lock()
	e.created = append(e.created, name)
	e.mu.Unlock()
	return created
}

// ForceRemove deletes a TeamSpace and strips its finalizers, without
// waiting for any controller. Errors are ignored: it runs in cleanups, where
// the TeamSpace may well be gone already.
func (e *Env) ForceRemove(name string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r := e.Dyn.Resource(teamspace.GVR)
	if err := r.Delete(ctx, name, metav1.DeleteOptions{}); apierrors.IsNotFound(err) {
		return
	}
	r.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
}

// PatchSpec merge-patches a TeamSpace's spec.
func (e *Env) PatchSpec(name string, spec map[string]any) {
	e.T.Helper()
	patch, err := json.Marshal(map[string]any{"spec": spec})
	if err != nil {
		e.T.Fatal(err)
	}
	if _, err := e.Dyn.Resource(teamspace.GVR).Patch(e.Ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		e.T.Fatalf("patch teamspace %s spec: %v", name, err)
	}
}

// Delete deletes a TeamSpace (it goes once its finalizers do).
func (e *Env) Delete(name string) {
	e.T.Helper()
	if err := e.Dyn.Resource(teamspace.GVR).Delete(e.Ctx, name, metav1.DeleteOptions{}); err != nil {
		e.T.Fatalf("delete teamspace %s: %v", name, err)
	}
}

// RemoveAll deletes TeamSpaces through the running controller (archive,
// finalizer) and waits until they are gone.
func (e *Env) RemoveAll(names ...string) {
	e.T.Helper()
	for _, n := range names {
		e.Delete(n)
	}
	for _, n := range names {
		e.WaitFor("teamspace "+n+" finalized and gone", 2*time.Minute, e.Gone(n))
	}
}

// GetTeamSpace reads a TeamSpace; a missing one is a NotFound error.
func (e *Env) GetTeamSpace(name string) (*teamspace.TeamSpace, error) {
	u, err := e.Dyn.Resource(teamspace.GVR).Get(e.Ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return teamspace.FromUnstructured(u)
}

// TeamSpace reads a TeamSpace; nil when it does not exist.
func (e *Env) TeamSpace(name string) *teamspace.TeamSpace {
	e.T.Helper()
	ts, err := teamspace.Get(e.Ctx, e.Dyn, name)
	if err != nil {
		e.T.Fatal(err)
	}
	return ts
}

// Namespace reads a namespace; nil when it does not exist.
func (e *Env) Namespace(name string) *corev1.Namespace {
	e.T.Helper()
	ns, err := orNil(e.getNamespace(name))
	if err != nil {
		e.T.Fatalf("get namespace %s: %v", name, err)
	}
	return ns
}

func (e *Env) getNamespace(name string) (*corev1.Namespace, error) {
	return e.Kube.CoreV1().Namespaces().Get(e.Ctx, name, metav1.GetOptions{})
}

// orNil turns NotFound into no object and no error.
func orNil[T any](obj *T, err error) (*T, error) {
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return obj, err
}

// GetQuota reads team-quota in namespace ns; a missing one is a NotFound
// error.
func (e *Env) GetQuota(ns string) (*corev1.ResourceQuota, error) {
	return e.Kube.CoreV1().ResourceQuotas(ns).Get(e.Ctx, teamspace.QuotaName, metav1.GetOptions{})
}

// Quota reads team-quota in namespace ns; nil when it does not exist.
func (e *Env) Quota(ns string) *corev1.ResourceQuota {
	e.T.Helper()
	q, err := orNil(e.GetQuota(ns))
	if err != nil {
		e.T.Fatalf("get quota %s/%s: %v", ns, teamspace.QuotaName, err)
	}
	return q
}

// Gone checks that a TeamSpace no longer exists.
func (e *Env) Gone(name string) func() error {
	return func() error {
		ts, err := teamspace.Get(e.Ctx, e.Dyn, name)
		if err != nil || ts == nil {
			return err
		}
		return fmt.Errorf("teamspace %s still there: deletionTimestamp=%v finalizers=%v", name, ts.DeletionTimestamp, ts.Finalizers)
	}
}

// NamespaceGone checks that a namespace no longer exists.
func (e *Env) NamespaceGone(name string) func() error {
	return func() error {
		ns, err := e.Kube.CoreV1().Namespaces().Get(e.Ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("namespace %s still there (phase %s, deletionTimestamp %v)", name, ns.Status.Phase, ns.DeletionTimestamp)
	}
}

package watch

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func obj(kind, ns, name string, fields map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"kind": kind, "metadata": map[string]any{"name": name}}}
	if ns != "" {
		u.SetNamespace(ns)
	}
	for k, v := range fields {
		u.Object[k] = v
	}
	return u
}

func TestRelevant(t *testing.T) {
	for _, c := range []struct {
		obj  any
		want bool
	}{
		{obj("TeamSpace", "", "alpha", nil), true},
		{obj("TeamSpace", "", "cnpa-check-ab12cd", nil), false},
		{obj("TeamSpace", "", "cnpa-probe-ab12cd", nil), false},
		{obj("Namespace", "", "team-alpha", nil), true},
		{obj("Namespace", "", "team-cnpa-check-ab12cd", nil), false},
		{obj("Namespace", "", "kube-system", nil), false},
		{obj("ResourceQuota", "team-alpha", "team-quota", nil), true},
		{obj("ResourceQuota", "team-cnpa-check-ab12cd", "team-quota", nil), false},
		{obj("ResourceQuota", "default", "team-quota", nil), false},
		{obj("CustomResourceDefinition", "", "teamspaces.platform.labhub.io", nil), true},
		{"not an object", false},
	} {
		if got := Relevant(c.obj); got != c.want {
			t.Errorf("Relevant(%v) = %v, want %v", c.obj, got, c.want)
		}
	}
}

func TestSignatureIgnoresTheQuotaControllersStatus(t *testing.T) {
	spec := map[string]any{"hard": map[string]any{"pods": "6"}}
	q1 := obj("ResourceQuota", "team-alpha", "team-quota", map[string]any{"spec": spec, "status": map[string]any{"used": map[string]any{"pods": "0"}}})
	q2 := obj("ResourceQuota", "team-alpha", "team-quota", map[string]any{"spec": spec, "status": map[string]any{"used": map[string]any{"pods": "1"}}})
	q2.SetResourceVersion("42")
	if Signature(q1) != Signature(q2) {
		t.Error("a quota's status or resourceVersion changed its signature")
	}
	q3 := obj("ResourceQuota", "team-alpha", "team-quota", map[string]any{"spec": map[string]any{"hard": map[string]any{"pods": "99"}}})
	if Signature(q1) == Signature(q3) {
		t.Error("a quota's hard pods changed, its signature did not")
	}
	ts1 := obj("TeamSpace", "", "alpha", map[string]any{"status": map[string]any{"observedGeneration": int64(1)}})
	ts2 := obj("TeamSpace", "", "alpha", map[string]any{"status": map[string]any{"observedGeneration": int64(2)}})
	if Signature(ts1) == Signature(ts2) {
		t.Error("a TeamSpace's status changed, its signature did not")
	}
	ts3 := ts1.DeepCopy()
	ts3.SetFinalizers([]string{"platform.labhub.io/cleanup"})
	if Signature(ts1) == Signature(ts3) {
		t.Error("a finalizer was added, the signature did not change")
	}
}

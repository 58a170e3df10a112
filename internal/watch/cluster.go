package watch

import (
	"context"
	"encoding/json"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

var (
	namespaceGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	quotaGVR     = schema.GroupVersionResource{Version: "v1", Resource: "resourcequotas"}
)

// Cluster follows, through informers, what the lab's steps look at in
// the cluster: the CRD, the TeamSpaces, the team-* namespaces and their
// quotas. It sends on changed (never blocking: one pending signal is
// enough) when one of them changes in a way a check could see: not a
// quota's status, which the quota controller rewrites, and not cnpa's own
// temporary objects, which the probes make. A watch that fails for any
// reason but a missing CRD goes to down (the cluster went away); the
// informers retry by themselves.
func Cluster(ctx context.Context, dyn dynamic.Interface, changed chan<- struct{}, down func(error)) {
	signal := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	for _, w := range []struct {
		gvr   schema.GroupVersionResource
		tweak dynamicinformer.TweakListOptionsFunc
	}{
		{teamspace.CRDGVR, func(o *metav1.ListOptions) {
			o.FieldSelector = fields.OneTermEqualSelector("metadata.name", teamspace.CRDName).String()
		}},
		{teamspace.GVR, nil},
		{namespaceGVR, nil},
		{quotaGVR, nil},
	} {
		inf := dynamicinformer.NewFilteredDynamicInformer(dyn, w.gvr, metav1.NamespaceAll, 0, cache.Indexers{}, w.tweak).Informer()
		_ = inf.SetWatchErrorHandler(func(_ *cache.Reflector, err error) {
			if apierrors.IsNotFound(err) {
				return // no CRD yet: step 1 has not been done, nothing is down
			}
			down(err)
		})
		_, _ = inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
			AddFunc: func(obj any, initial bool) {
				if !initial && Relevant(obj) {
					signal()
				}
			},
			UpdateFunc: func(old, obj any) {
				if Relevant(obj) && Signature(old) != Signature(obj) {
					signal()
				}
			},
			DeleteFunc: func(obj any) {
				if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
					obj = t.Obj
				}
				if Relevant(obj) {
					signal()
				}
			},
		})
		go inf.Run(ctx.Done())
	}
}

// Relevant tells whether a change of obj can change a check: the lab's
// objects, not cnpa's temporary ones, nor namespaces and quotas outside
// team-*.
func Relevant(obj any) bool {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return false
	}
	name := u.GetName()
	if u.GetKind() == "Namespace" {
		name = strings.TrimPrefix(name, teamspace.NamespacePrefix)
		if name == u.GetName() {
			return false
		}
	}
	if u.GetKind() == "ResourceQuota" {
		ns := u.GetNamespace()
		if !strings.HasPrefix(ns, teamspace.NamespacePrefix) {
			return false
		}
		name = strings.TrimPrefix(ns, teamspace.NamespacePrefix)
	}
	return !strings.HasPrefix(name, lab.TempPrefix) && !strings.HasPrefix(name, lab.ProbePrefix)
}

// Signature is what of obj a check can see, as one string: its labels,
// finalizers, owners, deletion, generation and spec, and its status but
// for a quota's (the quota controller's, rewritten as pods come and go).
func Signature(obj any) string {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return ""
	}
	sig := map[string]any{
		"labels": u.GetLabels(), "finalizers": u.GetFinalizers(), "owners": u.GetOwnerReferences(),
		"deleting": u.GetDeletionTimestamp() != nil, "generation": u.GetGeneration(), "spec": u.Object["spec"],
	}
	if u.GetKind() != "ResourceQuota" {
		sig["status"] = u.Object["status"]
	}
	b, _ := json.Marshal(sig) // maps of JSON values always marshal
	return string(b)
}

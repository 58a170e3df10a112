package kube

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
)

// Object is one object of a manifest, with the resource the API server
// serves it as.
type Object struct {
	*unstructured.Unstructured
	GVR schema.GroupVersionResource
}

// Objects parses YAML or JSON streams into their objects, in order. kinds
// maps every kind the streams may hold to its resource; any other kind is
// an error that names it.
func Objects(kinds map[string]schema.GroupVersionResource, manifests ...[]byte) ([]Object, error) {
	var out []Object
	for _, m := range manifests {
		dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(m), 4096)
		for {
			var raw map[string]any
			if err := dec.Decode(&raw); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return nil, fmt.Errorf("parse manifest: %w", err)
			}
			if len(raw) == 0 {
				continue
			}
			u := &unstructured.Unstructured{Object: raw}
			gvr, ok := kinds[u.GetKind()]
			if !ok {
				return nil, fmt.Errorf("cannot apply kind %s", u.GetKind())
			}
			out = append(out, Object{Unstructured: u, GVR: gvr})
		}
	}
	return out, nil
}

// Resource is the dynamic client for o's resource, in o's namespace when
// it has one.
func (o Object) Resource(dyn dynamic.Interface) dynamic.ResourceInterface {
	if ns := o.GetNamespace(); ns != "" {
		return dyn.Resource(o.GVR).Namespace(ns)
	}
	return dyn.Resource(o.GVR)
}

// Apply applies o as `kubectl apply --server-side --force-conflicts
// --field-manager=manager` does: manager takes every field o names.
func (o Object) Apply(ctx context.Context, dyn dynamic.Interface, manager string) error {
	data, err := o.MarshalJSON()
	if err != nil {
		return err
	}
	force := true
	_, err = o.Resource(dyn).Patch(ctx, o.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: manager, Force: &force})
	return err
}

// KubectlName is how kubectl names the object in its answers:
// teamspace.platform.labhub.io/alpha, secret/cnpa-controller-token.
func (o Object) KubectlName() string {
	name := strings.ToLower(o.GetKind())
	if o.GVR.Group != "" {
		name += "." + o.GVR.Group
	}
	return name + "/" + o.GetName()
}

func (o Object) String() string {
	if ns := o.GetNamespace(); ns != "" {
		return o.GetKind() + " " + ns + "/" + o.GetName()
	}
	return o.GetKind() + " " + o.GetName()
}

package teamspace

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// Get reads the TeamSpace name; absent (or no CRD at all) is (nil, nil).
func Get(ctx context.Context, dyn dynamic.Interface, name string) (*TeamSpace, error) {
	u, err := dyn.Resource(GVR).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get teamspace %s: %w", name, err)
	}
	return FromUnstructured(u)
}

// SetFinalizers writes ts's whole finalizer list as finalizers, with the
// resourceVersion ts was read at as a precondition: if anyone changed the
// object since (another controller adding its finalizer), the server
// answers 409 Conflict instead of dropping their entry, and the caller
// reads again. Every writer of finalizers (the controller, reset, check)
// goes through here. It returns the object as written.
func SetFinalizers(ctx context.Context, dyn dynamic.Interface, ts *TeamSpace, finalizers []string, fieldManager string) (*unstructured.Unstructured, error) {
	if finalizers == nil {
		finalizers = []string{}
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"resourceVersion": ts.ResourceVersion, "finalizers": finalizers}})
	if err != nil {
		return nil, err
	}
	return dyn.Resource(GVR).Patch(ctx, ts.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: fieldManager})
}

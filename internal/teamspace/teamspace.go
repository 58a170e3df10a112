// Package teamspace is the TeamSpace API as cnpa sees it: the group, version
// and resource, the names the controller stamps on what it owns, a typed view
// of the custom object, and the pure desired-state builder both engines
// follow. It talks to a server only in client.go, through a client it is
// given: the two requests several packages share.
package teamspace

import (
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
)

const (
	// Group is the API group of TeamSpace.
	Group = "platform.labhub.io"
	// Version is the only served version.
	Version = "v1alpha1"
	// Kind is the kind of the custom object.
	Kind = "TeamSpace"
	// Resource is the plural resource name.
	Resource = "teamspaces"
	// CRDName is the name of the CustomResourceDefinition.
	CRDName = Resource + "." + Group
	// APIVersion is Group/Version, as written in manifests and ownerReferences.
	APIVersion = Group + "/" + Version

	// Finalizer holds a TeamSpace until its archive record is on disk.
	Finalizer = Group + "/cleanup"
	// OwnerLabel marks namespaces and quotas the controller manages; its
	// value is the TeamSpace name.
	OwnerLabel = Group + "/teamspace"
	// NamespacePrefix is prepended to the TeamSpace name.
	NamespacePrefix = "team-"
	// QuotaName is the ResourceQuota in every team namespace.
	QuotaName = "team-quota"
	// FieldManager is the one field manager of every cnpa write.
	FieldManager = "cnpa"
	// DefaultCPU is the CRD's default for spec.cpu.
	DefaultCPU = "1"
)

// GVR is TeamSpace's GroupVersionResource for the dynamic client.
var GVR = schema.GroupVersionResource{Group: Group, Version: Version, Resource: Resource}

// CRDGVR is the CustomResourceDefinition resource, where TeamSpace's CRD
// (CRDName) lives.
var CRDGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// TeamSpace is the typed view of one custom object.
type TeamSpace struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              Spec   `json:"spec"`
	Status            Status `json:"status,omitempty"`
}

// Spec is what the user asks for.
type Spec struct {
	Pods int64  `json:"pods"`
	CPU  string `json:"cpu,omitempty"`
}

// Status is what the controller last acted on.
type Status struct {
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
	Namespace          string `json:"namespace,omitempty"`
}

// FromUnstructured converts an object read through the dynamic client.
func FromUnstructured(u *unstructured.Unstructured) (*TeamSpace, error) {
	var ts TeamSpace
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &ts); err != nil {
		return nil, fmt.Errorf("teamspace %q: %w", u.GetName(), err)
	}
	return &ts, nil
}

// NamespaceName is the namespace a TeamSpace owns.
func NamespaceName(name string) string { return NamespacePrefix + name }

// CPU returns spec.cpu, or the CRD default when the server did not default it
// (an object written before the CRD had the default).
func (t *TeamSpace) CPU() string {
	if t.Spec.CPU == "" {
		return DefaultCPU
	}
	return t.Spec.CPU
}

// HasFinalizer tells whether f is in metadata.finalizers.
func HasFinalizer(finalizers []string, f string) bool {
	for _, x := range finalizers {
		if x == f {
			return true
		}
	}
	return false
}

// WithoutFinalizer returns finalizers minus f, keeping every other entry in order.
func WithoutFinalizer(finalizers []string, f string) []string {
	out := make([]string, 0, len(finalizers))
	for _, x := range finalizers {
		if x != f {
			out = append(out, x)
		}
	}
	return out
}

// OwnerReference points at t as the controlling owner; garbage collection
// deletes the namespace once t is gone.
func (t *TeamSpace) OwnerReference() metav1.OwnerReference {
	yes := true
	return metav1.OwnerReference{APIVersion: APIVersion, Kind: Kind, Name: t.Name, UID: t.UID, Controller: &yes}
}

// InvalidSpecError says which field of a TeamSpace cannot be acted on.
type InvalidSpecError struct {
	Field, Value, Reason string
}

func (e *InvalidSpecError) Error() string {
	return fmt.Sprintf("%s %q %s", e.Field, e.Value, e.Reason)
}

// Limits on spec.cpu beyond what ParseQuantity checks.
const maxCPULen = 32

var (
	cpuBigExponent = regexp.MustCompile(`[eE][+-]?[0-9]{3,}`)
	maxCPU         = resource.MustParse("1E")
)

// Desired is what one TeamSpace should have in the cluster.
type Desired struct {
	Namespace string
	Pods      resource.Quantity
	CPU       resource.Quantity
}

// DesiredState computes the namespace and quota a TeamSpace asks for. It
// returns an *InvalidSpecError for a spec the cluster would refuse, so the
// controller can warn once instead of failing on every pass.
func DesiredState(t *TeamSpace) (*Desired, error) {
	ns := NamespaceName(t.Name)
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return nil, &InvalidSpecError{Field: "metadata.name", Value: t.Name,
			Reason: "gives namespace " + ns + " which is invalid: " + strings.Join(errs, "; ")}
	}
	if t.Spec.Pods < 1 || t.Spec.Pods > 50 {
		return nil, &InvalidSpecError{Field: "spec.pods", Value: fmt.Sprint(t.Spec.Pods), Reason: "must be between 1 and 50"}
	}
	// Checked before parsing: ParseQuantity spends seconds and gigabytes
	// on an exponent like 1e-100000000, and a TeamSpace author must not be
	// able to stall the controller's workers.
	if len(t.CPU()) > maxCPULen || cpuBigExponent.MatchString(t.CPU()) {
		return nil, &InvalidSpecError{Field: "spec.cpu", Value: t.CPU(), Reason: "is out of range (use e.g. \"1\" or \"500m\")"}
	}
	cpu, err := resource.ParseQuantity(t.CPU())
	if err != nil {
		return nil, &InvalidSpecError{Field: "spec.cpu", Value: t.CPU(), Reason: "is not a quantity (use e.g. \"1\" or \"500m\")"}
	}
	if cpu.Sign() < 0 {
		return nil, &InvalidSpecError{Field: "spec.cpu", Value: t.CPU(), Reason: "must not be negative"}
	}
	// Above 1E a quantity no longer prints as itself ("1000E" prints "1"),
	// so the quota would silently get another value than the spec.
	if cpu.Cmp(maxCPU) > 0 {
		return nil, &InvalidSpecError{Field: "spec.cpu", Value: t.CPU(), Reason: "is more than " + maxCPU.String()}
	}
	return &Desired{Namespace: ns, Pods: *resource.NewQuantity(t.Spec.Pods, resource.DecimalSI), CPU: cpu}, nil
}

// QuotaHard is the quota's spec.hard for d.
func (d *Desired) QuotaHard() corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourcePods: d.Pods, corev1.ResourceRequestsCPU: d.CPU}
}

// QuotaMatches tells whether a live quota's spec.hard already holds d's
// values (compared as quantities, so "0.5" equals "500m").
func (d *Desired) QuotaMatches(hard corev1.ResourceList) bool {
	pods, ok := hard[corev1.ResourcePods]
	if !ok || pods.Cmp(d.Pods) != 0 {
		return false
	}
	cpu, ok := hard[corev1.ResourceRequestsCPU]
	return ok && cpu.Cmp(d.CPU) == 0
}

// OwnedBy tells whether refs holds a controller reference to the TeamSpace uid.
func OwnedBy(refs []metav1.OwnerReference, uid types.UID) bool {
	for _, r := range refs {
		if r.UID == uid && r.Kind == Kind && r.Controller != nil && *r.Controller {
			return true
		}
	}
	return false
}

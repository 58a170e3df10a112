// Package teamspace is the TeamSpace API as cnpa sees it: the group, version
// and resource, the names the controller stamps on what it owns, a typed view
// of the custom object, and the pure desired-state builder both engines
// follow. It talks to a server only in client.go, through a client it is
// given: the two requests several packages share.
package teamspace

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/labhub/cnpa/internal/i18n"
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
	// EventSource is the source component (and reporting controller) of
	// the Go engine's Events; ShellEventSource that of reconcile.sh's.
	// The timeline credits an Event to the controller only from these.
	EventSource      = "cnpa-controller"
	ShellEventSource = "cnpa-reconcile-sh"
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
	Field, Value string
	// Reason says what is wrong with the value, in English: the words
	// the controller's Warning Event says in the cluster (Error). Said
	// says the error in the chosen language, from reason and args.
	Reason string
	reason string
	args   i18n.Args
}

// invalidSpec is the error for field's value, with why as a message of
// the catalog (teamspace.invalid.*) and its placeholders.
func invalidSpec(field, value, why string, args i18n.Args) *InvalidSpecError {
	id := "teamspace.invalid." + why
	return &InvalidSpecError{Field: field, Value: value, Reason: i18n.English.T(id, args), reason: id, args: args}
}

func (e *InvalidSpecError) Error() string {
	return fmt.Sprintf("%s %q %s", e.Field, e.Value, e.Reason)
}

// Said is the error in the chosen language, for a learner to read (Error
// stays English: the controller's Event in the cluster says it).
func (e *InvalidSpecError) Said() string {
	reason := e.Reason
	if e.reason != "" {
		reason = i18n.T(e.reason, e.args)
	}
	return i18n.T("teamspace.invalid", i18n.Args{"Field": e.Field, "Value": strconv.Quote(e.Value), "Reason": reason})
}

// CPUPattern is the grammar of spec.cpu that both engines serve: cores with
// up to three decimals ("1", "0.5") or millicores ("500m"). Any other
// quantity either does not survive the quota as written (the server rounds
// "0.1n" and prints "1000E" as "1") or costs real time to parse
// ("1e-30000000"). reconcile.sh's plan holds the same expression; the
// table in assets/plan_test.go keeps them equal.
const CPUPattern = `^((0|[1-9][0-9]{0,5})(\.[0-9]{1,3})?|(0|[1-9][0-9]{0,8})m)$`

var cpuGrammar = regexp.MustCompile(CPUPattern)

// MaxCPULen bounds spec.cpu before the pattern is tried (the CRD's
// maxLength): no valid amount is longer.
const MaxCPULen = 12

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
		return nil, invalidSpec("metadata.name", t.Name, "name", i18n.Args{"Namespace": ns, "Errs": strings.Join(errs, "; ")})
	}
	if t.Spec.Pods < 1 || t.Spec.Pods > 50 {
		return nil, invalidSpec("spec.pods", fmt.Sprint(t.Spec.Pods), "pods", nil)
	}
	// Checked before parsing: ParseQuantity spends seconds and gigabytes
	// on an exponent like 1e-100000000, and a TeamSpace author must not be
	// able to stall the controller's workers.
	if len(t.CPU()) > MaxCPULen || !cpuGrammar.MatchString(t.CPU()) {
		return nil, invalidSpec("spec.cpu", t.CPU(), "cpu", nil)
	}
	cpu, err := resource.ParseQuantity(t.CPU())
	if err != nil {
		return nil, invalidSpec("spec.cpu", t.CPU(), "cpu", nil)
	}
	return &Desired{Namespace: ns, Pods: *resource.NewQuantity(t.Spec.Pods, resource.DecimalSI), CPU: cpu}, nil
}

// QuotaHard is the quota's spec.hard for d.
func (d *Desired) QuotaHard() corev1.ResourceList {
	return corev1.ResourceList{corev1.ResourcePods: d.Pods, corev1.ResourceRequestsCPU: d.CPU}
}

// QuotaMatches tells whether a live quota's spec.hard is exactly d's: pods
// and requests.cpu with d's values (compared as quantities, so "0.5" equals
// "500m") and nothing else. An extra limit someone added by hand is drift
// like an edited one: the quota is the TeamSpace's, not a place to add to.
func (d *Desired) QuotaMatches(hard corev1.ResourceList) bool {
	if len(hard) != 2 {
		return false
	}
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

// OwnsNamespace is the controller's ownership test, the one rule for "this
// namespace is that TeamSpace's": it is named team-<name> and holds a
// controller ownerReference to the TeamSpace's uid. The controller writes
// to no other namespace and adopts none; reset deletes no other.
func OwnsNamespace(name string, uid types.UID, ns *corev1.Namespace) bool {
	return ns != nil && ns.Name == NamespaceName(name) && OwnedBy(ns.OwnerReferences, uid)
}

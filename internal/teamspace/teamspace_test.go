package teamspace_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/labhub/cnpa/internal/teamspace"
)

func newTS(name string, pods int64, cpu string) *teamspace.TeamSpace {
	return &teamspace.TeamSpace{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: teamspace.Spec{Pods: pods, CPU: cpu}}
}

func TestDesiredState(t *testing.T) {
	tests := []struct {
		name      string
		tsName    string
		pods      int64
		cpu       string
		wantNS    string
		wantPods  string
		wantCPU   string
		wantField string // non-empty: an *InvalidSpecError on this field
	}{
		{name: "lab alpha", tsName: "alpha", pods: 4, cpu: "1", wantNS: "team-alpha", wantPods: "4", wantCPU: "1"},
		{name: "millicores", tsName: "beta", pods: 2, cpu: "500m", wantNS: "team-beta", wantPods: "2", wantCPU: "500m"},
		{name: "empty cpu takes the CRD default", tsName: "gamma", pods: 1, cpu: "", wantNS: "team-gamma", wantPods: "1", wantCPU: "1"},
		{name: "decimal cpu", tsName: "d", pods: 50, cpu: "0.5", wantNS: "team-d", wantPods: "50", wantCPU: "500m"},
		{name: "zero cpu", tsName: "z", pods: 3, cpu: "0", wantNS: "team-z", wantPods: "3", wantCPU: "0"},
		{name: "longest name (58 chars)", tsName: strings.Repeat("a", 58), pods: 1, cpu: "1", wantNS: "team-" + strings.Repeat("a", 58), wantPods: "1", wantCPU: "1"},
		{name: "name one too long", tsName: strings.Repeat("a", 59), pods: 1, cpu: "1", wantField: "metadata.name"},
		{name: "dotted name", tsName: "a.b", pods: 1, cpu: "1", wantField: "metadata.name"},
		{name: "upper case name", tsName: "Alpha", pods: 1, cpu: "1", wantField: "metadata.name"},
		{name: "name ends with dash", tsName: "a-", pods: 1, cpu: "1", wantField: "metadata.name"},
		{name: "empty name", tsName: "", pods: 1, cpu: "1", wantField: "metadata.name"},
		{name: "zero pods", tsName: "p", pods: 0, cpu: "1", wantField: "spec.pods"},
		{name: "51 pods", tsName: "p", pods: 51, cpu: "1", wantField: "spec.pods"},
		{name: "negative pods", tsName: "p", pods: -1, cpu: "1", wantField: "spec.pods"},
		{name: "min int64 pods", tsName: "p", pods: math.MinInt64, cpu: "1", wantField: "spec.pods"},
		{name: "cpu not a quantity", tsName: "c", pods: 1, cpu: "lots", wantField: "spec.cpu"},
		{name: "negative cpu", tsName: "c", pods: 1, cpu: "-1", wantField: "spec.cpu"},
		{name: "cpu with spaces", tsName: "c", pods: 1, cpu: " 1", wantField: "spec.cpu"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := teamspace.DesiredState(newTS(tt.tsName, tt.pods, tt.cpu))
			if tt.wantField != "" {
				var ise *teamspace.InvalidSpecError
				if !errors.As(err, &ise) {
					t.Fatalf("DesiredState: got (%v, %v), want an *InvalidSpecError on %s", d, err, tt.wantField)
				}
				if ise.Field != tt.wantField {
					t.Fatalf("invalid field: got %s, want %s (%v)", ise.Field, tt.wantField, err)
				}
				if d != nil {
					t.Fatalf("desired with an error: got %+v, want nil", d)
				}
				return
			}
			if err != nil {
				t.Fatalf("DesiredState: %v", err)
			}
			if d.Namespace != tt.wantNS {
				t.Errorf("namespace: got %s, want %s", d.Namespace, tt.wantNS)
			}
			if got := d.Pods.String(); got != tt.wantPods {
				t.Errorf("pods: got %s, want %s", got, tt.wantPods)
			}
			if got := d.CPU.String(); got != tt.wantCPU {
				t.Errorf("cpu: got %s, want %s", got, tt.wantCPU)
			}
		})
	}
}

func TestInvalidSpecErrorNamesFieldAndValue(t *testing.T) {
	_, err := teamspace.DesiredState(newTS("c", 1, "lots"))
	if err == nil || !strings.Contains(err.Error(), "spec.cpu") || !strings.Contains(err.Error(), `"lots"`) {
		t.Fatalf("error: got %v, want one naming spec.cpu and \"lots\"", err)
	}
}

func TestQuotaMatches(t *testing.T) {
	d, err := teamspace.DesiredState(newTS("q", 6, "500m"))
	if err != nil {
		t.Fatal(err)
	}
	q := resource.MustParse
	tests := []struct {
		name string
		hard corev1.ResourceList
		want bool
	}{
		{"exact", corev1.ResourceList{"pods": q("6"), "requests.cpu": q("500m")}, true},
		{"same value, other notation", corev1.ResourceList{"pods": q("6"), "requests.cpu": q("0.5")}, true},
		{"extra resource is drift (issue 15)", corev1.ResourceList{"pods": q("6"), "requests.cpu": q("500m"), "services": q("1")}, false},
		{"hand edit", corev1.ResourceList{"pods": q("99"), "requests.cpu": q("500m")}, false},
		{"cpu differs", corev1.ResourceList{"pods": q("6"), "requests.cpu": q("1")}, false},
		{"pods missing", corev1.ResourceList{"requests.cpu": q("500m")}, false},
		{"cpu missing", corev1.ResourceList{"pods": q("6")}, false},
		{"empty", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := d.QuotaMatches(tt.hard); got != tt.want {
				t.Errorf("QuotaMatches(%v): got %v, want %v", tt.hard, got, tt.want)
			}
		})
	}
	if !d.QuotaMatches(d.QuotaHard()) {
		t.Errorf("QuotaMatches(QuotaHard()): got false, want true")
	}
}

func TestFinalizers(t *testing.T) {
	in := []string{"example.com/keep", teamspace.Finalizer, "other.io/x"}
	if !teamspace.HasFinalizer(in, teamspace.Finalizer) {
		t.Errorf("HasFinalizer: got false, want true")
	}
	if teamspace.HasFinalizer([]string{"example.com/keep"}, teamspace.Finalizer) || teamspace.HasFinalizer(nil, teamspace.Finalizer) {
		t.Errorf("HasFinalizer without ours: got true, want false")
	}
	out := teamspace.WithoutFinalizer(in, teamspace.Finalizer)
	if got, want := strings.Join(out, ","), "example.com/keep,other.io/x"; got != want {
		t.Errorf("WithoutFinalizer: got %s, want %s", got, want)
	}
	// The input must be left alone: it is the caller's (often a cache's) slice.
	if got, want := strings.Join(in, ","), "example.com/keep,"+teamspace.Finalizer+",other.io/x"; got != want {
		t.Errorf("WithoutFinalizer changed its input: got %s, want %s", got, want)
	}
	if out := teamspace.WithoutFinalizer(nil, teamspace.Finalizer); out == nil || len(out) != 0 {
		t.Errorf("WithoutFinalizer(nil): got %#v, want an empty non-nil slice", out)
	}
}

func TestOwnerReference(t *testing.T) {
	ts := newTS("own", 1, "1")
	ts.UID = types.UID("uid-1")
	ref := ts.OwnerReference()
	if ref.APIVersion != teamspace.APIVersion || ref.Kind != teamspace.Kind || ref.Name != "own" || ref.UID != "uid-1" {
		t.Errorf("OwnerReference: got %+v, want %s %s own uid-1", ref, teamspace.APIVersion, teamspace.Kind)
	}
	if ref.Controller == nil || !*ref.Controller {
		t.Errorf("OwnerReference.Controller: got %v, want true", ref.Controller)
	}
	no := false
	tests := []struct {
		name string
		refs []metav1.OwnerReference
		want bool
	}{
		{"our controller ref", []metav1.OwnerReference{ref}, true},
		{"other uid", []metav1.OwnerReference{{Kind: teamspace.Kind, UID: "uid-2", Controller: ref.Controller}}, false},
		{"not controller", []metav1.OwnerReference{{Kind: teamspace.Kind, UID: "uid-1", Controller: &no}}, false},
		{"controller unset", []metav1.OwnerReference{{Kind: teamspace.Kind, UID: "uid-1"}}, false},
		{"other kind", []metav1.OwnerReference{{Kind: "Deployment", UID: "uid-1", Controller: ref.Controller}}, false},
		{"none", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := teamspace.OwnedBy(tt.refs, "uid-1"); got != tt.want {
				t.Errorf("OwnedBy: got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFromUnstructured(t *testing.T) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": teamspace.APIVersion, "kind": teamspace.Kind,
		"metadata": map[string]any{"name": "alpha", "uid": "u-1", "generation": int64(3),
			"finalizers": []any{teamspace.Finalizer}},
		"spec":   map[string]any{"pods": int64(8), "cpu": "250m"},
		"status": map[string]any{"observedGeneration": int64(2), "namespace": "team-alpha"},
	}}
	ts, err := teamspace.FromUnstructured(u)
	if err != nil {
		t.Fatal(err)
	}
	if ts.Name != "alpha" || ts.UID != "u-1" || ts.Generation != 3 || ts.Spec.Pods != 8 || ts.CPU() != "250m" ||
		ts.Status.ObservedGeneration != 2 || ts.Status.Namespace != "team-alpha" || !teamspace.HasFinalizer(ts.Finalizers, teamspace.Finalizer) {
		t.Errorf("FromUnstructured: got %+v", ts)
	}

	// A spec the CRD schema would refuse (stored before the schema, or
	// written with validation off) is an error, not a panic.
	bad := &unstructured.Unstructured{Object: map[string]any{
		"metadata": map[string]any{"name": "bad"}, "spec": map[string]any{"pods": "many"}}}
	if _, err := teamspace.FromUnstructured(bad); err == nil || !strings.Contains(err.Error(), `"bad"`) {
		t.Errorf("FromUnstructured(pods: \"many\"): got %v, want an error naming \"bad\"", err)
	}
}

func TestNamespaceName(t *testing.T) {
	if got := teamspace.NamespaceName("alpha"); got != "team-alpha" {
		t.Errorf("NamespaceName: got %s, want team-alpha", got)
	}
	if got := newTS("x", 1, "").CPU(); got != teamspace.DefaultCPU {
		t.Errorf("CPU() with empty spec.cpu: got %q, want %q", got, teamspace.DefaultCPU)
	}
}

// desiredCostBound is how long one DesiredState may take. It is a pure
// function of a few short strings that answers in microseconds; a
// controller worker calls it on every pass, so an input that makes it run
// for seconds wedges that worker. The bound is generous on purpose.
const desiredCostBound = 2 * time.Second

// desiredWithin runs DesiredState and fails when it does not return within
// desiredCostBound (the stuck goroutine is left behind: the test has failed).
func desiredWithin(t *testing.T, ts *teamspace.TeamSpace) (*teamspace.Desired, error) {
	t.Helper()
	type result struct {
		d   *teamspace.Desired
		err error
	}
	done := make(chan result, 1)
	go func() {
		d, err := teamspace.DesiredState(ts)
		done <- result{d, err}
	}()
	select {
	case r := <-done:
		return r.d, r.err
	case <-time.After(desiredCostBound):
		t.Fatalf("DesiredState(name %q, pods %d, cpu %q) still running after %s", ts.Name, ts.Spec.Pods, ts.Spec.CPU, desiredCostBound)
		return nil, nil
	}
}

// TestDesiredStateRejectsHostileCPU: spec.cpu is a free-form string in the
// CRD, so anyone who may create a TeamSpace chooses it, and two kinds of
// value found by FuzzDesiredState hurt the controller:
//   - a large negative exponent: resource.ParseQuantity rounds to nano-units
//     with big-number arithmetic whose cost grows with it. "1e-30000000"
//     takes ~9 s and 115 MB, "1e-100000000" ~57 s and 444 MB, and
//     "1e-999999999" (12 characters) far longer, holding a controller
//     worker all the while, again on every resync;
//   - a value of 10^21 or more ("1000E", or 22 plain digits):
//     Quantity.String() renders it as "1", so the quota would be applied
//     with 1 CPU, never match, and be re-applied on every pass.
//
// Both belong in DesiredState as an *InvalidSpecError on spec.cpu.
func TestDesiredStateRejectsHostileCPU(t *testing.T) {
	for _, cpu := range []string{"1e-30000000", "1e-999999999", "0.1E-999999999", "-1e-999999999", "1000E", "1000000000000000000000"} {
		t.Run(cpu, func(t *testing.T) {
			_, err := desiredWithin(t, newTS("hostile", 1, cpu))
			var ise *teamspace.InvalidSpecError
			if !errors.As(err, &ise) || ise.Field != "spec.cpu" {
				t.Errorf("DesiredState(cpu %q): got %v, want an InvalidSpecError on spec.cpu", cpu, err)
			}
		})
	}
}

// FuzzDesiredState feeds arbitrary names, pod counts and cpu strings. It
// never panics and never runs for long (desiredCostBound); an error is always an *InvalidSpecError; without an error
// the namespace is a valid DNS-1123 label named after the TeamSpace, pods
// are the spec's 1..50, both quantities are non-negative, and what the
// quota apply would send parses back to the same values.
func FuzzDesiredState(f *testing.F) {
	seeds := []struct {
		name string
		pods int64
		cpu  string
	}{
		{"alpha", 4, "1"}, {"beta", 2, "500m"}, {"gamma", 1, ""}, {"a.b", 3, "1"},
		{strings.Repeat("a", 58), 50, "2"}, {strings.Repeat("a", 59), 1, "1"},
		{"Upper", 1, "1"}, {"-x", 1, "1"}, {"x-", 1, "1"}, {"é", 1, "1"}, {"", 1, "1"},
		{"x", 0, "1"}, {"x", 51, "1"}, {"x", -1, "1"}, {"x", math.MaxInt64, "1"}, {"x", math.MinInt64, "1"},
		{"x", 1, "-1"}, {"x", 1, "-0"}, {"x", 1, "abc"}, {"x", 1, "1e3"}, {"x", 1, "0.5"}, {"x", 1, " 1"},
		{"x", 1, "1Ei"}, {"x", 1, "9223372036854775807"}, {"x", 1, "1e1000"}, {"x", 1, "0.000000001"},
		{"x", 1, "1e-1000"}, {"x", 1, "+5"}, {"x", 1, "1.5k"}, {"x", 1, "NaN"}, {"x", 1, "Inf"},
	}
	for _, s := range seeds {
		f.Add(s.name, s.pods, s.cpu)
	}
	f.Fuzz(checkDesired)
}

// checkDesired is FuzzDesiredState's property for one input.
func checkDesired(t *testing.T, name string, pods int64, cpu string) {
	d, err := desiredWithin(t, newTS(name, pods, cpu))
	if err != nil {
		var ise *teamspace.InvalidSpecError
		if !errors.As(err, &ise) {
			t.Fatalf("DesiredState(%q, %d, %q): error %T %v, want an *InvalidSpecError", name, pods, cpu, err, err)
		}
		if d != nil {
			t.Fatalf("DesiredState(%q, %d, %q): desired %+v beside error %v", name, pods, cpu, d, err)
		}
		return
	}
	if errs := validation.IsDNS1123Label(d.Namespace); len(errs) > 0 {
		t.Fatalf("DesiredState(%q): namespace %q is not a DNS-1123 label: %v", name, d.Namespace, errs)
	}
	if want := teamspace.NamespaceName(name); d.Namespace != want {
		t.Fatalf("namespace: got %q, want %q", d.Namespace, want)
	}
	if pods < 1 || pods > 50 || d.Pods.Value() != pods {
		t.Fatalf("pods: got %s from spec %d, want the spec's value within 1..50", d.Pods.String(), pods)
	}
	if d.Pods.Sign() < 0 || d.CPU.Sign() < 0 {
		t.Fatalf("negative quantity: pods %s cpu %s (spec cpu %q)", d.Pods.String(), d.CPU.String(), cpu)
	}
	for res, q := range d.QuotaHard() {
		back, err := resource.ParseQuantity(q.String())
		if err != nil || back.Cmp(q) != 0 {
			t.Fatalf("%s %s (from %q) does not round-trip: %v, %v", res, q.String(), cpu, back.String(), err)
		}
	}
	if !d.QuotaMatches(d.QuotaHard()) {
		t.Fatalf("QuotaMatches(QuotaHard()) is false for %+v", d)
	}
}

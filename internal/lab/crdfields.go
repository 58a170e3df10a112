package lab

import (
	"fmt"
	"slices"
	"strings"

	"github.com/labhub/cnpa/internal/i18n"

	"github.com/labhub/cnpa/internal/teamspace"
)

// CRDField is one fact LAB.md step 1 asks of the CRD, and what to write
// in crd.yaml when it does not hold.
type CRDField struct {
	// ID is the check id of `cnpa check` (step1.crd.pods_maximum).
	ID string
	// Path is where the field is in the CRD, the version's index filled
	// in: spec.versions[0].schema.openAPIV3Schema.properties.spec.required.
	Path string
	// Fix says what to write there, in the chosen language around the
	// literal YAML: "add required: [pods]", "write maximum: 50 (it is 100)".
	Fix string
}

// String is the line a learner reads: "<path>: <fix>", or the fix alone
// for a field at the top of the file (apiVersion, kind).
func (f CRDField) String() string {
	if f.Path == "" {
		return f.Fix
	}
	return f.Path + ": " + f.Fix
}

// crdFact is one row of LAB.md step 1's CRD, field by field: where it is
// (under the v1alpha1 entry of spec.versions when inVersion) and the
// value it must hold; key is its last part, what the learner writes.
type crdFact struct {
	id        string
	inVersion bool
	path      []string
	want      any
}

// schemaProp is the path of a property of the openAPIV3Schema, inside a
// version entry: prop("spec", "pods") is
// schema.openAPIV3Schema.properties.spec.properties.pods.
func schemaProp(parts ...string) []string {
	p := []string{"schema", "openAPIV3Schema"}
	for _, part := range parts {
		p = append(p, "properties", part)
	}
	return p
}

// crdFacts are LAB.md step 1, field by field, in the order a learner reads
// crd.yaml (the lab's crd.yaml holds each; extras such as short names,
// printer columns and descriptions are not asked about). The first three
// only a file can miss: the API server holds no CRD without them. One
// table for both readers: step 1's file and `cnpa check`'s live object.
var crdFacts = []crdFact{
	{id: "step1.crd", path: []string{"apiVersion"}, want: "apiextensions.k8s.io/v1"},
	{id: "step1.crd", path: []string{"kind"}, want: "CustomResourceDefinition"},
	{id: "step1.crd", path: []string{"metadata", "name"}, want: teamspace.CRDName},
	{id: "step1.crd.group", path: []string{"spec", "group"}, want: teamspace.Group},
	{id: "step1.crd.scope", path: []string{"spec", "scope"}, want: "Cluster"},
	{id: "step1.crd.kind", path: []string{"spec", "names", "kind"}, want: teamspace.Kind},
	{id: "step1.crd.plural", path: []string{"spec", "names", "plural"}, want: teamspace.Resource},
	{id: "step1.crd.version", inVersion: true, path: []string{"served"}, want: true},
	{id: "step1.crd.version", inVersion: true, path: []string{"storage"}, want: true},
	{id: "step1.crd.status_subresource", inVersion: true, path: []string{"subresources", "status"}, want: map[string]any{}},
	{id: "step1.crd.pods_required", inVersion: true, path: append(schemaProp("spec"), "required"), want: []any{"pods"}},
	{id: "step1.crd.pods_type", inVersion: true, path: append(schemaProp("spec", "pods"), "type"), want: "integer"},
	{id: "step1.crd.pods_minimum", inVersion: true, path: append(schemaProp("spec", "pods"), "minimum"), want: int64(1)},
	{id: "step1.crd.pods_maximum", inVersion: true, path: append(schemaProp("spec", "pods"), "maximum"), want: int64(50)},
	{id: "step1.crd.cpu_type", inVersion: true, path: append(schemaProp("spec", "cpu"), "type"), want: "string"},
	{id: "step1.crd.cpu_default", inVersion: true, path: append(schemaProp("spec", "cpu"), "default"), want: teamspace.DefaultCPU},
	{id: "step1.crd.observed_generation_type", inVersion: true, path: append(schemaProp("status", "observedGeneration"), "type"), want: "integer"},
	{id: "step1.crd.namespace_type", inVersion: true, path: append(schemaProp("status", "namespace"), "type"), want: "string"},
}

// CRDFieldFixes compares a CRD (a CustomResourceDefinition as a JSON
// object: crd.yaml decoded, or the live object) with LAB.md step 1, field
// by field, and returns one fix per field that differs, naming where it
// is and what to write: `spec.versions[0].schema.openAPIV3Schema.
// properties.spec: add required: [pods]`. A CRD without version v1alpha1
// gets one fix for the whole version. Fields LAB.md does not ask about
// (short names, printer columns, descriptions, more versions or
// properties) are never named. Nil: the CRD is as LAB.md asks. Step 1
// says these of the learner's crd.yaml, `cnpa check` of the CRD on the
// server: one wording for both.
func CRDFieldFixes(crd map[string]any) []CRDField {
	var out []CRDField
	version, index := crdVersionEntry(crd)
	versionPath := fmt.Sprintf("spec.versions[%d]", index)
	for _, f := range crdFacts {
		root, base := crd, ""
		if f.inVersion {
			if version == nil {
				continue // one fix below for the missing version
			}
			root, base = version, versionPath+"."
		}
		parent, key := f.path[:len(f.path)-1], f.path[len(f.path)-1]
		at := strings.TrimSuffix(base+strings.Join(parent, "."), ".")
		got, found := nested(root, f.path)
		switch {
		case f.id == "step1.crd.pods_required":
			req, _ := got.([]any)
			switch {
			case !found:
				out = append(out, CRDField{ID: f.id, Path: at, Fix: i18n.T("lab.hint.crd.add", i18n.Args{"Snippet": "required: [pods]"})})
			case !slices.Contains(req, any("pods")):
				out = append(out, CRDField{ID: f.id, Path: at, Fix: i18n.T("lab.hint.crd.add_to_required", i18n.Args{"Got": yamlish(got)})})
			}
		case !found:
			out = append(out, CRDField{ID: f.id, Path: at, Fix: i18n.T("lab.hint.crd.add", i18n.Args{"Snippet": key + ": " + yamlish(f.want)})})
		case !sameValue(f.want, got):
			out = append(out, CRDField{ID: f.id, Path: at, Fix: i18n.T("lab.hint.crd.write", i18n.Args{"Snippet": key + ": " + yamlish(f.want), "Got": yamlish(got)})})
		}
	}
	if version == nil {
		out = append(out, CRDField{ID: "step1.crd.version", Path: "spec.versions",
			Fix: i18n.T("lab.hint.crd.add_version", i18n.Args{"Version": teamspace.Version})})
	}
	return out
}

// CRDFixLines are CRDFieldFixes as the lines a learner reads.
func CRDFixLines(crd map[string]any) []string {
	var lines []string
	for _, f := range CRDFieldFixes(crd) {
		lines = append(lines, f.String())
	}
	return lines
}

// crdVersionEntry is the v1alpha1 entry of spec.versions and its index;
// nil and the number of entries (where one would be added) without one.
func crdVersionEntry(crd map[string]any) (map[string]any, int) {
	versions, _ := nestedSlice(crd, "spec", "versions")
	for i, x := range versions {
		if m, _ := x.(map[string]any); m["name"] == teamspace.Version {
			return m, i
		}
	}
	return nil, len(versions)
}

func nestedSlice(m map[string]any, path ...string) ([]any, bool) {
	v, ok := nested(m, path)
	s, isSlice := v.([]any)
	return s, ok && isSlice
}

// nested is the value at path in m, and whether it is there.
func nested(m map[string]any, path []string) (any, bool) {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = mm[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// sameValue compares as JSON would: 50, int64(50) and 50.0 are one number.
func sameValue(want, got any) bool {
	if n, ok := number(want); ok {
		g, ok := number(got)
		return ok && n == g
	}
	if w, ok := want.(map[string]any); ok {
		g, ok := got.(map[string]any)
		return ok && len(w) == 0 && len(g) == 0
	}
	return want == got
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

// yamlish renders a value as it is written in crd.yaml: strings quoted
// only where YAML needs it ("1"), an empty object as {}, a list as [a, b].
func yamlish(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if x == "" || strings.ContainsAny(x, ":#{}[],'\"") || isNumberLike(x) || x == "true" || x == "false" {
			return fmt.Sprintf("%q", x)
		}
		return x
	case map[string]any:
		if len(x) == 0 {
			return "{}"
		}
		return fmt.Sprint(x)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = yamlish(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

func isNumberLike(s string) bool {
	for i, r := range s {
		if (r < '0' || r > '9') && !(i == 0 && (r == '-' || r == '+')) && r != '.' {
			return false
		}
	}
	return true
}

package lab

import (
	"fmt"
	"slices"
	"strings"

	"github.com/labhub/cnpa/internal/teamspace"
)

// crdWant is one fact of LAB.md step 1 about the CRD: where it is (below
// the v1alpha1 entry of spec.versions when inVersion) and what it must be.
// A nil want is the one list fact: spec's required includes "pods".
type crdWant struct {
	inVersion bool
	path      []string
	want      any
}

// schemaProps is the path to the schema's top-level properties inside a
// version entry.
var schemaProps = []string{"schema", "openAPIV3Schema", "properties"}

func schemaAt(parts ...string) []string {
	p := slices.Clone(schemaProps)
	for i, part := range parts {
		if i > 0 {
			p = append(p, "properties")
		}
		p = append(p, part)
	}
	return p
}

// crdWants are LAB.md step 1, field by field, in the order a learner reads
// the file.
var crdWants = []crdWant{
	{path: []string{"apiVersion"}, want: "apiextensions.k8s.io/v1"},
	{path: []string{"kind"}, want: "CustomResourceDefinition"},
	{path: []string{"metadata", "name"}, want: teamspace.CRDName},
	{path: []string{"spec", "group"}, want: teamspace.Group},
	{path: []string{"spec", "scope"}, want: "Cluster"},
	{path: []string{"spec", "names", "kind"}, want: teamspace.Kind},
	{path: []string{"spec", "names", "plural"}, want: teamspace.Resource},
	{inVersion: true, path: []string{"served"}, want: true},
	{inVersion: true, path: []string{"storage"}, want: true},
	{inVersion: true, path: []string{"subresources", "status"}, want: map[string]any{}},
	{inVersion: true, path: append(schemaAt("spec"), "required")},
	{inVersion: true, path: append(schemaAt("spec", "pods"), "type"), want: "integer"},
	{inVersion: true, path: append(schemaAt("spec", "pods"), "minimum"), want: 1},
	{inVersion: true, path: append(schemaAt("spec", "pods"), "maximum"), want: 50},
	{inVersion: true, path: append(schemaAt("spec", "cpu"), "type"), want: "string"},
	{inVersion: true, path: append(schemaAt("spec", "cpu"), "default"), want: teamspace.DefaultCPU},
	{inVersion: true, path: append(schemaAt("status", "observedGeneration"), "type"), want: "integer"},
	{inVersion: true, path: append(schemaAt("status", "namespace"), "type"), want: "string"},
}

// CRDDiff compares a CRD, as parsed from a learner's crd.yaml or read from
// the server, with LAB.md step 1, and returns one line per field that
// differs, naming what to write there:
//
//	spec.versions[0].schema.openAPIV3Schema.properties.spec: add required: [pods]
//	spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.pods: add maximum: 50
//	spec.scope: change Namespaced to Cluster
//
// Anything LAB.md does not ask about (short names, printer columns,
// descriptions, more versions or properties, validations) is the
// learner's to add and never a line. No line: the CRD is the lab's.
func CRDDiff(crd map[string]any) []string {
	var lines []string
	versions, _ := get(crd, "spec", "versions").([]any)
	vi, version := -1, map[string]any(nil)
	for i, v := range versions {
		if m, ok := v.(map[string]any); ok && m["name"] == teamspace.Version {
			vi, version = i, m
			break
		}
	}
	for _, w := range crdWants {
		root, prefix := crd, ""
		if w.inVersion {
			if version == nil {
				continue // one line below for the missing version
			}
			root, prefix = version, fmt.Sprintf("spec.versions[%d].", vi)
		}
		parent := strings.TrimSuffix(prefix+strings.Join(w.path[:len(w.path)-1], "."), ".")
		key := w.path[len(w.path)-1]
		at := ""
		if parent != "" {
			at = parent + ": "
		}
		got, found := lookup(root, w.path...)
		if w.want == nil { // required: [pods]
			req, _ := got.([]any)
			switch {
			case slices.Contains(req, any("pods")):
			case found && len(req) > 0:
				lines = append(lines, fmt.Sprintf("%sadd pods to required: %s", at, yamlValue(got)))
			default:
				lines = append(lines, at+"add required: [pods]")
			}
			continue
		}
		switch {
		case !found:
			lines = append(lines, fmt.Sprintf("%sadd %s: %s", at, key, yamlValue(w.want)))
		case !sameFileValue(got, w.want):
			lines = append(lines, fmt.Sprintf("%schange %s: %s to %s: %s", at, key, yamlValue(got), key, yamlValue(w.want)))
		}
	}
	if version == nil {
		lines = append(lines, fmt.Sprintf("spec.versions: add a version named %s (served: true, storage: true, subresources: {status: {}}, "+
			"a schema with spec.pods integer required 1..50, spec.cpu string default \"1\", status.observedGeneration integer, status.namespace string)", teamspace.Version))
	}
	return lines
}

// get is the value at path in a nested map, or nil.
func get(m map[string]any, path ...string) any {
	v, _ := lookup(m, path...)
	return v
}

// lookup is the value at path in a nested map and whether it is there.
func lookup(m map[string]any, path ...string) (any, bool) {
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

// sameFileValue compares a value as parsed (JSON numbers are float64 from a
// file, int64 from the server) with the lab's.
func sameFileValue(got, want any) bool {
	switch w := want.(type) {
	case int:
		switch g := got.(type) {
		case int64:
			return g == int64(w)
		case float64:
			return g == float64(w)
		case int:
			return g == w
		}
		return false
	case map[string]any:
		g, ok := got.(map[string]any)
		return ok && len(g) == len(w)
	}
	return got == want
}

// yamlValue writes a value as a learner would type it in crd.yaml.
func yamlValue(v any) string {
	switch x := v.(type) {
	case string:
		if x == "" || strings.ContainsAny(x, ": #{}[],'\"") || x == "true" || x == "false" || strings.Trim(x, "0123456789.") == "" {
			return fmt.Sprintf("%q", x)
		}
		return x
	case map[string]any:
		if len(x) == 0 {
			return "{}"
		}
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = yamlValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case float64:
		if x == float64(int64(x)) {
			return fmt.Sprint(int64(x))
		}
	case nil:
		return "null"
	}
	return fmt.Sprint(v)
}

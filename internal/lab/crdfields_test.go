package lab

import (
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/labhub/cnpa/assets"
)

// labCRD is the lab's own crd.yaml, decoded as the API server would hold it.
func labCRD(t *testing.T) map[string]any {
	t.Helper()
	var crd map[string]any
	if err := yaml.Unmarshal(assets.CRD, &crd); err != nil {
		t.Fatal(err)
	}
	return crd
}

func TestCRDFieldFixes(t *testing.T) {
	schema := "spec.versions[0].schema.openAPIV3Schema.properties.spec"
	cases := []struct {
		name string
		edit func(crd map[string]any)
		want []string
	}{
		{"the lab's crd.yaml", func(map[string]any) {}, nil},
		{"extras the lab does not forbid", func(crd map[string]any) {
			names, _ := nested(crd, []string{"spec", "names"})
			names.(map[string]any)["shortNames"] = []any{"ts"}
			pods, _ := nested(crd, []string{"spec", "versions"})
			v := pods.([]any)[0].(map[string]any)
			p, _ := nested(v, schemaProp("spec", "pods"))
			p.(map[string]any)["description"] = "how many pods"
		}, nil},
		{"no required and no maximum (review row 4)", func(crd map[string]any) {
			spec, _ := nested(crd, []string{"spec", "versions"})
			v := spec.([]any)[0].(map[string]any)
			s, _ := nested(v, schemaProp("spec"))
			delete(s.(map[string]any), "required")
			p, _ := nested(v, schemaProp("spec", "pods"))
			delete(p.(map[string]any), "maximum")
		}, []string{
			schema + ": add required: [pods]",
			schema + ".properties.pods: add maximum: 50",
		}},
		{"wrong values", func(crd map[string]any) {
			crd["spec"].(map[string]any)["scope"] = "Namespaced"
			spec, _ := nested(crd, []string{"spec", "versions"})
			v := spec.([]any)[0].(map[string]any)
			p, _ := nested(v, schemaProp("spec", "pods"))
			p.(map[string]any)["maximum"] = float64(100)
			c, _ := nested(v, schemaProp("spec", "cpu"))
			c.(map[string]any)["default"] = "2"
			s, _ := nested(v, schemaProp("spec"))
			s.(map[string]any)["required"] = []any{"cpu"}
			delete(v, "subresources")
		}, []string{
			"spec: write scope: Cluster (it is Namespaced)",
			"spec.versions[0].subresources: add status: {}",
			schema + ": add pods to required (it is [cpu])",
			schema + ".properties.pods: write maximum: 50 (it is 100)",
			schema + `.properties.cpu: write default: "1" (it is "2")`,
		}},
		{"no v1alpha1", func(crd map[string]any) {
			spec, _ := nested(crd, []string{"spec", "versions"})
			spec.([]any)[0].(map[string]any)["name"] = "v1"
		}, []string{"spec.versions: add a version named v1alpha1 (served: true, storage: true, subresources: {status: {}}, " +
			"a schema with spec.pods integer required 1..50, spec.cpu string default \"1\", status.observedGeneration integer, status.namespace string)"}},
		{"a file's own mistakes: served false, another kind", func(crd map[string]any) {
			crd["kind"] = "CustomResource"
			spec, _ := nested(crd, []string{"spec", "versions"})
			spec.([]any)[0].(map[string]any)["served"] = false
		}, []string{
			"write kind: CustomResourceDefinition (it is CustomResource)",
			"spec.versions[0]: write served: true (it is false)",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			crd := labCRD(t)
			c.edit(crd)
			var got []string
			for _, f := range CRDFieldFixes(crd) {
				got = append(got, f.String())
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

func TestWriteValue(t *testing.T) {
	for _, c := range []struct{ file, key, want, hint string }{
		{GenerationFile, "status_via_main", "null", "write `\"status_via_main\": null` in generation.json"},
		{GenerationFile, "gen_initial", "1", "write `\"gen_initial\": 1` in generation.json"},
		{BeforeFile, "uid", `"6b7f0c2e-0000"`, "write `\"uid\": \"6b7f0c2e-0000\"` in before.json"},
		{DriftFile, "restore_seconds", "an integer ≥ 1", "make restore_seconds in drift.json an integer ≥ 1"},
	} {
		if got := WriteValue(c.file, c.key, c.want); got != c.hint {
			t.Errorf("WriteValue(%s, %s, %s): got %s, want %s", c.file, c.key, c.want, got, c.hint)
		}
	}
}

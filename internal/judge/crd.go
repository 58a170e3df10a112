package judge

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

// crdField is one fact of LAB.md step 1 about the CRD on the server: where
// it is in the object and what it must be.
type crdField struct {
	id, title string
	// inVersion: path is under the v1alpha1 entry of spec.versions.
	inVersion bool
	path      []string
	want      any
}

// schema is the openAPIV3Schema path inside a version entry.
var schemaPath = []string{"schema", "openAPIV3Schema", "properties"}

func prop(parts ...string) []string {
	p := append([]string{}, schemaPath...)
	for i, part := range parts {
		if i > 0 {
			p = append(p, "properties")
		}
		p = append(p, part)
	}
	return p
}

// crdFields are LAB.md step 1, field by field.
var crdFields = []crdField{
	{id: "step1.crd.group", title: "the CRD's group is " + teamspace.Group, path: []string{"spec", "group"}, want: teamspace.Group},
	{id: "step1.crd.scope", title: "the CRD's scope is Cluster", path: []string{"spec", "scope"}, want: "Cluster"},
	{id: "step1.crd.kind", title: "the CRD's kind is " + teamspace.Kind, path: []string{"spec", "names", "kind"}, want: teamspace.Kind},
	{id: "step1.crd.plural", title: "the CRD's plural is " + teamspace.Resource, path: []string{"spec", "names", "plural"}, want: teamspace.Resource},
	{id: "step1.crd.status_subresource", title: "v1alpha1 enables the status subresource", inVersion: true, path: []string{"subresources", "status"}, want: map[string]any{}},
	{id: "step1.crd.pods_type", title: "spec.pods is an integer", inVersion: true, path: append(prop("spec", "pods"), "type"), want: "integer"},
	{id: "step1.crd.pods_required", title: "spec.pods is required", inVersion: true, path: append(prop("spec"), "required")},
	{id: "step1.crd.pods_minimum", title: "spec.pods has minimum 1", inVersion: true, path: append(prop("spec", "pods"), "minimum"), want: 1},
	{id: "step1.crd.pods_maximum", title: "spec.pods has maximum 50", inVersion: true, path: append(prop("spec", "pods"), "maximum"), want: 50},
	{id: "step1.crd.cpu_type", title: "spec.cpu is a string", inVersion: true, path: append(prop("spec", "cpu"), "type"), want: "string"},
	{id: "step1.crd.cpu_default", title: `spec.cpu defaults to "1"`, inVersion: true, path: append(prop("spec", "cpu"), "default"), want: teamspace.DefaultCPU},
	{id: "step1.crd.observed_generation_type", title: "status.observedGeneration is an integer", inVersion: true, path: append(prop("status", "observedGeneration"), "type"), want: "integer"},
	{id: "step1.crd.namespace_type", title: "status.namespace is a string", inVersion: true, path: append(prop("status", "namespace"), "type"), want: "string"},
}

// crdChecks grade the CRD on the server against LAB.md step 1: it exists
// and is Established, its names and scope, version v1alpha1 served and
// stored with the status subresource, and the schema field by field.
func crdChecks() []factCheck {
	hint := func(_ *evidenceSet, f *Facts) string {
		return fmt.Sprintf("the CRD must be LAB.md step 1's: apply it again with `kubectl apply --server-side --force-conflicts -f %s`",
			filepath.Join(f.Dir, "crd.yaml"))
	}
	// fieldHint names, for one field, where it is and what to write
	// (lab.CRDFieldFixes): applying the same file again cannot fix a
	// wrong one (review row 4). Only a crd.yaml that cnpa wrote, and
	// that still holds what it wrote, is right as it is.
	fieldHint := func(id string) func(*evidenceSet, *Facts) string {
		return func(ev *evidenceSet, f *Facts) string {
			if f.CRD == nil {
				return hint(ev, f)
			}
			var lines []string
			for _, x := range lab.CRDFieldFixes(f.CRD.Object) {
				if x.ID == id {
					lines = append(lines, x.String())
				}
			}
			if len(lines) == 0 {
				return hint(ev, f)
			}
			path := filepath.Join(f.Dir, "crd.yaml")
			apply := fmt.Sprintf("`kubectl apply --server-side --force-conflicts -f %s`", path)
			if why, present := f.author(lab.CRDFile); present && why == "" {
				return fmt.Sprintf("the CRD on the server is not the %s cnpa wrote (%s): apply it again with %s", path, strings.Join(lines, "; "), apply)
			}
			return fmt.Sprintf("in %s, %s; then apply it: %s", path, strings.Join(lines, "; "), apply)
		}
	}
	checks := []factCheck{
		{id: "step1.crd", mistake: lab.MistakeCRD, title: "the CRD " + teamspace.CRDName + " is installed and Established", hint: hint,
			judge: func(_ *evidenceSet, f *Facts) Verdict {
				if f.CRD == nil {
					return Holds(false, "installed, Established", "not installed")
				}
				conds, _, _ := unstructured.NestedSlice(f.CRD.Object, "status", "conditions")
				for _, x := range conds {
					if m, _ := x.(map[string]any); m["type"] == "Established" && m["status"] == "True" {
						return Holds(true, "installed, Established", "Established")
					}
				}
				return Holds(false, "installed, Established", "not Established yet")
			}},
		{id: "step1.crd.version", mistake: lab.MistakeCRD, title: "version " + teamspace.Version + " is served and is the storage version", hint: fieldHint("step1.crd.version"),
			judge: func(_ *evidenceSet, f *Facts) Verdict {
				want := teamspace.Version + " served=true storage=true"
				version := crdVersion(f)
				switch {
				case f.CRD == nil:
					return Skipped("the CRD is not installed (see step1.crd)")
				case version == nil:
					return Holds(false, want, "no version "+teamspace.Version)
				}
				got := fmt.Sprintf("%s served=%v storage=%v", teamspace.Version, version["served"], version["storage"])
				return Holds(got == want, want, got)
			}},
	}
	for _, fld := range crdFields {
		checks = append(checks, factCheck{id: fld.id, mistake: lab.MistakeCRD, title: fld.title, hint: fieldHint(fld.id), judge: func(_ *evidenceSet, f *Facts) Verdict {
			version := crdVersion(f)
			switch {
			case f.CRD == nil:
				return Skipped("the CRD is not installed (see step1.crd)")
			case fld.inVersion && version == nil:
				return Skipped("the CRD has no version " + teamspace.Version + " (see step1.crd.version)")
			}
			root := f.CRD.Object
			if fld.inVersion {
				root = version
			}
			got, found, _ := unstructured.NestedFieldNoCopy(root, fld.path...)
			if fld.id == "step1.crd.pods_required" {
				req, _ := got.([]any)
				return Holds(slices.Contains(req, any("pods")), `required includes "pods"`, "required "+show(req))
			}
			if !found {
				return Holds(false, show(fld.want), "not set")
			}
			return Same(fld.want, got)
		}})
	}
	return checks
}

// crdVersion is the v1alpha1 entry of the live CRD's spec.versions, or nil.
func crdVersion(f *Facts) map[string]any {
	if f.CRD == nil {
		return nil
	}
	versions, _, _ := unstructured.NestedSlice(f.CRD.Object, "spec", "versions")
	for _, x := range versions {
		if m, _ := x.(map[string]any); m["name"] == teamspace.Version {
			return m
		}
	}
	return nil
}

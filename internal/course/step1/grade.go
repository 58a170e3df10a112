package step1

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Grade is what `cnpa check` grades for step 1 (registering a type does
// nothing by itself): before.json, then the CRD on the server field by field
// (crd.go).
var Grade = &judge.Step{Step: Step, Probes: Probes, Facts: crdChecks()}

// crdField is one fact of the lab text's step 1 about the CRD on the
// server: where it is in the object and what it must be. Its title is
// message check.title.<id>, with V (the value it must have) in it.
type crdField struct {
	ID string
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

// crdFields are the lab text's step 1, field by field.
var crdFields = []crdField{
	{ID: "step1.crd.group", path: []string{"spec", "group"}, want: teamspace.Group},
	{ID: "step1.crd.scope", path: []string{"spec", "scope"}, want: "Cluster"},
	{ID: "step1.crd.kind", path: []string{"spec", "names", "kind"}, want: teamspace.Kind},
	{ID: "step1.crd.plural", path: []string{"spec", "names", "plural"}, want: teamspace.Resource},
	{ID: "step1.crd.status_subresource", inVersion: true, path: []string{"subresources", "status"}, want: map[string]any{}},
	{ID: "step1.crd.pods_type", inVersion: true, path: append(prop("spec", "pods"), "type"), want: "integer"},
	{ID: "step1.crd.pods_required", inVersion: true, path: append(prop("spec"), "required")},
	{ID: "step1.crd.pods_minimum", inVersion: true, path: append(prop("spec", "pods"), "minimum"), want: 1},
	{ID: "step1.crd.pods_maximum", inVersion: true, path: append(prop("spec", "pods"), "maximum"), want: 50},
	{ID: "step1.crd.cpu_type", inVersion: true, path: append(prop("spec", "cpu"), "type"), want: "string"},
	{ID: "step1.crd.cpu_default", inVersion: true, path: append(prop("spec", "cpu"), "default"), want: teamspace.DefaultCPU},
	{ID: "step1.crd.observed_generation_type", inVersion: true, path: append(prop("status", "observedGeneration"), "type"), want: "integer"},
	{ID: "step1.crd.namespace_type", inVersion: true, path: append(prop("status", "namespace"), "type"), want: "string"},
}

// crdChecks grade the CRD on the server against the lab text's step 1: it exists
// and is Established, its names and scope, version v1alpha1 served and
// stored with the status subresource, and the schema field by field.
func crdChecks() []judge.Fact {
	hint := func(_ *judge.Evidence, f *judge.Facts) string {
		return i18n.T("check.crd.hint", i18n.Args{"Step": judge.LabStep(1), "Path": filepath.Join(f.Dir, "crd.yaml")})
	}
	// fieldHint names, for one field, where it is and what to write
	// (lab.CRDFieldFixes): applying the same file again cannot fix a
	// wrong one (review row 4). Only a crd.yaml that cnpa wrote, and
	// that still holds what it wrote, is right as it is.
	fieldHint := func(id string) func(*judge.Evidence, *judge.Facts) string {
		return func(ev *judge.Evidence, f *judge.Facts) string {
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
			if why, present := f.Author(lab.CRDFile); present && why == "" {
				return i18n.T("check.crd.hint_not_written", i18n.Args{"Path": path, "Fixes": strings.Join(lines, "; "), "Apply": apply})
			}
			return i18n.T("check.crd.hint_fix", i18n.Args{"Path": path, "Fixes": strings.Join(lines, "; "), "Apply": apply})
		}
	}
	checks := []judge.Fact{
		{ID: "step1.crd", Mistake: lab.MistakeCRD, Title: "check.title.step1.crd", Args: i18n.Args{"V": teamspace.CRDName}, Hint: hint,
			Judge: func(_ *judge.Evidence, f *judge.Facts) lab.Verdict {
				want := i18n.T("check.crd.want")
				if f.CRD == nil {
					return lab.Holds(false, want, i18n.T("check.crd.not_installed"))
				}
				conds, _, _ := unstructured.NestedSlice(f.CRD.Object, "status", "conditions")
				for _, x := range conds {
					if m, _ := x.(map[string]any); m["type"] == "Established" && m["status"] == "True" {
						return lab.Holds(true, want, "Established")
					}
				}
				return lab.Holds(false, want, i18n.T("check.crd.not_established"))
			}},
		{ID: "step1.crd.version", Mistake: lab.MistakeCRD, Title: "check.title.step1.crd.version", Args: i18n.Args{"V": teamspace.Version}, Hint: fieldHint("step1.crd.version"),
			Judge: func(_ *judge.Evidence, f *judge.Facts) lab.Verdict {
				want := teamspace.Version + " served=true storage=true"
				version := crdVersion(f)
				switch {
				case f.CRD == nil:
					return lab.Skipped(i18n.T("check.crd.skip_not_installed"))
				case version == nil:
					return lab.Holds(false, want, i18n.T("check.crd.no_version", i18n.Args{"V": teamspace.Version}))
				}
				got := fmt.Sprintf("%s served=%v storage=%v", teamspace.Version, version["served"], version["storage"])
				return lab.Holds(got == want, want, got)
			}},
	}
	for _, fld := range crdFields {
		checks = append(checks, judge.Fact{ID: fld.ID, Mistake: lab.MistakeCRD, Title: "check.title." + fld.ID, Args: i18n.Args{"V": fld.want}, Hint: fieldHint(fld.ID), Judge: func(_ *judge.Evidence, f *judge.Facts) lab.Verdict {
			version := crdVersion(f)
			switch {
			case f.CRD == nil:
				return lab.Skipped(i18n.T("check.crd.skip_not_installed"))
			case fld.inVersion && version == nil:
				return lab.Skipped(i18n.T("check.crd.skip_no_version", i18n.Args{"V": teamspace.Version}))
			}
			root := f.CRD.Object
			if fld.inVersion {
				root = version
			}
			got, found, _ := unstructured.NestedFieldNoCopy(root, fld.path...)
			if fld.ID == "step1.crd.pods_required" {
				req, _ := got.([]any)
				return lab.Holds(slices.Contains(req, any("pods")), i18n.T("check.crd.required_want"), i18n.T("check.crd.required_got", i18n.Args{"V": lab.Show(req)}))
			}
			if !found {
				return lab.Holds(false, lab.Show(fld.want), i18n.T("check.crd.not_set"))
			}
			return lab.Same(fld.want, got)
		}})
	}
	return checks
}

// crdVersion is the v1alpha1 entry of the live CRD's spec.versions, or nil.
func crdVersion(f *judge.Facts) map[string]any {
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

package lab_test

import (
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/test/kit/learnerfiles"
)

func parseCRD(t *testing.T, data string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := yaml.Unmarshal([]byte(data), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// learnerCRD is a learner's CRD with extras the lab does not forbid.
const learnerCRD = learnerfiles.CRD

func TestCRDFixLinesLabAndExtras(t *testing.T) {
	if d := lab.CRDFixLines(parseCRD(t, string(assets.CRD))); len(d) > 0 {
		t.Errorf("cnpa's own crd.yaml: %q, want no line", d)
	}
	if d := lab.CRDFixLines(parseCRD(t, learnerCRD)); len(d) > 0 {
		t.Errorf("a learner's CRD with extras: %q, want no line", d)
	}
}

func TestCRDFixLinesNamesEachField(t *testing.T) {
	bad := strings.NewReplacer("            required: [pods]\n", "",
		", maximum: 50", "", "scope: Cluster", "scope: Namespaced", `default: "1"`, `default: "2"`).Replace(learnerCRD)
	got := lab.CRDFixLines(parseCRD(t, bad))
	want := []string{
		"spec: write scope: Cluster (it is Namespaced)",
		"spec.versions[0].schema.openAPIV3Schema.properties.spec: add required: [pods]",
		"spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.pods: add maximum: 50",
		`spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.cpu: write default: "1" (it is "2")`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("CRDFixLines:\n got %q\nwant %q", got, want)
	}
	noVersion := strings.Replace(learnerCRD, "name: v1alpha1", "name: v1", 1)
	if got := lab.CRDFixLines(parseCRD(t, noVersion)); len(got) != 1 || !strings.HasPrefix(got[0], "spec.versions: add a version named v1alpha1") {
		t.Errorf("no v1alpha1: %q", got)
	}
	noStatus := strings.Replace(learnerCRD, "    subresources:\n      status: {}\n", "", 1)
	if got := lab.CRDFixLines(parseCRD(t, noStatus)); !slices.Equal(got, []string{"spec.versions[0].subresources: add status: {}"}) {
		t.Errorf("no status subresource: %q", got)
	}
}

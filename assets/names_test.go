package assets_test

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/internal/teamspace"
)

// scriptConst is the value of `readonly NAME=value` in reconcile.sh as it
// ships: the script's own, not a value a test passes in.
func scriptConst(t *testing.T, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^readonly ` + name + `=(\S+)$`).FindSubmatch(assets.ReconcileScript)
	if m == nil {
		t.Fatalf("reconcile.sh has no `readonly %s=...`", name)
	}
	return string(m[1])
}

// nameUses are the lab's names as they appear in a text: every
// platform.labhub.io/<x>, every team-<x> that is not the team-<name>
// pattern, every ServiceAccount username.
var nameUses = regexp.MustCompile(`platform\.labhub\.io/[a-z0-9]+|team-[a-z][a-z0-9-]*|system:serviceaccount:[a-z0-9-]+:[a-z0-9-]+`)

// checkNameUses fails for every name used in text that is none of known.
func checkNameUses(t *testing.T, asset string, text []byte, known ...string) {
	t.Helper()
	for _, use := range nameUses.FindAllString(string(text), -1) {
		if !slices.Contains(known, use) {
			t.Errorf("%s uses %q, which is none of the Go constants %q", asset, use, known)
		}
	}
}

// TestScriptNamesAreTheConstants: reconcile.sh's names are the Go
// constants the controller, the grader and the steps use. A rename on
// either side fails here.
func TestScriptNamesAreTheConstants(t *testing.T) {
	for _, c := range []struct{ name, want string }{
		{"FINALIZER", teamspace.Finalizer},
		{"OWNER_LABEL", teamspace.OwnerLabel},
		{"QUOTA_NAME", teamspace.QuotaName},
		{"FIELD_MANAGER", teamspace.FieldManager},
		{"API_VERSION", teamspace.APIVersion},
	} {
		if got := scriptConst(t, c.name); got != c.want {
			t.Errorf("reconcile.sh %s: got %q, want %q", c.name, got, c.want)
		}
	}
	// The namespace is named in two places, the plan (jq) and the writes
	// (bash); both must use the prefix.
	script := string(assets.ReconcileScript)
	for _, use := range []string{`("` + teamspace.NamespacePrefix + `" + $name)`, `ns=` + teamspace.NamespacePrefix + `$name`} {
		if !strings.Contains(script, use) {
			t.Errorf("reconcile.sh: no %s, want the namespace named with %q", use, teamspace.NamespacePrefix)
		}
	}
	checkNameUses(t, "reconcile.sh", assets.ReconcileScript,
		teamspace.Finalizer, teamspace.OwnerLabel, teamspace.APIVersion, teamspace.QuotaName)
}

// TestAdmissionNamesAreTheConstants: the admission policy names the quota,
// the label, the finalizer, the namespace prefix and the ServiceAccount as
// the Go constants do, in its rules and in its messages.
func TestAdmissionNamesAreTheConstants(t *testing.T) {
	policy := string(assets.Admission)
	for _, lit := range []string{
		teamspace.QuotaName, teamspace.OwnerLabel, teamspace.Finalizer, teamspace.NamespacePrefix,
		teamspace.Group + "/", teamspace.Kind, teamspace.Resource, identity.Username,
	} {
		if !strings.Contains(policy, "'"+lit+"'") {
			t.Errorf("admission.yaml: no '%s' in its expressions", lit)
		}
	}
	for _, use := range []string{"name: " + identity.Policy, "policyName: " + identity.Policy, `["` + teamspace.Group + `"]`} {
		if !strings.Contains(policy, use) {
			t.Errorf("admission.yaml: no %q", use)
		}
	}
	checkNameUses(t, "admission.yaml", assets.Admission,
		teamspace.Finalizer, teamspace.OwnerLabel, teamspace.QuotaName, identity.Username)
}

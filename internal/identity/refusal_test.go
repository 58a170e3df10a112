package identity

import (
	"strings"
	"testing"
)

// Each refusal the own identity meets is one whole line naming the verb
// or the rule, and the fix (review row 6: cut off before the useful part).
func TestExplainRefusal(t *testing.T) {
	tests := []struct{ line, want string }{
		{`The namespaces "team-alpha" is invalid: : ValidatingAdmissionPolicy 'cnpa-controller-writes' with binding 'cnpa-controller-writes' denied request: cnpa-controller may not set or change the finalizers or annotations of namespace team-alpha`,
			"refused by the admission policy cnpa-controller-writes: cnpa-controller may not set or change the finalizers or annotations of namespace team-alpha. Fix: write only what the lab text asks on team-<name> (no annotation of your own, no timestamp)"},
		{`Error from server (Forbidden): error when replacing "STDIN": namespaces "team-alpha" is forbidden: User "system:serviceaccount:kube-system:cnpa-controller" cannot update resource "namespaces" in API group "" at the cluster scope`,
			"refused by RBAC: the service's identity cnpa-controller has no `update` on namespaces. Fix: write with `kubectl patch` (or server-side apply) instead of `kubectl replace`"},
		{`Error from server (Forbidden): resourcequotas "team-quota" is forbidden: User "system:serviceaccount:kube-system:cnpa-controller" cannot delete resource "resourcequotas" in API group "" in the namespace "team-alpha"`,
			"has no `delete` on resourcequotas. Fix: never delete to converge"},
	}
	for _, tt := range tests {
		got, ok := ExplainRefusal(tt.line)
		if !ok || !strings.Contains(got, tt.want) || !strings.HasSuffix(got, "`cnpa step 4 --service-identity admin`)") {
			t.Errorf("ExplainRefusal(%q):\n got %q (%v)\nwant it to hold %q and end with the admin way out", tt.line, got, ok, tt.want)
		}
	}
	if _, ok := ExplainRefusal("namespace/team-alpha created"); ok {
		t.Error("a line that is no refusal was explained")
	}
}

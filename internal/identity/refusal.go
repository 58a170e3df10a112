package identity

import (
	"regexp"
	"strings"

	"github.com/labhub/cnpa/internal/i18n"
)

// rbacDenied is kubectl's line for a verb RBAC does not give the
// ServiceAccount: `… is forbidden: User "system:serviceaccount:…"
// cannot update resource "namespaces" in API group "" …`.
var rbacDenied = regexp.MustCompile(`cannot (\w+) resource "([^"]+)"(?: in API group "[^"]*")?`)

// policyDenied is the admission policy's refusal; its message follows.
var policyDenied = regexp.MustCompile(`denied request: (.*)$`)

// policyFixes map the start of each of assets/admission.yaml's messages
// (the API server's words, matched as they are) to the fix, in the lab's
// terms: a message of the catalog (identity.fix.*).
var policyFixes = []struct{ message, fix string }{
	{"cnpa-controller may not set or change the finalizers or annotations", "identity.fix.no_annotations"},
	{"cnpa-controller may not set or change labels", "identity.fix.only_label"},
	{"cnpa-controller may not change the ownerReferences", "identity.fix.owner_reference"},
	{"cnpa-controller may not take over namespace", "identity.fix.take_over"},
	{"cnpa-controller may only write namespaces named team-<name>", "identity.fix.namespaces"},
	{"cnpa-controller may only write the quota team-quota", "identity.fix.quota"},
	{"cnpa-controller may not create TeamSpaces", "identity.fix.create_teamspace"},
	{"cnpa-controller may change only the finalizers of TeamSpace", "identity.fix.teamspace_fields"},
	{"cnpa-controller may only add or remove the finalizer", "identity.fix.finalizer"},
}

// verbFixes say, for a verb the ServiceAccount lacks, how to do the same
// with one it has (assets/rbac.yaml): a message of the catalog.
var verbFixes = map[string]string{
	"update": "identity.fix.verb_update",
	"delete": "identity.fix.verb_delete",
	"create": "identity.fix.verb_create",
}

// ExplainRefusal turns one line of kubectl's output where the API server
// refused the service's own identity (RBAC or the admission policy) into
// one whole line, in the chosen language: what was refused, by which
// rule, and the fix; the last resort for each is `--service-identity
// admin`, the lab text's own service. ok is false for a line that is no
// such refusal.
func ExplainRefusal(line string) (explained string, ok bool) {
	line = strings.TrimSpace(line)
	if m := policyDenied.FindStringSubmatch(line); m != nil {
		msg := strings.TrimSpace(m[1])
		fix := "identity.fix.policy_other"
		for _, f := range policyFixes {
			if strings.HasPrefix(msg, f.message) {
				fix = f.fix
				break
			}
		}
		return i18n.T("identity.refused_by_policy", i18n.Args{"Policy": Policy, "Message": msg, "Fix": i18n.T(fix)}), true
	}
	if m := rbacDenied.FindStringSubmatch(line); m != nil {
		verb, resource := m[1], m[2]
		fix, known := verbFixes[verb]
		if !known {
			fix = "identity.fix.verb_other"
		}
		return i18n.T("identity.refused_by_rbac", i18n.Args{"ServiceAccount": ServiceAccount, "Verb": verb,
			"Resource": resource, "Fix": i18n.T(fix)}), true
	}
	return "", false
}

// ExplainLines is out with every refusal line explained (ExplainRefusal)
// in place: for a service log shown to the learner.
func ExplainLines(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if why, ok := ExplainRefusal(l); ok {
			lines[i] = why
		}
	}
	return strings.Join(lines, "\n")
}

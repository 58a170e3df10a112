package identity

import (
	"regexp"
	"strings"
)

// rbacDenied is kubectl's line for a verb RBAC does not give the
// ServiceAccount: `… is forbidden: User "system:serviceaccount:…"
// cannot update resource "namespaces" in API group "" …`.
var rbacDenied = regexp.MustCompile(`cannot (\w+) resource "([^"]+)"(?: in API group "[^"]*")?`)

// policyDenied is the admission policy's refusal; its message follows.
var policyDenied = regexp.MustCompile(`denied request: (.*)$`)

// policyFixes map the start of each of assets/admission.yaml's messages
// to the fix, in the lab's terms.
var policyFixes = []struct{ message, fix string }{
	{"cnpa-controller may not set or change the finalizers or annotations", "write only what LAB.md asks on team-<name> (no annotation of your own, no timestamp): a pass over a converged TeamSpace writes nothing"},
	{"cnpa-controller may not set or change labels", "set only the label " + "platform.labhub.io/teamspace=<name> on team-<name>"},
	{"cnpa-controller may not change the ownerReferences", "set the one ownerReference to the TeamSpace when you create team-<name>, and never change it"},
	{"cnpa-controller may not take over namespace", "skip a team-<name> you did not make (no label, no ownerReference to its TeamSpace): leave it alone"},
	{"cnpa-controller may only write namespaces named team-<name>", "write only namespaces team-<name> labelled platform.labhub.io/teamspace=<name>"},
	{"cnpa-controller may only write the quota team-quota", "write only ResourceQuota team-quota, in a team-<name> of your own"},
	{"cnpa-controller may not create TeamSpaces", "never create a TeamSpace: the controller only serves them"},
	{"cnpa-controller may change only the finalizers of TeamSpace", "on a TeamSpace, write only its finalizers and (through the status subresource) its status"},
	{"cnpa-controller may only add or remove the finalizer", "add or remove only platform.labhub.io/cleanup, keeping the other finalizers"},
}

// verbFixes say, for a verb the ServiceAccount lacks, how to do the same
// with one it has (assets/rbac.yaml).
var verbFixes = map[string]string{
	"update": "write with `kubectl patch` (or server-side apply) instead of `kubectl replace`",
	"delete": "never delete to converge: patch what differs (a quota deleted and created again is a new object every pass)",
	"create": "create only team-<name> and its team-quota",
}

// ExplainRefusal turns one line of kubectl's output where the API server
// refused the service's own identity (RBAC or the admission policy) into
// one whole line: what was refused, by which rule, and the fix; the
// last resort for each is `--service-identity admin`, LAB.md's own
// service. ok is false for a line that is no such refusal.
func ExplainRefusal(line string) (explained string, ok bool) {
	line = strings.TrimSpace(line)
	if m := policyDenied.FindStringSubmatch(line); m != nil {
		msg := strings.TrimSpace(m[1])
		fix := "write only what LAB.md asks"
		for _, f := range policyFixes {
			if strings.HasPrefix(msg, f.message) {
				fix = f.fix
				break
			}
		}
		return "refused by the admission policy " + Policy + ": " + msg + ". Fix: " + fix +
			" (or run the service as LAB.md's does: `cnpa step 4 --service-identity admin`)", true
	}
	if m := rbacDenied.FindStringSubmatch(line); m != nil {
		verb, resource := m[1], m[2]
		fix, known := verbFixes[verb]
		if !known {
			fix = "use the verbs it has (get, list, watch, create, patch)"
		}
		return "refused by RBAC: the service's identity " + ServiceAccount + " has no `" + verb + "` on " + resource + ". Fix: " + fix +
			" (or run the service as LAB.md's does: `cnpa step 4 --service-identity admin`)", true
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

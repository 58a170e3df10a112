package kit

import (
	"fmt"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/labhub/cnpa/test/kit/cluster"
)

// Grant is one verb a Role or ClusterRole grants on one resource: the
// unit RBACUnused holds against what the audit log says was used.
type Grant struct {
	Role      string // kind/name of the role
	Namespace string // "" for a ClusterRole: every namespace
	Group     string
	Resource  string // with "/subresource" when it names one
	Verb      string
	Names     []string // resourceNames; nil for any
}

func (g Grant) String() string {
	where := "in every namespace"
	if g.Namespace != "" {
		where = "in " + g.Namespace
	}
	names := ""
	if len(g.Names) > 0 {
		names = " " + strings.Join(g.Names, ",")
	}
	group := g.Group
	if group == "" {
		group = "core"
	}
	return fmt.Sprintf("%s grants %s %s/%s%s %s", g.Role, g.Verb, group, g.Resource, names, where)
}

// Grants lists every verb the Roles and ClusterRoles of manifests grant.
func Grants(manifests ...[]byte) ([]Grant, error) {
	var out []Grant
	for _, m := range manifests {
		for _, doc := range strings.Split(string(m), "\n---") {
			var obj struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name      string `json:"name"`
					Namespace string `json:"namespace"`
				} `json:"metadata"`
				Rules []struct {
					APIGroups     []string `json:"apiGroups"`
					Resources     []string `json:"resources"`
					Verbs         []string `json:"verbs"`
					ResourceNames []string `json:"resourceNames"`
				} `json:"rules"`
			}
			if err := yaml.Unmarshal([]byte(doc), &obj); err != nil {
				return nil, err
			}
			if obj.Kind != "Role" && obj.Kind != "ClusterRole" {
				continue
			}
			for _, r := range obj.Rules {
				for _, g := range r.APIGroups {
					for _, res := range r.Resources {
						for _, v := range r.Verbs {
							out = append(out, Grant{Role: obj.Kind + "/" + obj.Metadata.Name, Namespace: obj.Metadata.Namespace,
								Group: g, Resource: res, Verb: v, Names: r.ResourceNames})
						}
					}
				}
			}
		}
	}
	return out, nil
}

// covers tells whether request ev is one that g grants.
func (g Grant) covers(ev cluster.AuditEvent) bool {
	res := ev.ObjectRef.Resource
	if ev.ObjectRef.Subresource != "" {
		res += "/" + ev.ObjectRef.Subresource
	}
	if ev.ObjectRef.APIGroup != g.Group || res != g.Resource || ev.Verb != g.Verb {
		return false
	}
	if g.Namespace != "" && ev.ObjectRef.Namespace != g.Namespace {
		return false
	}
	if len(g.Names) > 0 {
		for _, n := range g.Names {
			if n == ev.ObjectRef.Name {
				return true
			}
		}
		return false
	}
	return true
}

// RBACUnused holds grants to the requests of events (one user's, from an
// audit log that records reads too: cluster.Options.AuditAllOf). It
// returns each grant no request used, and each request no grant covers
// (refused by RBAC, or made with a verb the roles lack), both sorted.
func RBACUnused(grants []Grant, events []cluster.AuditEvent) (unused []string, uncovered []string) {
	used := make([]bool, len(grants))
	seen := map[string]bool{}
	for _, ev := range events {
		if ev.ObjectRef.Resource == "" {
			continue // discovery (/api, /apis, /version): no role needed
		}
		covered := false
		for i, g := range grants {
			if g.covers(ev) {
				used[i], covered = true, true
			}
		}
		if !covered {
			res := ev.ObjectRef.Resource
			if ev.ObjectRef.Subresource != "" {
				res += "/" + ev.ObjectRef.Subresource
			}
			k := fmt.Sprintf("%s %s/%s %s/%s → %d", ev.Verb, ev.ObjectRef.APIGroup, res, ev.ObjectRef.Namespace, ev.ObjectRef.Name, ev.ResponseStatus.Code)
			if !seen[k] {
				seen[k] = true
				uncovered = append(uncovered, k)
			}
		}
	}
	for i, g := range grants {
		if !used[i] {
			unused = append(unused, g.String())
		}
	}
	sort.Strings(unused)
	sort.Strings(uncovered)
	return unused, uncovered
}

package lab

import (
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// rbacUse gathers the requests cnpa's engines make under the service's
// identity, from the API server's audit log (every request of that
// ServiceAccount, reads and watches included) over a whole lab, `cnpa
// step all` then `cnpa check`: TestStepAll's kine labs of the go and the
// shell engine, under the own identity (drift in step 5, deletion and
// archive in step 6). hold then holds assets/rbac.yaml to them: a rule
// granting a verb that no request used fails, and so does a request no
// rule covers.
type rbacUse struct {
	mu      sync.Mutex
	engines []string
	events  []cluster.AuditEvent
}

// rbacEngines are the engines whose labs hold assets/rbac.yaml together.
var rbacEngines = []string{"go", "shell"}

// add records one lab's requests, made by engine.
func (u *rbacUse) add(t *testing.T, engine string, events []cluster.AuditEvent) {
	if len(events) == 0 {
		t.Errorf("no request by %s in the audit log of the %s engine's lab", identity.Username, engine)
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.engines = append(u.engines, engine)
	u.events = append(u.events, events...)
}

// hold holds assets/rbac.yaml to the requests of both engines' labs; with
// a lab missing (it failed, or -run left it out) an unused grant means
// nothing, and it says so instead.
func (u *rbacUse) hold(t *testing.T) {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, e := range rbacEngines {
		if !slices.Contains(u.engines, e) {
			t.Logf("RBAC as used: not held, the %s engine's audited lab did not run to its check (have %v)", e, u.engines)
			return
		}
	}
	grants, err := kit.Grants(identity.Manifests()...)
	if err != nil {
		t.Fatal(err)
	}
	unused, uncovered := kit.RBACUnused(grants, u.events)
	if len(unused) > 0 {
		t.Errorf("assets/rbac.yaml grants %d verbs no request of a whole lab used (go and shell engines, check included); remove them:\n%s",
			len(unused), strings.Join(unused, "\n"))
	}
	if len(uncovered) > 0 {
		t.Errorf("%d kinds of request of %s no rule of assets/rbac.yaml covers:\n%s", len(uncovered), identity.Username, strings.Join(uncovered, "\n"))
	}
	t.Logf("%d requests by %s held to %d grants", len(u.events), identity.Username, len(grants))
}

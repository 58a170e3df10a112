package stress

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/teamspace"
)

// The forbidden fault: the service's RBAC is revoked, then restored
// (the CNPA Break & Fix incident: its ClusterRoleBinding replaced by a
// read-only one). For twice the hold every write on the lab's objects is
// answered 403 Forbidden, as the authorizer answers it; reads and open
// watches go on (authorization is asked once, when a request starts). A
// TeamSpace deleted meanwhile cannot be released, and must be once the
// writes are allowed again: none left Terminating (converged), its
// archive record written before its release (archived), and released by
// the controller, not by a finalizer stripped past it (released).
func init() { customs["forbidden"] = forbiddenFault }

func forbiddenFault(ctx context.Context, r *runner) ([]deletion, afterFault) {
	r.proxy.SetMode(Mode{Intercept: r.proxy.forbidden})
	// Restored on every path: the run's cleanup sets no mode of its own
	// before it restarts the service.
	defer r.proxy.SetMode(Mode{})
	deleted := r.workload(ctx)
	sleep(ctx, r.opts.Hold)
	r.pods = r.pods%9 + 1
	r.editPods(ctx, r.b1, r.pods)
	sleep(ctx, r.opts.Hold)
	return deleted, afterFault{judge: func(ctx context.Context) []judge.StressFinding {
		return r.releasedByController(ctx, deleted)
	}}
}

// forbidden answers every write on the lab's objects 403, with the
// authorizer's words.
func (p *Proxy) forbidden(w http.ResponseWriter, r *http.Request) bool {
	if !isWrite(r.Method) || !onObjects(r.URL.Path) {
		return false
	}
	p.inject("forbidden")
	verb := map[string]string{http.MethodPost: "create", http.MethodPut: "update", http.MethodPatch: "patch", http.MethodDelete: "delete"}[r.Method]
	resource, group, name := "teamspaces", teamspace.Group, ""
	parts := strings.Split(strings.Trim(shortPath(r.URL.Path), "/"), "/")
	switch {
	case strings.Contains(r.URL.Path, "/resourcequotas"):
		resource, group = "resourcequotas", ""
	case parts[0] == "namespaces" && !strings.Contains(r.URL.Path, "/teamspaces"):
		resource, group = "namespaces", ""
	}
	for i, s := range parts {
		if s == resource && i+1 < len(parts) {
			name = parts[i+1]
		}
	}
	if strings.HasSuffix(r.URL.Path, "/status") {
		resource += "/status"
	}
	status(w, http.StatusForbidden, "Forbidden", fmt.Sprintf(
		"%s %q is forbidden: the service's identity cannot %s resource %q in API group %q (its RBAC was revoked by cnpa stress)",
		strings.SplitN(resource, "/", 2)[0], name, verb, resource, group))
	return true
}

// releasedByController is each TeamSpace deleted during the fault that
// carried our finalizer and is gone, released by no write of the
// controller's: its finalizer was stripped past it.
func (r *runner) releasedByController(ctx context.Context, deleted []deletion) []judge.StressFinding {
	var out []judge.StressFinding
	for _, d := range deleted {
		if !d.ours {
			continue
		}
		if _, err := r.env.Clients.Dynamic.Resource(teamspace.GVR).Get(ctx, d.name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			continue // still there: converged says so
		}
		r.mu.Lock()
		_, seen := r.released[d.name]
		r.mu.Unlock()
		if !seen {
			out = append(out, judge.StressFinding{Property: judge.StressReleased,
				Found:    i18n.T("stress.found.stripped", i18n.Args{"Name": d.name}),
				Expected: i18n.T("stress.expected.released")})
		}
	}
	return out
}

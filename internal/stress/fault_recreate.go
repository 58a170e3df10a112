package stress

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/teamspace"
)

// recreate deletes the TeamSpace the fault before made, waits until its
// controller released it, and makes one of the same name and spec at
// once: its namespace is still the old one's, being deleted (quotas in
// it are refused, 403), until the garbage collector is done. The new one
// must converge once the old namespace is gone, in a namespace its own
// uid owns. A controller that remembers by name what it did takes the new
// TeamSpace for the old one.
func (r *runner) recreate(ctx context.Context) []deletion {
	name := r.previous
	r.previous = ""
	d := r.delete(ctx, name)
	res := r.env.Clients.Dynamic.Resource(teamspace.GVR)
	gone := r.await(ctx, r.opts.Bound, func() bool {
		_, err := res.Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	r.pods = r.pods%9 + 1
	r.editPods(ctx, r.b1, r.pods)
	if !gone {
		return []deletion{d} // converged says it is still there
	}
	ts, err := r.temps.Create(ctx, name, 1, "", nil)
	if err != nil {
		return []deletion{d}
	}
	r.previous = name // the next fault deletes the new one
	r.wl.check = func(ctx context.Context) []judge.StressFinding {
		ns, err := r.env.Clients.Kube.CoreV1().Namespaces().Get(ctx, teamspace.NamespaceName(name), metav1.GetOptions{})
		if err != nil {
			return nil // converged says it is missing
		}
		if teamspace.HasOwnerReference(ns.OwnerReferences, ts.UID) && !teamspace.HasOwnerReference(ns.OwnerReferences, types.UID(d.uid)) {
			return nil
		}
		var owners []string
		for _, o := range ns.OwnerReferences {
			owners = append(owners, string(o.UID))
		}
		return []judge.StressFinding{{Property: judge.StressOwner,
			Found:    tr("stress.found.owner", "Namespace", ns.Name, "Owners", fmt.Sprint(owners), "Old", d.uid),
			Expected: tr("stress.expected.owner", "Name", name, "UID", string(ts.UID))}}
	}
	sleep(ctx, r.opts.Hold/2)
	return []deletion{d}
}

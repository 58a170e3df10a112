package stress

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/teamspace"
)

// poisonCPU is a spec.cpu that the lab text's CRD lets through (a
// string) and no quota takes: ResourceQuota refuses it (422, "quantities
// must match the regular expression"). cnpa's own CRD refuses it
// already, by a pattern; then the poison is a TeamSpace whose namespace
// is someone else's (poisonForeign).
const poisonCPU = "lots"

// poison is a TeamSpace that is valid for the CRD and that no controller
// can serve, named to come first in a list of TeamSpaces (a list is in
// name order): a pass that stops at its first error (`set -e`) never
// reaches the others. Meanwhile the workload of every fault (b1 edited,
// one TeamSpace made, the one before deleted). The poison is left out of
// converged, and judged by stable: its controller must not rewrite it on
// every pass. It is deleted once judged, with the namespace that made it
// impossible.
func (r *runner) poison(ctx context.Context) []deletion {
	name := check.TempPrefix + "0000" + randomHex(1)
	r.wl.skip = map[string]bool{name: true}
	foreign := ""
	if _, err := r.temps.Create(ctx, name, 2, poisonCPU, nil); apierrors.IsInvalid(err) {
		// The CRD refuses "lots": team-<name> made someone else's
		// first (as check's foreign-namespace probe makes it), so that
		// no quota can be made for it without taking that over.
		foreign = teamspace.NamespaceName(name)
		r.temps.RememberNamespace(foreign)
		_, _ = r.env.Clients.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name: foreign, Labels: map[string]string{"owner": check.ForeignNamespaceOwner}}},
			metav1.CreateOptions{FieldManager: check.FieldManager})
		_, _ = r.temps.Create(ctx, name, 2, "", nil)
	}
	r.wl.done = func(ctx context.Context) {
		_ = r.temps.Discard(ctx, name)
		if foreign != "" {
			r.temps.DeleteNamespace(ctx, foreign)
		}
	}
	deleted := r.workload(ctx)
	sleep(ctx, r.opts.Hold)
	return deleted
}

package check

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/cnpa/internal/teamspace"
)

// pending says what a TeamSpace still lacks for the controller to have
// nothing to do, or "" when it is converged (teamspace.FindGaps). A spec the
// controller refuses, or a namespace it must not adopt, leaves it nothing
// to do but the finalizer.
func pending(ts *teamspace.TeamSpace, ns *corev1.Namespace, q *corev1.ResourceQuota, finalizerOn bool) string {
	gaps, _ := teamspace.FindGaps(ts, ns, q, finalizerOn)
	for _, g := range gaps {
		// cnpa's engines leave a namespace whose ownerReference is not
		// marked controller alone (NamespaceConflict): not theirs to close.
		if g.Kind != teamspace.GapNamespaceController {
			return g.String()
		}
	}
	return ""
}

// quotaSettled tells whether the quota controller has caught up with a
// quota: status.hard holds exactly spec.hard. Until then it will write the
// quota, and that write must not be blamed on reconcile.sh.
func quotaSettled(q *corev1.ResourceQuota) bool {
	if len(q.Status.Hard) != len(q.Spec.Hard) {
		return false
	}
	for name, want := range q.Spec.Hard {
		got, ok := q.Status.Hard[name]
		if !ok || got.Cmp(want) != 0 {
			return false
		}
	}
	return true
}

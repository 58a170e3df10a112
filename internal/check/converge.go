package check

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/cnpa/internal/teamspace"
)

// Pending says what a TeamSpace still lacks by LAB.md, or "" when it is
// converged (teamspace.FindGaps). What cnpa's own engines add beyond
// LAB.md (the quota's label, the controller mark) is not owed: the
// learner's controller may leave it out. A spec no controller can serve,
// or a namespace it must not adopt, leaves nothing owed but the finalizer.
func Pending(ts *teamspace.TeamSpace, ns *corev1.Namespace, q *corev1.ResourceQuota, finalizerOn bool) string {
	if g := FirstGap(ts, ns, q, finalizerOn); g != nil {
		return g.String()
	}
	return ""
}

// FirstGap is the first thing a TeamSpace still lacks by LAB.md (see
// Pending), nil when it is converged: step 4's probe tells a quota's gap
// from the others by its kind.
func FirstGap(ts *teamspace.TeamSpace, ns *corev1.Namespace, q *corev1.ResourceQuota, finalizerOn bool) *teamspace.Gap {
	gaps, _ := teamspace.FindGaps(ts, ns, q, finalizerOn)
	if lab := gaps.Lab(); len(lab) > 0 {
		return &lab[0]
	}
	return nil
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

package check

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/cnpa/internal/teamspace"
)

// pending says what a TeamSpace still lacks for the controller to have
// nothing to do, or "" when it is converged: its namespace labelled and
// owned by it, team-quota holding its spec, status caught up, and our
// finalizer when finalizer handling is on. A spec the controller refuses,
// or a namespace it must not adopt, also leaves it nothing to do.
func pending(ts *teamspace.TeamSpace, ns *corev1.Namespace, q *corev1.ResourceQuota, finalizerOn bool) string {
	d, err := teamspace.DesiredState(ts)
	if err != nil {
		return ""
	}
	switch {
	case ns == nil:
		return "namespace " + d.Namespace + " missing"
	case !teamspace.OwnedBy(ns.OwnerReferences, ts.UID):
		return "" // not ours: left alone by design
	case ns.Labels[teamspace.OwnerLabel] != ts.Name:
		return fmt.Sprintf("namespace %s label %s=%q", d.Namespace, teamspace.OwnerLabel, ns.Labels[teamspace.OwnerLabel])
	case q == nil:
		return d.Namespace + "/" + teamspace.QuotaName + " missing"
	case !d.QuotaMatches(q.Spec.Hard):
		pods, cpu := q.Spec.Hard[corev1.ResourcePods], q.Spec.Hard[corev1.ResourceRequestsCPU]
		return fmt.Sprintf("%s/%s pods=%s cpu=%s, spec asks pods=%s cpu=%s", d.Namespace, teamspace.QuotaName,
			pods.String(), cpu.String(), d.Pods.String(), d.CPU.String())
	case q.Labels[teamspace.OwnerLabel] != ts.Name:
		return fmt.Sprintf("%s/%s label %s=%q", d.Namespace, teamspace.QuotaName, teamspace.OwnerLabel, q.Labels[teamspace.OwnerLabel])
	case ts.Status.ObservedGeneration != ts.Generation || ts.Status.Namespace != d.Namespace:
		return fmt.Sprintf("status observedGeneration=%d namespace=%q, generation %d", ts.Status.ObservedGeneration, ts.Status.Namespace, ts.Generation)
	case finalizerOn && !teamspace.HasFinalizer(ts.Finalizers, teamspace.Finalizer):
		return fmt.Sprintf("finalizers %v lack %s", ts.Finalizers, teamspace.Finalizer)
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

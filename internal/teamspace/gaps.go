package teamspace

import (
	"errors"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// GapKind names one way the cluster can differ from what a TeamSpace asks.
type GapKind string

// The gaps a reconcile pass closes, in the order a pass closes them.
const (
	// GapFinalizer: our finalizer is missing while finalizer handling is on
	// (LAB.md step 6).
	GapFinalizer GapKind = "finalizer"
	// GapNamespace: team-<name> does not exist (LAB.md step 3).
	GapNamespace GapKind = "namespace"
	// GapNamespaceLabel: team-<name> lacks the owner label (LAB.md step 3).
	GapNamespaceLabel GapKind = "namespace-label"
	// GapNamespaceController: team-<name>'s ownerReference to the TeamSpace
	// is not marked controller. LAB.md asks only for an ownerReference;
	// cnpa's engines mark it, so this is a habit gap.
	GapNamespaceController GapKind = "namespace-controller"
	// GapQuota: team-quota does not exist (LAB.md step 3).
	GapQuota GapKind = "quota"
	// GapQuotaHard: team-quota's spec.hard differs from the spec (LAB.md
	// steps 3 and 5).
	GapQuotaHard GapKind = "quota-hard"
	// GapQuotaLabel: team-quota lacks the owner label. LAB.md does not ask
	// for it; cnpa's engines set it, so this is a habit gap.
	GapQuotaLabel GapKind = "quota-label"
	// GapStatus: status.observedGeneration or status.namespace lags the
	// object (LAB.md step 3).
	GapStatus GapKind = "status"
)

// Gap is one difference between desired and actual state.
type Gap struct {
	Kind GapKind
	// Detail says what is there and what should be, in the words the
	// checks and the status table print.
	Detail string
}

func (g Gap) String() string { return g.Detail }

// Habit tells whether the gap is one of cnpa's own conventions rather than
// something LAB.md requires: a learner's controller may leave it open.
func (g Gap) Habit() bool { return g.Kind == GapQuotaLabel || g.Kind == GapNamespaceController }

// Gaps is the list of what a TeamSpace still lacks.
type Gaps []Gap

// Has tells whether a gap of kind k is in the list.
func (gs Gaps) Has(k GapKind) bool {
	for _, g := range gs {
		if g.Kind == k {
			return true
		}
	}
	return false
}

// Lab drops the habit gaps: what is left is what LAB.md requires.
func (gs Gaps) Lab() Gaps {
	var out Gaps
	for _, g := range gs {
		if !g.Habit() {
			out = append(out, g)
		}
	}
	return out
}

// ForeignNamespaceError says that team-<name> exists but does not belong to
// the TeamSpace: a controller must never adopt it, because the TeamSpace's
// deletion would then take someone else's namespace with it.
type ForeignNamespaceError struct {
	Namespace string
	UID       types.UID
}

func (e *ForeignNamespaceError) Error() string {
	return fmt.Sprintf("namespace %s exists and is not owned by this TeamSpace (uid %s)", e.Namespace, e.UID)
}

// FindGaps is the one definition of "converged": it lists what differs
// between a TeamSpace and the cluster objects that serve it (ns and q nil
// when they do not exist), in the order a pass closes them. No gaps and no
// error means converged.
//
// The error is non-nil when no controller can close the remaining gaps: an
// *InvalidSpecError (the spec cannot be served) or a *ForeignNamespaceError
// (the namespace is someone else's). The gaps then hold only what can still
// be closed, the finalizer. A TeamSpace whose name can never be served gets
// no finalizer either: nothing would be archived under that name, and its
// deletion must not wait for a controller that cannot act.
func FindGaps(ts *TeamSpace, ns *corev1.Namespace, q *corev1.ResourceQuota, finalizerOn bool) (Gaps, error) {
	var gaps Gaps
	d, err := DesiredState(ts)
	var invalid *InvalidSpecError
	badName := errors.As(err, &invalid) && invalid.Field == "metadata.name"
	if finalizerOn && !badName && !HasFinalizer(ts.Finalizers, Finalizer) {
		gaps = append(gaps, Gap{GapFinalizer, fmt.Sprintf("finalizers %v lack %s", ts.Finalizers, Finalizer)})
	}
	if err != nil {
		return gaps, err
	}
	switch {
	case ns == nil:
		gaps = append(gaps, Gap{GapNamespace, "namespace " + d.Namespace + " missing"})
	case !HasOwnerReference(ns.OwnerReferences, ts.UID):
		return gaps, &ForeignNamespaceError{Namespace: d.Namespace, UID: ts.UID}
	default:
		if !OwnedBy(ns.OwnerReferences, ts.UID) {
			gaps = append(gaps, Gap{GapNamespaceController, fmt.Sprintf("namespace %s ownerReference to uid %s is not marked controller", d.Namespace, ts.UID)})
		}
		if ns.Labels[OwnerLabel] != ts.Name {
			gaps = append(gaps, Gap{GapNamespaceLabel, fmt.Sprintf("namespace %s label %s=%q", d.Namespace, OwnerLabel, ns.Labels[OwnerLabel])})
		}
	}
	switch {
	case q == nil:
		gaps = append(gaps, Gap{GapQuota, d.Namespace + "/" + QuotaName + " missing"})
	case !d.QuotaMatches(q.Spec.Hard):
		pods, cpu := q.Spec.Hard[corev1.ResourcePods], q.Spec.Hard[corev1.ResourceRequestsCPU]
		detail := fmt.Sprintf("%s/%s pods=%s cpu=%s, spec asks pods=%s cpu=%s", d.Namespace, QuotaName,
			pods.String(), cpu.String(), d.Pods.String(), d.CPU.String())
		if extra := ExtraHard(q.Spec.Hard); len(extra) > 0 {
			detail += fmt.Sprintf(" and nothing else (extra %v)", extra)
		}
		gaps = append(gaps, Gap{GapQuotaHard, detail})
	}
	if q != nil && q.Labels[OwnerLabel] != ts.Name {
		gaps = append(gaps, Gap{GapQuotaLabel, fmt.Sprintf("%s/%s label %s=%q", d.Namespace, QuotaName, OwnerLabel, q.Labels[OwnerLabel])})
	}
	if ts.Status.ObservedGeneration != ts.Generation || ts.Status.Namespace != d.Namespace {
		gaps = append(gaps, Gap{GapStatus, fmt.Sprintf("status observedGeneration=%d namespace=%q, generation %d",
			ts.Status.ObservedGeneration, ts.Status.Namespace, ts.Generation)})
	}
	return gaps, nil
}

// ExtraHard lists the entries of a quota's spec.hard beyond pods and
// requests.cpu, sorted.
func ExtraHard(hard corev1.ResourceList) []string {
	var extra []string
	for name := range hard {
		if name != corev1.ResourcePods && name != corev1.ResourceRequestsCPU {
			extra = append(extra, string(name))
		}
	}
	sort.Strings(extra)
	return extra
}

// HasOwnerReference tells whether refs holds any ownerReference to the
// TeamSpace uid: what LAB.md asks of team-<name>, and what garbage
// collection needs to remove it once the TeamSpace is gone.
func HasOwnerReference(refs []metav1.OwnerReference, uid types.UID) bool {
	for _, r := range refs {
		if r.UID == uid && r.Kind == Kind {
			return true
		}
	}
	return false
}

// QuotaPods is a quota's spec.hard.pods as the API prints it ("6"), or ""
// when q is nil or has none: the steps' waits and the timeline both
// compare and show it so.
func QuotaPods(q *corev1.ResourceQuota) string {
	if q == nil {
		return ""
	}
	p, ok := q.Spec.Hard[corev1.ResourcePods]
	if !ok {
		return ""
	}
	return p.String()
}

package teamspace

import (
	"errors"
	"fmt"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/i18n"
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
	// Args are what is there and what should be (the namespace, the
	// finalizers, …), the values String names.
	Args map[string]string
}

// gapIDs are each gap's words in the catalog (teamspace.gap.*).
var gapIDs = map[GapKind]string{
	GapFinalizer: "finalizer", GapNamespace: "namespace", GapNamespaceLabel: "namespace_label",
	GapNamespaceController: "namespace_controller", GapQuota: "quota", GapQuotaHard: "quota_hard",
	GapQuotaLabel: "quota_label", GapStatus: "status",
}

// String says the gap, what is there and what should be, in the chosen
// language: the words the checks and the steps print. Only they ask for
// it: the controller decides by Kind and says nothing of a gap.
func (g Gap) String() string {
	id := "teamspace.gap." + gapIDs[g.Kind]
	if g.Kind == GapQuotaHard && g.Args["Extra"] != "" {
		id += "_extra"
	}
	args := i18n.Args{}
	for k, v := range g.Args {
		args[k] = v
	}
	return i18n.T(id, args)
}

// gap is a Gap of kind k with its values as name, value pairs.
func gap(k GapKind, kv ...string) Gap {
	g := Gap{Kind: k, Args: map[string]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		g.Args[kv[i]] = kv[i+1]
	}
	return g
}

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
	return i18n.T("teamspace.foreign", i18n.Args{"Namespace": e.Namespace, "UID": string(e.UID)})
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
		gaps = append(gaps, gap(GapFinalizer, "Finalizers", fmt.Sprint(ts.Finalizers), "Finalizer", Finalizer))
	}
	if err != nil {
		return gaps, err
	}
	switch {
	case ns == nil:
		gaps = append(gaps, gap(GapNamespace, "Namespace", d.Namespace))
	case !HasOwnerReference(ns.OwnerReferences, ts.UID):
		return gaps, &ForeignNamespaceError{Namespace: d.Namespace, UID: ts.UID}
	default:
		if !OwnedBy(ns.OwnerReferences, ts.UID) {
			gaps = append(gaps, gap(GapNamespaceController, "Namespace", d.Namespace, "UID", string(ts.UID)))
		}
		if ns.Labels[OwnerLabel] != ts.Name {
			gaps = append(gaps, gap(GapNamespaceLabel, "Namespace", d.Namespace, "Label", OwnerLabel, "Value", strconv.Quote(ns.Labels[OwnerLabel])))
		}
	}
	switch {
	case q == nil:
		gaps = append(gaps, gap(GapQuota, "Quota", d.Namespace+"/"+QuotaName))
	case !d.QuotaMatches(q.Spec.Hard):
		pods, cpu := q.Spec.Hard[corev1.ResourcePods], q.Spec.Hard[corev1.ResourceRequestsCPU]
		g := gap(GapQuotaHard, "Quota", d.Namespace+"/"+QuotaName, "Pods", pods.String(), "CPU", cpu.String(),
			"WantPods", d.Pods.String(), "WantCPU", d.CPU.String())
		if extra := ExtraHard(q.Spec.Hard); len(extra) > 0 {
			g.Args["Extra"] = fmt.Sprint(extra)
		}
		gaps = append(gaps, g)
	}
	if q != nil && q.Labels[OwnerLabel] != ts.Name {
		gaps = append(gaps, gap(GapQuotaLabel, "Quota", d.Namespace+"/"+QuotaName, "Label", OwnerLabel, "Value", strconv.Quote(q.Labels[OwnerLabel])))
	}
	if ts.Status.ObservedGeneration != ts.Generation || ts.Status.Namespace != d.Namespace {
		gaps = append(gaps, gap(GapStatus, "Observed", fmt.Sprint(ts.Status.ObservedGeneration), "Namespace", strconv.Quote(ts.Status.Namespace),
			"Generation", fmt.Sprint(ts.Generation)))
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

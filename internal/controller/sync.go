package controller

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/archive"
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Keys of c.written: the writes a sync must not repeat from a cache that
// has not caught up with them yet.
const (
	writtenFinalizer = "finalizer/"
	writtenStatus    = "status/"
	writtenNamespace = "namespace/"
	writtenQuota     = "quota/"
)

// namespaceAdmissionWait is how long kube-apiserver's NamespaceLifecycle
// admission waits for a namespace it has not seen
// (k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle); waiting
// longer on our side gains nothing.
const namespaceAdmissionWait = 50 * time.Millisecond

// Event reasons, visible in `kubectl describe teamspace`.
const (
	ReasonSynced            = "Synced"
	ReasonDriftCorrected    = "DriftCorrected"
	ReasonArchived          = "Archived"
	ReasonInvalidSpec       = "InvalidSpec"
	ReasonNamespaceConflict = "NamespaceConflict"
	ReasonArchiveFailed     = "ArchiveFailed"
)

// skipError marks a TeamSpace that cannot converge until a human acts
// (invalid spec, foreign namespace). The sync already warned through an
// event; the caller must not retry with backoff, the resync looks again.
type skipError struct{ err error }

func (e skipError) Error() string { return e.err.Error() }
func (e skipError) Unwrap() error { return e.err }

func skip(err error) error { return skipError{err} }

// refusedNames are the TeamSpace names sync refused, already logged.
var refusedNames sync.Map

func isSkip(err error) bool {
	var s skipError
	return errors.As(err, &s)
}

// sync converges one TeamSpace from the current state only. Phases:
//  1. get it (gone → nothing to do);
//  2. being deleted → archive it and remove our finalizer, nothing else
//     (from its metadata alone when its spec does not decode);
//  3. ensure our finalizer (when enabled), keeping every other one; this
//     patch runs concurrently with 4–6;
//  4. compute the desired state (invalid → warn, stop here);
//  5. ensure the namespace, never adopting a stranger's;
//  6. ensure the quota;
//  7. once 3–6 are done, write status through /status, only when it
//     differs.
//
// A pass where everything already matches makes no request at all: every
// comparison is against the listers, and c.written covers the moments
// when the listers lag behind this controller's own writes.
func (c *Controller) sync(ctx context.Context, name string) error {
	// Known in order only if this sync finds it so, below.
	c.inOrder.forget(name)
	if err := evidence.CheckName(name); err != nil {
		// A real API server never serves such a name; a hostile one can
		// (a port left by a stress run that died, R4-5). Nothing is built
		// from it, neither an archive path nor a namespace: said once per
		// name, then skipped at every pass.
		if _, said := refusedNames.LoadOrStore(name, true); !said {
			c.log.Error("refusing a TeamSpace whose name is no Kubernetes name: nothing is built from it", "teamspace", name, "err", err)
		}
		return skip(err)
	}
	obj, err := c.teamSpaces.Get(name)
	if apierrors.IsNotFound(err) {
		return nil // deleted; the namespace goes by garbage collection
	}
	if err != nil {
		return err
	}
	// Never modify the cache: work on a copy.
	u := obj.(*unstructured.Unstructured).DeepCopy()
	if u.GetDeletionTimestamp() != nil {
		// Before decoding the whole object: finalizing needs only its
		// metadata and pods, and a spec that does not decode (possible
		// under a weaker schema) must not block its deletion forever.
		ts, podsKnown, problem := teamspace.Finalizable(u)
		if problem != nil && teamspace.HasFinalizer(ts.Finalizers, teamspace.Finalizer) {
			pods := fmt.Sprintf("pods %d", ts.Spec.Pods)
			if !podsKnown {
				pods = "pods 0: spec.pods is not a whole number"
			}
			c.warn(u, ReasonInvalidSpec, "cannot read TeamSpace: %v; it is being deleted, so it is archived from its name and uid (%s) and released", problem, pods)
		}
		return c.finalize(ctx, u, ts)
	}
	ts, err := teamspace.FromUnstructured(u)
	if err != nil {
		c.warn(u, ReasonInvalidSpec, "cannot read TeamSpace: %v", err)
		return skip(err)
	}
	nsName := teamspace.NamespaceName(name)
	ns, quota, err := c.cachedObjects(name)
	if err != nil {
		return err
	}
	// The listers hold only labelled namespaces: one that exists without
	// our label looks missing here, and ensureNamespace finds out why.
	gaps, blocked := teamspace.FindGaps(ts, ns, quota, c.cfg.Finalizer)

	// The finalizer patch runs beside the namespace and quota writes: it
	// touches only the TeamSpace, and a new TeamSpace would otherwise wait
	// one more round trip for its namespace. Status waits for it below.
	finalizerDone := func() error { return nil }
	if gaps.Has(teamspace.GapFinalizer) && !c.written.pending(writtenFinalizer+name, string(ts.UID)) {
		errc := make(chan error, 1)
		go func() {
			errc <- c.setFinalizers(ctx, ts, append(append([]string{}, ts.Finalizers...), teamspace.Finalizer), writtenFinalizer)
		}()
		finalizerDone = sync.OnceValue(func() error {
			if err := <-errc; err != nil {
				return fmt.Errorf("add finalizer: %w", err)
			}
			return nil
		})
	}
	// Every return below waits for the patch first: a sync is not over
	// while one of its writes is in flight.
	defer finalizerDone()

	var invalid *teamspace.InvalidSpecError
	if errors.As(blocked, &invalid) {
		// Invalid spec: keep the quota's last good values and do not advance
		// status; a retry would fail the same way, so do not requeue.
		c.warn(u, ReasonInvalidSpec, "%v; the quota keeps its last good values until it is fixed", blocked)
		return errors.Join(skip(blocked), finalizerDone())
	}
	if blocked != nil || gaps.Has(teamspace.GapNamespaceController) {
		return errors.Join(c.conflict(u, ts, nsName), finalizerDone())
	}
	desired, err := teamspace.DesiredState(ts)
	if err != nil {
		return errors.Join(err, finalizerDone())
	}
	changed := false
	if gaps.Has(teamspace.GapNamespace) || gaps.Has(teamspace.GapNamespaceLabel) {
		if changed, err = c.ensureNamespace(ctx, u, ts, ns, desired); err != nil {
			return errors.Join(err, finalizerDone())
		}
	}
	if gaps.Has(teamspace.GapQuota) || gaps.Has(teamspace.GapQuotaHard) || gaps.Has(teamspace.GapQuotaLabel) {
		quotaChanged, err := c.ensureQuota(ctx, u, ts, quota, desired)
		if err != nil {
			return errors.Join(err, finalizerDone())
		}
		changed = changed || quotaChanged
	}
	if err := finalizerDone(); err != nil {
		return err
	}
	statusIntent := fmt.Sprintf("%s/%d/%s", ts.UID, ts.Generation, desired.Namespace)
	if gaps.Has(teamspace.GapStatus) && !c.written.pending(writtenStatus+name, statusIntent) {
		patch, _ := json.Marshal(map[string]any{"status": map[string]any{
			"observedGeneration": ts.Generation, "namespace": desired.Namespace}})
		c.written.begin(writtenStatus+name, statusIntent)
		out, err := c.dyn.Resource(teamspace.GVR).Patch(ctx, name, types.MergePatchType, patch,
			metav1.PatchOptions{FieldManager: teamspace.FieldManager}, "status")
		c.written.end(writtenStatus+name, resourceVersion(out), err)
		if err != nil {
			return fmt.Errorf("write status: %w", err)
		}
		changed = true
	}
	if len(gaps) == 0 {
		// Nothing was written, nothing failed: the periodic pass need not
		// look again until one of these three objects changes (inorder.go).
		c.inOrder.found(name, inputsOf(u, ns, quota))
	}
	if changed {
		c.event(u, corev1.EventTypeNormal, ReasonSynced, "namespace %s and quota pods=%s cpu=%s in place for generation %d",
			desired.Namespace, desired.Pods.String(), desired.CPU.String(), ts.Generation)
	}
	return nil
}

// finalize keeps our finalizer's promise (package archive) with the
// controller's policy, archive.KeepFinalizer: a record that cannot be
// written keeps the TeamSpace, and its deletion, waiting.
func (c *Controller) finalize(ctx context.Context, u *unstructured.Unstructured, ts *teamspace.TeamSpace) error {
	if c.released.has(ts.UID) {
		// Released by an earlier pass; the cache has not caught up
		// (released.go). Writing the record again could bring it back
		// after whoever deleted the TeamSpace has seen it gone and removed
		// the record (cnpa check does, for its temporary TeamSpaces).
		return nil
	}
	out, err := archive.ThenRelease(ts, archive.KeepFinalizer,
		func(rec evidence.ArchiveRecord) error {
			if err := evidence.WriteArchive(c.cfg.ArchiveDir, rec); err != nil {
				return err
			}
			afterArchive()
			return nil
		},
		func(finalizers []string) error { return c.setFinalizers(ctx, ts, finalizers, "") })
	switch {
	case out.ArchiveErr != nil:
		// The finalizer stays: deletion is blocked until the record is on
		// disk. Returning the error retries with backoff.
		c.warn(u, ReasonArchiveFailed, "cannot write the archive record, deletion stays blocked: %v", err)
		return fmt.Errorf("archive: %w", err)
	case apierrors.IsNotFound(err):
		// Already gone: an earlier pass released it and the cache had not
		// caught up yet. The record is on disk; nothing is owed, now or at
		// the next pass over the same stale cache.
		c.released.add(ts.UID)
		return nil
	case err != nil:
		return fmt.Errorf("remove finalizer: %w", err)
	case !out.Ours:
		return nil // not ours to hold; other finalizers belong to others
	}
	c.released.add(ts.UID)
	c.metrics.archived.Inc()
	c.event(u, corev1.EventTypeNormal, ReasonArchived, "archived to %s/%s.json; finalizer %s removed",
		c.cfg.ArchiveDir, ts.Name, teamspace.Finalizer)
	return nil
}

// setFinalizers writes the whole finalizer list, guarded by the
// resourceVersion we read (teamspace.SetFinalizers): a 409 makes us retry
// from fresh state instead of dropping another controller's entry.
//
// memo names the write in c.written ("" for none): the finalizer added to
// a new TeamSpace must not be patched in again from a cache that has not
// seen it yet (that would only earn a 409). The release needs none:
// c.released keeps a released TeamSpace from being archived again (see
// finalize).
func (c *Controller) setFinalizers(ctx context.Context, ts *teamspace.TeamSpace, finalizers []string, memo string) error {
	if memo != "" {
		c.written.begin(memo+ts.Name, string(ts.UID))
	}
	out, err := teamspace.SetFinalizers(ctx, c.dyn, ts, finalizers, teamspace.FieldManager)
	if memo != "" {
		c.written.end(memo+ts.Name, resourceVersion(out), err)
	}
	return err
}

// ensureNamespace closes the namespace gaps: team-<name> exists, is
// labelled and is owned by this TeamSpace. ns is the lister's copy, nil when
// the lister has none. A namespace that exists without our ownerReference
// is never adopted: adopting would let this TeamSpace's deletion remove
// someone else's namespace.
func (c *Controller) ensureNamespace(ctx context.Context, u *unstructured.Unstructured, ts *teamspace.TeamSpace, ns *corev1.Namespace, d *teamspace.Desired) (bool, error) {
	if ns == nil && c.written.pending(writtenNamespace+d.Namespace, string(ts.UID)) {
		return false, nil // created by an earlier pass; its event is on the way
	}
	if ns == nil {
		// Not in the cache of labelled namespaces: create it, or find out
		// why it exists without our label.
		c.written.begin(writtenNamespace+d.Namespace, string(ts.UID))
		created, err := c.kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name:            d.Namespace,
			Labels:          map[string]string{teamspace.OwnerLabel: ts.Name},
			OwnerReferences: []metav1.OwnerReference{ts.OwnerReference()},
		}}, metav1.CreateOptions{FieldManager: teamspace.FieldManager})
		c.written.end(writtenNamespace+d.Namespace, resourceVersion(created), err)
		if err == nil {
			return true, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return false, fmt.Errorf("create namespace %s: %w", d.Namespace, err)
		}
		if ns, err = c.kube.CoreV1().Namespaces().Get(ctx, d.Namespace, metav1.GetOptions{}); err != nil {
			return false, fmt.Errorf("get namespace %s: %w", d.Namespace, err)
		}
		if !teamspace.OwnsNamespace(ts.Name, ts.UID, ns) {
			return false, c.conflict(u, ts, d.Namespace)
		}
	}
	if ns.Labels[teamspace.OwnerLabel] == ts.Name {
		return false, nil
	}
	patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"labels": map[string]string{teamspace.OwnerLabel: ts.Name}}})
	if _, err := c.kube.CoreV1().Namespaces().Patch(ctx, d.Namespace, types.MergePatchType, patch,
		metav1.PatchOptions{FieldManager: teamspace.FieldManager}); err != nil {
		return false, fmt.Errorf("label namespace %s: %w", d.Namespace, err)
	}
	c.drift(u, "namespace", "namespace %s label %s restored", d.Namespace, teamspace.OwnerLabel)
	return true, nil
}

// conflict warns that team-<name> is someone else's and leaves it alone.
func (c *Controller) conflict(u *unstructured.Unstructured, ts *teamspace.TeamSpace, ns string) error {
	c.warn(u, ReasonNamespaceConflict, "namespace %s exists and is not owned by this TeamSpace (uid %s); it is left alone: delete or rename it, or rename the TeamSpace",
		ns, ts.UID)
	return skip(fmt.Errorf("namespace %s exists and is not owned by this TeamSpace", ns))
}

// ensureQuota makes team-quota hold exactly the desired hard limits. A
// missing quota is created; a differing one is merge-patched: the patch
// sets pods and requests.cpu and removes every other limit. A server-side
// apply could not do the second: a limit added by hand (`kubectl patch`)
// belongs to another field manager, and an apply only removes what it
// owned itself.
func (c *Controller) ensureQuota(ctx context.Context, u *unstructured.Unstructured, ts *teamspace.TeamSpace, live *corev1.ResourceQuota, d *teamspace.Desired) (_ bool, err error) {
	memo, intent := writtenQuota+d.Namespace+"/"+teamspace.QuotaName, fmt.Sprintf("%s/%s/%s", ts.Name, d.Pods.String(), d.CPU.String())
	if c.written.pending(memo, intent) {
		return false, nil // written by an earlier pass; its event is on the way
	}
	missing := live == nil
	var out *corev1.ResourceQuota
	c.written.begin(memo, intent)
	defer func() { c.written.end(memo, resourceVersion(out), err) }()
	if missing {
		// kube-apiserver's NamespaceLifecycle admission sleeps 50 ms
		// before a create in a namespace its cache has not seen yet; one
		// just created by this sync is usually that new. Waiting for our
		// own informer to deliver it (1-3 ms) stands in for the server's.
		c.written.wait(writtenNamespace+d.Namespace, namespaceAdmissionWait)
		// A plain create: the server has no managed fields to merge, and
		// nobody else can own a field of an object that does not exist.
		out, err = c.kube.CoreV1().ResourceQuotas(d.Namespace).Create(ctx, &corev1.ResourceQuota{
			ObjectMeta: metav1.ObjectMeta{Name: teamspace.QuotaName, Namespace: d.Namespace,
				Labels: map[string]string{teamspace.OwnerLabel: ts.Name}},
			Spec: corev1.ResourceQuotaSpec{Hard: d.QuotaHard()},
		}, metav1.CreateOptions{FieldManager: teamspace.FieldManager})
	}
	if !missing || apierrors.IsAlreadyExists(err) {
		out, err = c.kube.CoreV1().ResourceQuotas(d.Namespace).Patch(ctx, teamspace.QuotaName, types.MergePatchType,
			quotaPatch(ts.Name, d, live), metav1.PatchOptions{FieldManager: teamspace.FieldManager})
	}
	if err != nil {
		return false, fmt.Errorf("write quota %s/%s: %w", d.Namespace, teamspace.QuotaName, err)
	}
	switch {
	case missing:
		if ts.Status.Namespace != "" {
			// It existed before (status says so): someone deleted it.
			c.drift(u, "quota", "quota %s/%s was missing and is recreated (pods=%s cpu=%s)",
				d.Namespace, teamspace.QuotaName, d.Pods.String(), d.CPU.String())
		}
	case ts.Status.ObservedGeneration == ts.Generation:
		// The spec did not move, so the quota did: a hand edit.
		oldPods, oldCPU := live.Spec.Hard[corev1.ResourcePods], live.Spec.Hard[corev1.ResourceRequestsCPU]
		removed := ""
		if extra := teamspace.ExtraHard(live.Spec.Hard); len(extra) > 0 {
			removed = fmt.Sprintf(", removed %v", extra)
		}
		c.drift(u, "quota", "quota %s/%s reverted: pods %s→%s, cpu %s→%s%s", d.Namespace, teamspace.QuotaName,
			oldPods.String(), d.Pods.String(), oldCPU.String(), d.CPU.String(), removed)
	}
	return true, nil
}

// quotaPatch is the merge patch that gives team-quota our label and exactly
// d's limits: every limit of live beyond them is set to null, which removes
// it. live is nil when the cache has no quota; a limit it missed is found
// and removed by the next pass.
func quotaPatch(name string, d *teamspace.Desired, live *corev1.ResourceQuota) []byte {
	hard := map[string]any{}
	if live != nil {
		for _, extra := range teamspace.ExtraHard(live.Spec.Hard) {
			hard[extra] = nil
		}
	}
	for k, v := range d.QuotaHard() {
		hard[string(k)] = v.String()
	}
	patch, _ := json.Marshal(map[string]any{
		"metadata": map[string]any{"labels": map[string]string{teamspace.OwnerLabel: name}},
		"spec":     map[string]any{"hard": hard},
	})
	return patch
}

// resourceVersion of a write's answer; "" when there is none.
func resourceVersion[T any, P interface {
	*T
	GetResourceVersion() string
}](obj P) string {
	if obj == nil {
		return ""
	}
	return obj.GetResourceVersion()
}

func (c *Controller) drift(u *unstructured.Unstructured, kind, format string, args ...any) {
	c.metrics.drift.WithLabelValues(kind).Inc()
	c.event(u, corev1.EventTypeNormal, ReasonDriftCorrected, format, args...)
}

// warn emits a Warning event once per TeamSpace generation and message, so
// a spec that stays invalid is not re-reported on every resync.
func (c *Controller) warn(u *unstructured.Unstructured, reason, format string, args ...any) {
	key := fmt.Sprintf("%s/%d/%s/%s", u.GetUID(), u.GetGeneration(), reason, fmt.Sprintf(format, args...))
	if _, seen := c.warned.LoadOrStore(key, true); seen {
		return
	}
	c.event(u, corev1.EventTypeWarning, reason, format, args...)
}

func (c *Controller) event(u *unstructured.Unstructured, typ, reason, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	c.log.Info("event", "teamspace", u.GetName(), "type", typ, "reason", reason, "message", msg)
	c.recorder.Eventf(u, typ, reason, "%s", msg)
}

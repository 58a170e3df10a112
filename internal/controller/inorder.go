package controller

import (
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/labhub/cnpa/internal/teamspace"
)

// inputs are the resourceVersions of the three cached objects a sync of
// one TeamSpace reads: the TeamSpace, its namespace and its quota ("" for
// one the cache does not hold).
type inputs struct{ teamSpace, namespace, quota string }

// inOrder remembers, per TeamSpace, the inputs of the last sync that found
// nothing to do. A sync decides from those three objects alone (and the
// controller's fixed configuration), and a resourceVersion names one
// content of one object: from the same three resourceVersions a sync
// reaches the same answer, nothing to do, without a look. The periodic
// pass uses it to skip those TeamSpaces (resync.go), so that at 10,000 a
// pass costs map lookups, not 10,000 syncs whose garbage kept the
// collector running over the whole cache while events were being served
// (issue 27). A TeamSpace whose namespace or quota changed, however the
// change reached the cache, has new inputs and is synced again: the pass
// still catches every change an event failed to deliver.
type inOrder struct{ m sync.Map }

// found records that a sync from in found nothing to do.
func (o *inOrder) found(name string, in inputs) { o.m.Store(name, in) }

// forget drops what is known of name: its sync wrote, failed, or found it
// gone.
func (o *inOrder) forget(name string) { o.m.Delete(name) }

// still tells whether in are the inputs of name's last sync that found
// nothing to do.
func (o *inOrder) still(name string, in inputs) bool {
	v, ok := o.m.Load(name)
	return ok && v.(inputs) == in
}

// cachedInputs reads the inputs of name's sync from the listers as the
// pass sees them now; ok is false when a lister fails, and the pass then
// syncs the TeamSpace rather than guess.
func (c *Controller) cachedInputs(u *unstructured.Unstructured) (in inputs, ok bool) {
	ns, quota, err := c.cachedObjects(u.GetName())
	if err != nil {
		return in, false
	}
	return inputsOf(u, ns, quota), true
}

// cachedObjects are the namespace and quota of TeamSpace name as the
// listers hold them, nil for one they do not; the sync and the pass read
// them so.
func (c *Controller) cachedObjects(name string) (*corev1.Namespace, *corev1.ResourceQuota, error) {
	nsName := teamspace.NamespaceName(name)
	ns, err := c.namespaces.Get(nsName)
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, nil, err
	}
	quota, err := c.quotas.ResourceQuotas(nsName).Get(teamspace.QuotaName)
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, nil, err
	}
	return ns, quota, nil
}

// inputsOf are the inputs of a sync that read u, ns and quota.
func inputsOf(u *unstructured.Unstructured, ns *corev1.Namespace, quota *corev1.ResourceQuota) inputs {
	in := inputs{teamSpace: u.GetResourceVersion()}
	if ns != nil {
		in.namespace = ns.ResourceVersion
	}
	if quota != nil {
		in.quota = quota.ResourceVersion
	}
	return in
}

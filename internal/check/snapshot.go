package check

import (
	"context"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Snapshot is the resourceVersion of every object reconcile.sh may write:
// each TeamSpace not being deleted, its namespace and the quotas in it.
// Objects on their way out are left out: the garbage collector and the
// namespace controller write them, not the script. Step 3's rerun probe
// compares them across its runs; `cnpa stress` reads what is pending
// (Unconverged).
type Snapshot struct {
	// RV is keyed "teamspace/alpha", "namespace/team-alpha",
	// "resourcequota/team-alpha/team-quota".
	RV map[string]string
	// Owner maps each key to the TeamSpace it belongs to.
	Owner map[string]string
	// Pending is, per TeamSpace that is not converged, what it lacks.
	Pending map[string]string
	// Unsettled lists quotas the quota controller had not caught up with
	// (quotaSettled): until it does it writes them itself.
	Unsettled []string
}

// ReadSnapshot reads the Snapshot of the cluster now; finalizerOn: ours
// is owed too.
func ReadSnapshot(ctx context.Context, env *labenv.Env, finalizerOn bool) (*Snapshot, error) {
	s := &Snapshot{RV: map[string]string{}, Owner: map[string]string{}, Pending: map[string]string{}}
	tsList, err := env.Clients.Dynamic.Resource(teamspace.GVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list teamspaces: %w", err)
	}
	nsList, err := env.Clients.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	qList, err := env.Clients.Kube.CoreV1().ResourceQuotas(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list resourcequotas: %w", err)
	}
	live := map[types.UID]*teamspace.TeamSpace{}
	byName := map[string]*teamspace.TeamSpace{}
	for i := range tsList.Items {
		ts, err := teamspace.FromUnstructured(&tsList.Items[i])
		if err != nil || ts.DeletionTimestamp != nil {
			continue
		}
		live[ts.UID], byName[ts.Name] = ts, ts
		key := "teamspace/" + ts.Name
		s.RV[key], s.Owner[key] = ts.ResourceVersion, ts.Name
	}
	// A namespace is in scope when it is team-<name> of a live TeamSpace, or
	// labelled and owned by one; a terminating one is on its way out.
	nsOwner := map[string]string{}
	namespaces := map[string]*corev1.Namespace{}
	for i := range nsList.Items {
		ns := &nsList.Items[i]
		if ns.DeletionTimestamp != nil {
			continue
		}
		owner := ""
		if ts, ok := byName[strings.TrimPrefix(ns.Name, teamspace.NamespacePrefix)]; ok && ns.Name == teamspace.NamespaceName(ts.Name) {
			owner = ts.Name
		}
		for _, ref := range ns.OwnerReferences {
			if ts, ok := live[ref.UID]; ok && ns.Labels[teamspace.OwnerLabel] != "" {
				owner = ts.Name
			}
		}
		if owner == "" {
			continue
		}
		nsOwner[ns.Name], namespaces[ns.Name] = owner, ns
		key := "namespace/" + ns.Name
		s.RV[key], s.Owner[key] = ns.ResourceVersion, owner
	}
	quotas := map[string]*corev1.ResourceQuota{}
	for i := range qList.Items {
		q := &qList.Items[i]
		owner, ok := nsOwner[q.Namespace]
		if !ok {
			continue
		}
		key := "resourcequota/" + q.Namespace + "/" + q.Name
		s.RV[key], s.Owner[key] = q.ResourceVersion, owner
		if !quotaSettled(q) {
			s.Unsettled = append(s.Unsettled, q.Namespace+"/"+q.Name)
		}
		if q.Name == teamspace.QuotaName {
			quotas[q.Namespace] = q
		}
	}
	for _, ts := range byName {
		ns := teamspace.NamespaceName(ts.Name)
		if p := Pending(ts, namespaces[ns], quotas[ns], finalizerOn); p != "" {
			s.Pending[ts.Name] = p
		}
	}
	sort.Strings(s.Unsettled)
	return s, nil
}

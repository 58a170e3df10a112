package reset

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/poll"
	"github.com/labhub/cnpa/internal/teamspace"
)

// clusterListing is what of the cluster a reset removes, worked out once
// by listCluster: Inspect shows it to the learner, Run acts on it.
type clusterListing struct {
	// crd: the TeamSpace CRD exists (and with it, maybe, TeamSpaces).
	crd bool
	// teamSpaces are every TeamSpace: all of them are the lab's.
	teamSpaces []unstructured.Unstructured
	// namespaces are those ourNamespaces calls the lab's, by name.
	namespaces []corev1.Namespace
	// dependents are team-<name> namespaces that are not ours to delete
	// but that the garbage collector deletes with their TeamSpace: a
	// learner's script may set an ownerReference without controller:
	// true, which LAB.md does not ask for. Reset waits for them, so that
	// a step 1 right after it does not find team-alpha still there.
	dependents []string
}

// listCluster lists what is the lab's in the cluster now.
func listCluster(ctx context.Context, env *labenv.Env) (*clusterListing, error) {
	l := &clusterListing{}
	crd, err := crdExists(ctx, env)
	if err != nil {
		return nil, err
	}
	l.crd = crd
	if crd {
		list, err := listTeamSpaces(ctx, env)
		if err != nil {
			return nil, err
		}
		l.teamSpaces = list.Items
	}
	all, err := env.Clients.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	o := owners(l.teamSpaces)
	l.namespaces = ourNamespaces(o, all.Items)
	l.dependents = dependentNamespaces(o, all.Items)
	return l, nil
}

// owners maps every TeamSpace's name to its uid: the owners ourNamespaces
// judges namespaces against.
func owners(teamSpaces []unstructured.Unstructured) map[string]types.UID {
	o := make(map[string]types.UID, len(teamSpaces))
	for _, u := range teamSpaces {
		o[u.GetName()] = u.GetUID()
	}
	return o
}

// ourNamespaces are those of all that are the lab's (ourNamespace), by name.
func ourNamespaces(owners map[string]types.UID, all []corev1.Namespace) []corev1.Namespace {
	var out []corev1.Namespace
	for _, ns := range all {
		if ourNamespace(owners, &ns) {
			out = append(out, ns)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// dependentNamespaces are the names of team-<name> namespaces with any
// ownerReference to the uid of TeamSpace <name> that ourNamespace does not
// call ours: the garbage collector deletes them after their TeamSpace.
func dependentNamespaces(owners map[string]types.UID, all []corev1.Namespace) []string {
	var out []string
	for _, ns := range all {
		name, ok := strings.CutPrefix(ns.Name, teamspace.NamespacePrefix)
		if !ok || ourNamespace(owners, &ns) {
			continue
		}
		if uid, ok := owners[name]; ok && teamspace.HasOwnerReference(ns.OwnerReferences, uid) {
			out = append(out, ns.Name)
		}
	}
	sort.Strings(out)
	return out
}

// ourNamespace tells whether ns is the lab's to delete:
//   - team-<name> of a TeamSpace in owners, when the controller's own
//     ownership test (teamspace.OwnsNamespace) says it is that TeamSpace's.
//     A namespace with our label, or a TeamSpace ownerReference that is
//     not the controller's with that uid, is someone else's and never
//     touched; so is a namespace whose TeamSpace is gone already (the
//     garbage collector, which knows the owners, removes it if it is a
//     dependent);
//   - check's stand-in for a foreign namespace, left by an interrupted
//     run: labelled owner=lab.ForeignNamespaceOwner and named after one of
//     check's temporary TeamSpaces;
//   - team-<probe> of a TeamSpace cnpa made for a moment (isProbe) that is
//     gone, when the namespace has a TeamSpace ownerReference: the
//     learner's controller made it for cnpa's probe. The garbage collector
//     would delete it, but it may not have yet (it learns of a new CRD's
//     kind late, and backs off), and it cannot once reset has deleted the
//     CRD: step 4's probe's namespace outlived reset so on a cluster that
//     a test reused.
func ourNamespace(owners map[string]types.UID, ns *corev1.Namespace) bool {
	if ns.Labels["owner"] == lab.ForeignNamespaceOwner && strings.HasPrefix(ns.Name, teamspace.NamespaceName(lab.TempPrefix)) {
		return true
	}
	name, ok := strings.CutPrefix(ns.Name, teamspace.NamespacePrefix)
	if !ok {
		return false
	}
	uid, ok := owners[name]
	if !ok {
		return isProbe(name) && hasTeamSpaceOwner(ns.OwnerReferences)
	}
	return teamspace.OwnsNamespace(name, uid, ns)
}

// hasTeamSpaceOwner tells whether any of refs is to a TeamSpace.
func hasTeamSpaceOwner(refs []metav1.OwnerReference) bool {
	for _, r := range refs {
		if r.Kind == teamspace.Kind && strings.HasPrefix(r.APIVersion, teamspace.Group+"/") {
			return true
		}
	}
	return false
}

// isProbe tells whether a TeamSpace is one cnpa made for a moment: step 4's
// probe or one of check's. Every finalizer on one is cnpa's to drop.
func isProbe(name string) bool {
	return strings.HasPrefix(name, lab.ProbePrefix) || strings.HasPrefix(name, lab.TempPrefix)
}

func crdExists(ctx context.Context, env *labenv.Env) (bool, error) {
	_, err := env.Clients.Dynamic.Resource(teamspace.CRDGVR).Get(ctx, teamspace.CRDName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("get CRD %s: %w", teamspace.CRDName, err)
	}
	return true, nil
}

// listTeamSpaces lists every TeamSpace of a CRD that exists. The API
// server can answer such a list with NotFound for a moment while it
// (re)builds the CRD's handler, on a busy machine for seconds: an empty
// answer then would judge every namespace a stranger's, so it asks again
// until the list is served or env.Timeout passes.
func listTeamSpaces(ctx context.Context, env *labenv.Env) (*unstructured.UnstructuredList, error) {
	var list *unstructured.UnstructuredList
	_, err := poll.Until(ctx, 200*time.Millisecond, env.Timeout, func(ctx context.Context) (bool, string, error) {
		l, err := env.Clients.Dynamic.Resource(teamspace.GVR).List(ctx, metav1.ListOptions{})
		if apierrors.IsNotFound(err) {
			return false, i18n.T("reset.not_served_yet"), nil
		}
		if err != nil {
			return false, "", err
		}
		list = l
		return true, "", nil
	})
	if err != nil {
		return nil, fmt.Errorf("list teamspaces: %w", err)
	}
	return list, nil
}

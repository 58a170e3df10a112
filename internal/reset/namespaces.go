package reset

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/labenv"
)

// deleteNamespaces is phase 4: it deletes the namespaces listed as the
// lab's and waits until they are gone. The UID precondition makes sure the
// namespace deleted is the one judged ours.
//
// dependents are namespaces the garbage collector deletes with their
// TeamSpace (clusterListing.dependents): reset deletes none of them, but
// waits until they are gone too.
func deleteNamespaces(ctx context.Context, env *labenv.Env, nss []corev1.Namespace, dependents []string, r *Result, log func(string, ...any)) error {
	if len(nss) == 0 && len(dependents) == 0 {
		return nil
	}
	names := map[string]bool{}
	for _, n := range dependents {
		names[n] = true
	}
	for _, ns := range nss {
		names[ns.Name] = true
		r.Namespaces = append(r.Namespaces, ns.Name)
		if ns.DeletionTimestamp != nil {
			continue
		}
		uid := ns.UID
		err := env.Clients.Kube.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) {
			return fmt.Errorf("delete namespace %s: %w", ns.Name, err)
		}
	}
	if len(dependents) > 0 {
		log("%s", i18n.T("reset.waiting_gc", i18n.Args{"Names": i18n.List(dependents)}))
	}
	if len(nss) > 0 {
		log("%s", i18n.T("reset.deleting_namespaces", i18n.Args{"Names": i18n.List(r.Namespaces)}))
	}
	var left []string
	err := wait(ctx, env.Timeout, func(ctx context.Context) (bool, error) {
		left = left[:0]
		for n := range names {
			_, err := env.Clients.Kube.CoreV1().Namespaces().Get(ctx, n, metav1.GetOptions{})
			if err == nil {
				left = append(left, n)
			} else if !apierrors.IsNotFound(err) {
				return false, err
			}
		}
		return len(left) == 0, nil
	}, 0)
	if err != nil {
		sort.Strings(left)
		return fmt.Errorf("%s: %w", i18n.T("reset.namespaces_not_gone", i18n.Args{"Names": i18n.List(left)}), err)
	}
	log("%s", i18n.T("reset.namespaces_gone"))
	return nil
}

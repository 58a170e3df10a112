package check

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/poll"
	"github.com/labhub/cnpa/internal/teamspace"
)

// TempPrefix starts the name of every TeamSpace the grader creates.
const TempPrefix = "cnpa-check-"

// ForeignFinalizer stands for another controller's finalizer, which ours
// must keep.
const ForeignFinalizer = "example.com/keep"

// fieldManager names the grader's writes.
const fieldManager = "cnpa-check"

// temps tracks the temporary TeamSpaces of one run so that they are
// removed however the run ends.
type temps struct {
	env   *labenv.Env
	mu    sync.Mutex
	names []string
	// namespaces are the foreign namespaces the grader made itself.
	namespaces []string
}

// tempName is a fresh name for a temporary TeamSpace.
func tempName() string {
	b := make([]byte, 3)
	rand.Read(b)
	return TempPrefix + hex.EncodeToString(b)
}

// create makes a temporary TeamSpace and remembers it before the request,
// so that even a create whose answer is lost is cleaned up.
func (t *temps) create(ctx context.Context, pods int64, cpu string, finalizers []string) (*teamspace.TeamSpace, error) {
	return t.createNamed(ctx, tempName(), pods, cpu, finalizers)
}

// createNamed is create with a name of the caller's (from tempName).
func (t *temps) createNamed(ctx context.Context, name string, pods int64, cpu string, finalizers []string) (*teamspace.TeamSpace, error) {
	t.mu.Lock()
	t.names = append(t.names, name)
	t.mu.Unlock()
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": teamspace.APIVersion, "kind": teamspace.Kind,
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"pods": pods},
	}}
	if cpu != "" { // "" leaves spec.cpu to the CRD's default
		unstructured.SetNestedField(u.Object, cpu, "spec", "cpu")
	}
	if len(finalizers) > 0 {
		u.SetFinalizers(finalizers)
	}
	created, err := t.env.Clients.Dynamic.Resource(teamspace.GVR).Create(ctx, u, metav1.CreateOptions{FieldManager: fieldManager})
	if err != nil {
		return nil, fmt.Errorf("create temporary TeamSpace %s: %w", name, err)
	}
	return teamspace.FromUnstructured(created)
}

// cleanup deletes every temporary TeamSpace and its archive record. It is
// given a context that outlives Ctrl-C. A TeamSpace still there after
// grace (the controller archives it and lets it go) loses its finalizers:
// all of them are the grader's to drop, since it created the object.
// Their namespaces go by garbage collection. Problems are returned, not
// fatal: the grade stands.
func (t *temps) cleanup(ctx context.Context, grace time.Duration) error {
	t.mu.Lock()
	names, namespaces := slices.Clone(t.names), slices.Clone(t.namespaces)
	t.mu.Unlock()
	if len(names) == 0 && len(namespaces) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	res := t.env.Clients.Dynamic.Resource(teamspace.GVR)
	var errs []error
	for _, n := range names {
		if err := res.Delete(ctx, n, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete %s: %w", n, err))
		}
	}
	left := t.waitGone(ctx, names, grace)
	for _, n := range left {
		if _, err := res.Patch(ctx, n, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`),
			metav1.PatchOptions{FieldManager: fieldManager}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("drop the finalizers of %s: %w", n, err))
		}
	}
	for _, n := range t.waitGone(ctx, left, 15*time.Second) {
		errs = append(errs, fmt.Errorf("temporary TeamSpace %s is still there: `kubectl delete teamspace %s`", n, n))
	}
	for _, n := range names {
		if err := os.Remove(filepath.Join(t.env.ArchiveDir(), n+".json")); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	for _, ns := range namespaces {
		if err := t.env.Clients.Kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete namespace %s: %w", ns, err))
		}
	}
	return errors.Join(errs...)
}

// waitGone polls until the named TeamSpaces are gone or d passes, and
// returns those still there. The wait's own error is not needed: what is
// left says it all, and the caller reports it.
func (t *temps) waitGone(ctx context.Context, names []string, d time.Duration) []string {
	left := names
	_, _ = poll.Until(ctx, 200*time.Millisecond, d, func(ctx context.Context) (bool, string, error) {
		var still []string
		for _, n := range left {
			_, err := t.env.Clients.Dynamic.Resource(teamspace.GVR).Get(ctx, n, metav1.GetOptions{})
			if !apierrors.IsNotFound(err) {
				still = append(still, n)
			}
		}
		left = still
		return len(left) == 0, "", nil
	})
	return left
}

// await calls observe every 200 ms until it reports done, the timeout
// passes or ctx ends; it returns whether it was done and the last thing
// observe said, so a failure shows what was seen, not a bare "timed out".
func await(ctx context.Context, timeout time.Duration, observe func(ctx context.Context) (bool, string)) (bool, string) {
	seenLast := ""
	_, err := poll.Until(ctx, 200*time.Millisecond, timeout, func(ctx context.Context) (bool, string, error) {
		done, seen := observe(ctx)
		// An observation cut short by the deadline itself says nothing
		// about the cluster: keep what was seen before it. Besides "context
		// deadline exceeded", client-go's rate limiter refuses a request
		// that could not start before the deadline a few milliseconds
		// early, while the context is still live.
		if cutShort := ctx.Err() != nil || strings.Contains(seen, "would exceed context deadline"); !cutShort || seenLast == "" {
			seenLast = seen
		}
		return done, seen, nil
	})
	last := seenLast
	if last == "" {
		last = "nothing observed"
	}
	if err != nil {
		return false, fmt.Sprintf("after %s: %s", timeout, last)
	}
	return true, last
}

// liveState reads a TeamSpace with its namespace and quota.
func liveState(ctx context.Context, env *labenv.Env, name string) (*teamspace.TeamSpace, *corev1.Namespace, *corev1.ResourceQuota, error) {
	ts, err := teamspace.Get(ctx, env.Clients.Dynamic, name)
	if err != nil || ts == nil {
		return ts, nil, nil, err
	}
	ns, err := getNamespace(ctx, env, teamspace.NamespaceName(name))
	if err != nil || ns == nil {
		return ts, ns, nil, err
	}
	q, err := env.Clients.Kube.CoreV1().ResourceQuotas(ns.Name).Get(ctx, teamspace.QuotaName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return ts, ns, nil, nil
	}
	if err != nil {
		return ts, ns, nil, err
	}
	return ts, ns, q, nil
}

// probeConverges is the grader of step 4: a new TeamSpace gets its
// namespace (labelled, owned), its quota and its status by itself, with
// nobody but the running controller acting.
func probeConverges(ctx context.Context, env *labenv.Env, tmp *temps, timeout time.Duration) verdict {
	want := "namespace, quota (pods=2, requests.cpu=250m) and status within " + timeout.String()
	ts, err := tmp.create(ctx, 2, "250m", nil)
	if err != nil {
		return holds(false, want, err.Error())
	}
	finalizerOn := env.State != nil && env.State.Finalizer
	start := time.Now()
	ok, seen := await(ctx, timeout, func(ctx context.Context) (bool, string) {
		live, ns, q, err := liveState(ctx, env, ts.Name)
		switch {
		case err != nil:
			return false, err.Error()
		case live == nil:
			return false, ts.Name + " is gone"
		}
		p := pending(live, ns, q, finalizerOn)
		return p == "", p
	})
	took := time.Since(start)
	// Deleted now rather than at cleanup, so that the controller archives
	// it in the same pass as the other probe; should the delete fail,
	// cleanup deletes it again.
	_ = env.Clients.Dynamic.Resource(teamspace.GVR).Delete(ctx, ts.Name, metav1.DeleteOptions{})
	if !ok {
		return holds(false, want, ts.Name+" "+seen)
	}
	return holds(true, want, fmt.Sprintf("%s converged by itself in %s", ts.Name, took.Round(time.Millisecond)))
}

// probeFinalizer is the grader of step 6 and more: a TeamSpace created with
// a foreign finalizer gets ours added beside it; deleted, it is archived,
// loses only ours and stays, held by the foreign one, until the grader
// removes that too. It returns the verdicts of
// step6.finalizer_added_keeps_foreign and step6.delete_archives.
func probeFinalizer(ctx context.Context, env *labenv.Env, tmp *temps, timeout time.Duration) (added, deleted verdict) {
	wantAdded := fmt.Sprintf("finalizers [%s %s] within %s", ForeignFinalizer, teamspace.Finalizer, timeout)
	ts, err := tmp.create(ctx, 1, "", []string{ForeignFinalizer})
	if err != nil {
		return holds(false, wantAdded, err.Error()), skipped("no temporary TeamSpace")
	}
	ok, seen := await(ctx, timeout, func(ctx context.Context) (bool, string) {
		live, err := teamspace.Get(ctx, env.Clients.Dynamic, ts.Name)
		if err != nil || live == nil {
			return false, fmt.Sprintf("%s: %v", ts.Name, orGone(err))
		}
		return teamspace.HasFinalizer(live.Finalizers, ForeignFinalizer) && teamspace.HasFinalizer(live.Finalizers, teamspace.Finalizer),
			fmt.Sprintf("%s finalizers %v", ts.Name, live.Finalizers)
	})
	if !ok {
		if live, _ := teamspace.Get(ctx, env.Clients.Dynamic, ts.Name); live != nil && teamspace.HasFinalizer(live.Finalizers, teamspace.Finalizer) &&
			!teamspace.HasFinalizer(live.Finalizers, ForeignFinalizer) {
			seen += ": another controller's finalizer was dropped. Add ours to the list, keeping the other finalizers " +
				"(merge or JSON-patch add, with the resourceVersion as precondition); never overwrite the list"
		}
		return holds(false, wantAdded, seen), skipped("our finalizer was never added (see step6.finalizer_added_keeps_foreign)")
	}
	added = holds(true, wantAdded, seen)

	wantDeleted := fmt.Sprintf("after delete: finalizers [%s], deletionTimestamp set, archive/<name>.json with its uid, within %s", ForeignFinalizer, timeout)
	res := env.Clients.Dynamic.Resource(teamspace.GVR)
	if err := res.Delete(ctx, ts.Name, metav1.DeleteOptions{}); err != nil {
		return added, holds(false, wantDeleted, "delete: "+err.Error())
	}
	var final *teamspace.TeamSpace
	vanished := false
	ok, seen = await(ctx, timeout, func(ctx context.Context) (bool, string) {
		live, err := teamspace.Get(ctx, env.Clients.Dynamic, ts.Name)
		if err != nil {
			return false, err.Error()
		}
		if live == nil {
			vanished = true
			return true, ts.Name + " is gone: the foreign finalizer was removed too. Remove only " + teamspace.Finalizer +
				" and keep the other finalizers: another controller's cleanup is not yours to skip"
		}
		final = live
		return !teamspace.HasFinalizer(live.Finalizers, teamspace.Finalizer), fmt.Sprintf("%s finalizers %v", ts.Name, live.Finalizers)
	})
	// The record must be on disk by the time our finalizer is off.
	rec, recErr := evidence.ReadArchive(env.ArchiveDir(), ts.Name)
	switch {
	case !ok || vanished:
		deleted = holds(false, wantDeleted, seen)
	case !slices.Equal(final.Finalizers, []string{ForeignFinalizer}) || final.DeletionTimestamp == nil:
		deleted = holds(false, wantDeleted, fmt.Sprintf("%s, deletionTimestamp %v", seen, final.DeletionTimestamp))
	case recErr != nil || rec == nil:
		deleted = holds(false, wantDeleted, fmt.Sprintf("%s, but no archive record %s: %v",
			seen, filepath.Join(env.ArchiveDir(), ts.Name+".json"), orGone(recErr)))
	case rec.UID != string(ts.UID) || rec.Name != ts.Name:
		data, _ := json.Marshal(rec)
		deleted = holds(false, wantDeleted, fmt.Sprintf("archive record %s, uid should be %s", data, ts.UID))
	default:
		deleted = holds(true, wantDeleted, fmt.Sprintf("finalizers %v, archived uid %s", final.Finalizers, rec.UID))
	}
	// Our part done: drop the foreign finalizer, with the resourceVersion
	// read as precondition so nothing else is lost. A conflict or any other
	// failure is left to cleanup, which drops what is left.
	if final != nil && !vanished {
		_, _ = teamspace.SetFinalizers(ctx, env.Clients.Dynamic, final, teamspace.WithoutFinalizer(final.Finalizers, ForeignFinalizer), fieldManager)
	}
	return added, deleted
}

// ForeignNamespaceOwner is the value of the label "owner" that marks the
// grader's stand-in for somebody else's namespace (reset sweeps those an
// interrupted check left).
const ForeignNamespaceOwner = "someone-else"

// startForeignNamespace is the first half of the adoption probe: a
// namespace team-<name> that somebody else made, then a TeamSpace <name>.
// It returns the TeamSpace; judgeForeignNamespace looks once the
// controller has served TeamSpaces created at the same moment.
func startForeignNamespace(ctx context.Context, env *labenv.Env, tmp *temps) (*teamspace.TeamSpace, error) {
	name := tempName()
	ns := teamspace.NamespaceName(name)
	tmp.mu.Lock()
	tmp.namespaces = append(tmp.namespaces, ns)
	tmp.mu.Unlock()
	if _, err := env.Clients.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: ns, Labels: map[string]string{"owner": ForeignNamespaceOwner}}}, metav1.CreateOptions{FieldManager: fieldManager}); err != nil {
		return nil, fmt.Errorf("create foreign namespace %s: %w", ns, err)
	}
	return tmp.createNamed(ctx, name, 1, "", nil)
}

// judgeForeignNamespace: the namespace that existed before its TeamSpace
// must not have been adopted. An ownerReference to the TeamSpace would let
// its deletion take somebody else's namespace (and all in it) by garbage
// collection.
func judgeForeignNamespace(ctx context.Context, env *labenv.Env, ts *teamspace.TeamSpace) verdict {
	nsName := teamspace.NamespaceName(ts.Name)
	want := "no ownerReference to TeamSpace " + ts.Name + " and its own labels only"
	ns, err := getNamespace(ctx, env, nsName)
	switch {
	case err != nil:
		return holds(false, want, err.Error())
	case ns == nil:
		return holds(false, want, "namespace "+nsName+" is gone: the controller deleted or let somebody else's namespace be deleted")
	case teamspace.HasOwnerReference(ns.OwnerReferences, ts.UID):
		return holds(false, want, fmt.Sprintf("namespace %s (made by %s before the TeamSpace) was adopted: it now has an ownerReference to "+
			"TeamSpace %s, so deleting the TeamSpace deletes somebody else's namespace. Create team-<name> only when it does not exist, "+
			"and leave a foreign one alone", nsName, ForeignNamespaceOwner, ts.Name))
	}
	return holds(true, want, fmt.Sprintf("namespace %s left alone (owners %d, label owner=%s)", nsName, len(ns.OwnerReferences), ns.Labels["owner"]))
}

func orGone(err error) error {
	if err == nil {
		return errors.New("gone")
	}
	return err
}

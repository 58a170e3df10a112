package check

import (
	"context"
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
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/poll"
	"github.com/labhub/cnpa/internal/teamspace"
)

// TempPrefix starts the name of every TeamSpace the grader creates.
const TempPrefix = lab.TempPrefix

// ForeignFinalizer stands for another controller's finalizer, which ours
// must keep.
const ForeignFinalizer = "example.com/keep"

// fieldManager names the grader's writes.
const fieldManager = "cnpa-check"

// temps tracks the temporary TeamSpaces of one run so that they are
// removed however the run ends.
type temps struct {
	env *labenv.Env
	// grace is how long a deleted probe is left to the running controller
	// to archive and release before the grader drops its finalizers.
	grace time.Duration
	mu    sync.Mutex
	names []string
	// namespaces are the foreign namespaces the grader made itself.
	namespaces []string
	// remote: the grader runs on another machine than the controller
	// (RunRemote), so the archive records it writes cannot be read.
	remote bool
}

// leftoverAge is how old a cnpa-check-* object must be before a new check
// removes it as an earlier run's leftover: older than any one check lasts,
// so that it is never a probe of a check running beside this one.
const leftoverAge = 10 * time.Minute

// sweepLeftovers removes the probes an earlier check left behind (killed
// before its cleanup ran): a leftover foreign namespace's TeamSpace stops a
// `set -e` loop's pass just as this run's would, and its verdicts must not
// depend on what an earlier run left. Younger ones are only named.
func (t *temps) sweepLeftovers(ctx context.Context, progress func(format string, a ...any)) {
	list, err := t.env.Clients.Dynamic.Resource(teamspace.GVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return // the probes will report what is wrong with the cluster
	}
	var old []string
	for _, u := range list.Items {
		switch name := u.GetName(); {
		case !strings.HasPrefix(name, TempPrefix):
		case time.Since(u.GetCreationTimestamp().Time) > leftoverAge:
			old = append(old, name)
		default:
			progress("TeamSpace %s is another `cnpa check`'s probe, made %s ago: two checks at once on one cluster see each other's probes",
				name, time.Since(u.GetCreationTimestamp().Time).Round(time.Second))
		}
	}
	if len(old) > 0 {
		progress("removing %s, left by an earlier `cnpa check`", strings.Join(old, ", "))
		if err := t.discard(ctx, old...); err != nil {
			progress("%v", err)
		}
	}
	nsList, err := t.env.Clients.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: "owner=" + ForeignNamespaceOwner})
	if err != nil {
		return
	}
	for _, ns := range nsList.Items {
		if strings.HasPrefix(ns.Name, teamspace.NamespaceName(TempPrefix)) && time.Since(ns.CreationTimestamp.Time) > leftoverAge {
			_ = t.env.Clients.Kube.CoreV1().Namespaces().Delete(ctx, ns.Name, metav1.DeleteOptions{})
		}
	}
}

// discard deletes temporary TeamSpaces and waits until they are gone:
// the next probe must not share a single pass of the controller with them
// (one probe's object must never decide another probe's verdict). The
// running controller gets grace to archive and release them, as it must;
// what is left after it loses its finalizers, which are all the grader's
// to drop since it created the objects. Dropping them at once instead
// would race a controller that archives from its cache, and leave archive
// records behind.
func (t *temps) discard(ctx context.Context, names ...string) error {
	res := t.env.Clients.Dynamic.Resource(teamspace.GVR)
	var errs []error
	for _, n := range names {
		if err := res.Delete(ctx, n, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete %s: %w", n, err))
		}
	}
	left := t.waitGone(ctx, names, t.grace)
	for _, n := range left {
		// Once deletionTimestamp is set no finalizer can be added back, so
		// the object goes as soon as this patch lands.
		if _, err := res.Patch(ctx, n, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`),
			metav1.PatchOptions{FieldManager: fieldManager}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("drop the finalizers of %s: %w", n, err))
		}
	}
	for _, n := range t.waitGone(ctx, left, 15*time.Second) {
		errs = append(errs, fmt.Errorf("temporary TeamSpace %s is still there: `kubectl delete teamspace %s`", n, n))
	}
	return errors.Join(errs...)
}

// create makes a temporary TeamSpace and remembers it before the request,
// so that even a create whose answer is lost is cleaned up.
func (t *temps) create(ctx context.Context, pods int64, cpu string, finalizers []string) (*teamspace.TeamSpace, error) {
	return t.createNamed(ctx, lab.TempName(lab.TempPrefix), pods, cpu, finalizers)
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

// cleanup deletes every temporary TeamSpace that is left (discard), their
// archive records and the namespaces the grader made. It is given a
// context that outlives Ctrl-C. Problems are returned, not fatal: the
// grade stands.
func (t *temps) cleanup(ctx context.Context) error {
	t.mu.Lock()
	names, namespaces := slices.Clone(t.names), slices.Clone(t.namespaces)
	t.mu.Unlock()
	if len(names) == 0 && len(namespaces) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var errs []error
	if err := t.discard(ctx, names...); err != nil {
		errs = append(errs, err)
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
// nobody but the running controller acting (LAB.md step 4: "A new TeamSpace
// must get its namespace and quota within seconds with nobody acting").
// The finalizer is step 6's and is graded there. It returns the verdict
// and, when it converged, how long that took; its TeamSpace is gone again
// when it returns.
func probeConverges(ctx context.Context, env *labenv.Env, tmp *temps, timeout time.Duration) (verdict, time.Duration) {
	want := "namespace, quota (pods=2, requests.cpu=250m) and status within " + timeout.String()
	ts, err := tmp.create(ctx, 2, "250m", nil)
	if err != nil {
		return holds(false, want, err.Error()), 0
	}
	start := time.Now()
	ok, seen := await(ctx, timeout, func(ctx context.Context) (bool, string) {
		live, ns, q, err := liveState(ctx, env, ts.Name)
		switch {
		case err != nil:
			return false, err.Error()
		case live == nil:
			return false, ts.Name + " is gone"
		}
		p := pending(live, ns, q, false)
		return p == "", p
	})
	took := time.Since(start)
	var stop string
	if !ok {
		stop = stopsBefore(ctx, env, ts.Name)
	}
	// LAB.md: the grader "deletes it". Gone before the next probe starts.
	_ = tmp.discard(ctx, ts.Name)
	if !ok {
		return holds(false, want, ts.Name+" "+seen+stop), 0
	}
	return holds(true, want, fmt.Sprintf("%s converged by itself in %s", ts.Name, took.Round(time.Millisecond))), took
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
			seen += ": another controller's finalizer was dropped: " + lab.KeepOtherFinalizers +
				"; a merge or JSON-patch add, with the resourceVersion as precondition, does"
		} else {
			seen += stopsBefore(ctx, env, ts.Name)
		}
		_ = tmp.discard(ctx, ts.Name)
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
	case tmp.remote:
		// The record is on the learner's VM, out of this machine's sight.
		deleted = holds(true, wantDeleted, fmt.Sprintf("finalizers %v; the archive record is on the learner's VM, not read from here", final.Finalizers))
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
	// Gone before the next probe starts, whatever the controller did.
	_ = tmp.discard(ctx, ts.Name)
	return added, deleted
}

// ForeignNamespaceOwner is the value of the label "owner" that marks the
// grader's stand-in for somebody else's namespace (reset sweeps those an
// interrupted check left).
const ForeignNamespaceOwner = lab.ForeignNamespaceOwner

// The foreign-namespace probe's two TeamSpaces share a random part and end
// in these suffixes, so that the witness sorts right after the foreign one:
// kubectl and the API list TeamSpaces by name, and a loop that serves them
// in that order has passed over the foreign one once it reaches the witness.
const (
	foreignSuffix = "-foreign"
	witnessSuffix = "-witness"
)

// probeForeignNamespace looks at what LAB.md does not ask about: a
// namespace team-<name> that somebody else made before TeamSpace <name>.
// It runs alone, after every other probe is judged, and its objects are
// gone when it returns. A witness TeamSpace made right after it tells when
// the controller has passed over it; the witness gets witnessWait to
// converge, and when it does not, the controller's log says whether the
// pass stops at the foreign one. Adopting the namespace is a note, never a
// failure.
func probeForeignNamespace(ctx context.Context, env *labenv.Env, tmp *temps, witnessWait time.Duration) verdict {
	want := "no ownerReference to the TeamSpace, and its own labels only"
	base := lab.TempName(lab.TempPrefix)
	name, witness := base+foreignSuffix, base+witnessSuffix
	nsName := teamspace.NamespaceName(name)
	tmp.mu.Lock()
	tmp.namespaces = append(tmp.namespaces, nsName)
	tmp.mu.Unlock()
	defer func() {
		_ = tmp.discard(ctx, name, witness)
		tmp.deleteNamespace(ctx, nsName)
	}()
	// The grader's own failures here are notes too: the check is one.
	notAsked := func(got string) verdict {
		v := holds(false, want, got)
		v.optional, v.note = true, "the probe could not be set up, so nothing is known of this case"
		return v
	}
	if _, err := env.Clients.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		Name: nsName, Labels: map[string]string{"owner": ForeignNamespaceOwner}}}, metav1.CreateOptions{FieldManager: fieldManager}); err != nil {
		return notAsked(fmt.Sprintf("create foreign namespace %s: %v", nsName, err))
	}
	ts, err := tmp.createNamed(ctx, name, 1, "", nil)
	if err != nil {
		return notAsked(err.Error())
	}
	if _, err := tmp.createNamed(ctx, witness, 1, "", nil); err != nil {
		return notAsked(err.Error())
	}
	reached, _ := await(ctx, witnessWait, func(ctx context.Context) (bool, string) {
		live, ns, q, err := liveState(ctx, env, witness)
		if err != nil || live == nil {
			return false, fmt.Sprint(orGone(err))
		}
		p := pending(live, ns, q, false)
		return p == "", p
	})
	v := judgeForeignNamespace(ctx, env, ts)
	var notes []string
	if v.note != "" {
		notes = append(notes, v.note)
	}
	if !reached {
		unserved := fmt.Sprintf("TeamSpace %s, made right after %s, was not served within %s", witness, name, witnessWait.Round(time.Second))
		if stop := stoppedPassAt(ctx, env, name, witness); stop != nil {
			unserved += ": " + stop.String()
		}
		notes = append(notes, unserved)
	} else if line := lastErrorAbout(serviceLog(ctx, env), name); line != "" {
		notes = append(notes, "your controller tried to write somebody else's namespace and was refused: "+line+
			". Skip a team-<name> you do not own (one without your label platform.labhub.io/teamspace=<name> and ownerReference): "+
			"a controller adopts nothing it did not make")
	}
	v.note = strings.Join(notes, ". ")
	v.optional = true
	return v
}

// deleteNamespace deletes a namespace the grader made. It does not wait
// for the namespace controller: the probe that made it is the last one,
// its name is never used again, and no TeamSpace serves it any more.
func (t *temps) deleteNamespace(ctx context.Context, name string) {
	_ = t.env.Clients.Kube.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{})
}

// judgeForeignNamespace: the namespace that existed before its TeamSpace
// should not be adopted. LAB.md does not ask about it, so what this finds is
// a note (the verdict's note says what adopting would do); cnpa's own
// engines refuse to adopt.
func judgeForeignNamespace(ctx context.Context, env *labenv.Env, ts *teamspace.TeamSpace) verdict {
	nsName := teamspace.NamespaceName(ts.Name)
	want := "no ownerReference to TeamSpace " + ts.Name + " and its own labels only"
	ns, err := getNamespace(ctx, env, nsName)
	switch {
	case err != nil:
		return holds(false, want, err.Error())
	case ns == nil:
		v := holds(false, want, "namespace "+nsName+" is gone")
		v.note = "the controller deleted, or let be deleted, a namespace somebody else made: on a real platform that is " +
			"a stranger's workloads gone"
		return v
	case teamspace.HasOwnerReference(ns.OwnerReferences, ts.UID):
		v := holds(false, want, fmt.Sprintf("namespace %s (made by %s before the TeamSpace) now has an ownerReference to TeamSpace %s",
			nsName, ForeignNamespaceOwner, ts.Name))
		v.note = "your controller adopted a namespace it did not make. LAB.md does not ask about this case, but on a real " +
			"platform it hands a stranger's namespace to the TeamSpace, and to the garbage collector: deleting the TeamSpace " +
			"deletes that namespace and everything in it. cnpa's engines create team-<name> only when it does not exist, and " +
			"leave a foreign one alone"
		return v
	}
	return holds(true, want, fmt.Sprintf("namespace %s left alone (owners %d, label owner=%s)", nsName, len(ns.OwnerReferences), ns.Labels["owner"]))
}

func orGone(err error) error {
	if err == nil {
		return errors.New("gone")
	}
	return err
}

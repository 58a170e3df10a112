package check

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

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

// The temporary objects' lifecycle, apart from the probes that use them
// (as chainsaw keeps its cleaner apart): every TeamSpace a probe makes is
// remembered before it is asked for, removed in the probes' last phase
// (phases.go), and removed however the run ends, Ctrl-C included; so are
// the foreign namespaces the grader makes, and leftovers of an earlier
// run killed before its cleanup ran.

// TempPrefix starts the name of every TeamSpace the grader creates.
const TempPrefix = lab.TempPrefix

// ForeignNamespaceOwner is the value of the label "owner" that marks the
// grader's stand-in for somebody else's namespace (reset sweeps those an
// interrupted check left).
const ForeignNamespaceOwner = lab.ForeignNamespaceOwner

// FieldManager names the grader's writes: the probes' too, so that a
// learner's apply that conflicts with one names this manager.
const FieldManager = "cnpa-check"

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
	// (Run from another machine), so the archive records it writes cannot be read.
	remote bool
	// forced are the TeamSpaces whose finalizers the grader dropped
	// because the controller had not released them within grace.
	forced []string
	// settle is how long cleanup waits before it removes the records of
	// forced TeamSpaces again (defaultSettle unless a test sets it).
	settle time.Duration
}

// defaultSettle is how long cleanup gives a controller that was too slow to
// release a probe (forced) before it looks for that probe's archive record
// once more. Such a controller still holds the object in its cache, being
// deleted, and may write its record after the grader removed the first
// one: a record of a TeamSpace that is already gone. A watch delivers the
// deletion in well under this, and a polling loop (the lab's 3 s) sees it
// at its next pass.
const defaultSettle = 5 * time.Second

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
			progress("%s", i18n.T("check.temps.another", i18n.Args{"Name": name, "Age": time.Since(u.GetCreationTimestamp().Time).Round(time.Second).String()}))
		}
	}
	if len(old) > 0 {
		progress("%s", i18n.T("check.temps.removing", i18n.Args{"Names": i18n.List(old)}))
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

// discard deletes temporary TeamSpaces and waits until they are gone, so
// that the check leaves nothing of its own behind. The running
// controller gets grace to archive and release them, as it must;
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
	if t.grace > 0 && !t.remote && len(left) > 0 {
		t.mu.Lock()
		t.forced = append(t.forced, left...)
		t.mu.Unlock()
	}
	for _, n := range left {
		// Once deletionTimestamp is set no finalizer can be added back, so
		// the object goes as soon as this patch lands.
		if _, err := res.Patch(ctx, n, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`),
			metav1.PatchOptions{FieldManager: FieldManager}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("drop the finalizers of %s: %w", n, err))
		}
	}
	for _, n := range t.waitGone(ctx, left, 15*time.Second) {
		errs = append(errs, i18n.NewError("check.temps.still_there", i18n.Args{"Name": n}))
	}
	return errors.Join(errs...)
}

// create makes a temporary TeamSpace and remembers it before the request,
// so that even a create whose answer is lost is cleaned up.
func (t *temps) create(ctx context.Context, pods int64, cpu string, finalizers []string) (*teamspace.TeamSpace, error) {
	return t.createNamed(ctx, lab.TempName(lab.TempPrefix), pods, cpu, finalizers)
}

// createNamed is create with a name of the caller's (from lab.TempName).
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
	created, err := t.env.Clients.Dynamic.Resource(teamspace.GVR).Create(ctx, u, metav1.CreateOptions{FieldManager: FieldManager})
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
	errs = append(errs, t.removeRecords(names)...)
	t.mu.Lock()
	forced := slices.Clone(t.forced)
	t.mu.Unlock()
	if len(forced) > 0 {
		select {
		case <-ctx.Done():
		case <-time.After(cmp.Or(t.settle, defaultSettle)):
		}
		errs = append(errs, t.removeRecords(forced)...)
	}
	for _, ns := range namespaces {
		if err := t.env.Clients.Kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("delete namespace %s: %w", ns, err))
		}
	}
	return errors.Join(errs...)
}

// removeRecords removes the archive records of the named TeamSpaces.
func (t *temps) removeRecords(names []string) []error {
	var errs []error
	for _, n := range names {
		if err := os.Remove(filepath.Join(t.env.ArchiveDir(), n+".json")); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errs
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

// deleteNamespace deletes a namespace the grader made. It does not wait
// for the namespace controller: the probe that made it is the last one,
// its name is never used again, and no TeamSpace serves it any more.
func (t *temps) deleteNamespace(ctx context.Context, name string) {
	_ = t.env.Clients.Kube.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{})
}

// Temps are temporary TeamSpaces with the grader's lifecycle (cnpa-check-*
// names, remembered before they are asked for, removed on every path, a
// deleted one left to the running controller for grace first): a probe's
// (Session.Temps) and `cnpa stress`'s (NewTemps).
type Temps struct{ t *temps }

// New makes a temporary TeamSpace with a new cnpa-check-* name; cpu ""
// leaves spec.cpu to the CRD's default.
func (t *Temps) New(ctx context.Context, pods int64, cpu string, finalizers []string) (*teamspace.TeamSpace, error) {
	return t.t.create(ctx, pods, cpu, finalizers)
}

// Create makes a temporary TeamSpace named name (from lab.TempName).
func (t *Temps) Create(ctx context.Context, name string, pods int64, cpu string, finalizers []string) (*teamspace.TeamSpace, error) {
	return t.t.createNamed(ctx, name, pods, cpu, finalizers)
}

// Cleanup removes every temporary TeamSpace left, their archive records
// and what the grader made; give it a context that outlives Ctrl-C.
func (t *Temps) Cleanup(ctx context.Context) error { return t.t.cleanup(ctx) }

// SweepLeftovers removes the temporary TeamSpaces an earlier run killed
// before its cleanup left.
func (t *Temps) SweepLeftovers(ctx context.Context, progress func(format string, a ...any)) {
	t.t.sweepLeftovers(ctx, progress)
}

// Discard deletes temporary TeamSpaces and waits until they are gone,
// the running controller given grace to archive and release them first
// (discard).
func (t *Temps) Discard(ctx context.Context, names ...string) error {
	return t.t.discard(ctx, names...)
}

// RememberNamespace records a namespace the grader is about to make (the
// foreign-namespace probe's stand-in for somebody else's), before it asks
// for it, so that cleanup deletes it however the run ends.
func (t *Temps) RememberNamespace(name string) {
	t.t.mu.Lock()
	defer t.t.mu.Unlock()
	t.t.namespaces = append(t.t.namespaces, name)
}

// DeleteNamespace deletes a namespace the grader made, without waiting
// for it to go (deleteNamespace).
func (t *Temps) DeleteNamespace(ctx context.Context, name string) { t.t.deleteNamespace(ctx, name) }

// Remote tells whether the grader runs on another machine than the
// controller: the archive records it writes cannot be read there.
func (t *Temps) Remote() bool { return t.t.remote }

// Package reset puts the cluster and the evidence dir back to before step 1,
// so that a learner can start the lab over: no service, no TeamSpaces, none
// of their namespaces, no CRD, no evidence. It touches only what is the
// lab's: namespaces the controller's own ownership test calls a
// TeamSpace's (teamspace.OwnsNamespace), our finalizer, and the files cnpa's
// manifest says cnpa wrote (package manifest), never a file of the same
// name someone else put in the directory.
package reset

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/manifest"
	"github.com/labhub/cnpa/internal/poll"
	"github.com/labhub/cnpa/internal/safefs"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/teamspace"
)

// fieldManager names reset's writes.
const fieldManager = "cnpa-reset"

// Plan is what a reset would remove, for the confirmation prompt.
type Plan struct {
	Service bool `json:"service"`
	// OtherLab is the evidence dir whose service is installed at this
	// unit path, when it is not this one: it runs on the identity and the
	// CRD a reset deletes, so reset stops it too rather than leave it
	// failing on every pass.
	OtherLab string `json:"other_lab,omitempty"`
	// Identity: the service's ServiceAccount, roles, token or admission
	// policy exist (see internal/identity).
	Identity     bool     `json:"identity"`
	TeamSpaces   []string `json:"teamspaces"`
	Namespaces   []string `json:"namespaces"`
	CRD          bool     `json:"crd"`
	Files        []string `json:"files"`
	ArchiveFiles []string `json:"archive_files,omitempty"`
	// Kept are files cnpa wrote that someone rewrote since: theirs now,
	// so reset leaves them.
	Kept []string `json:"kept,omitempty"`
}

// Empty tells whether there is nothing to reset.
func (p *Plan) Empty() bool {
	return !p.Service && p.OtherLab == "" && !p.Identity && len(p.TeamSpaces) == 0 && len(p.Namespaces) == 0 && !p.CRD && len(p.Files) == 0 && len(p.ArchiveFiles) == 0
}

// Result is what a reset did.
type Result struct {
	ServiceRemoved bool `json:"service_removed"`
	// Identity lists the objects of the service's identity deleted.
	Identity []string `json:"identity"`
	// TeamSpaces deleted; Archived those whose record reset wrote itself
	// because no controller ran to do it.
	TeamSpaces []string `json:"teamspaces"`
	Archived   []string `json:"archived"`
	Namespaces []string `json:"namespaces"`
	CRDDeleted bool     `json:"crd_deleted"`
	Files      []string `json:"files"`
}

// Options tune Run.
type Options struct {
	// Purge also removes the archive records.
	Purge bool
	// Log receives one line per action.
	Log func(format string, a ...any)
}

// Inspect lists what Run would remove.
func Inspect(ctx context.Context, env *labenv.Env, purge bool) (*Plan, error) {
	p := &Plan{TeamSpaces: []string{}, Namespaces: []string{}, Files: []string{}}
	st, err := env.Service.Status(ctx)
	if err != nil {
		return nil, err
	}
	p.Service = st.Installed || st.Active
	if dir, m := otherLab(env); m != nil {
		if ost, err := m.Status(ctx); err == nil && (ost.Installed || ost.Active) {
			p.OtherLab = dir
		}
	}
	if p.Identity, err = identity.Present(ctx, env.Clients); err != nil {
		return nil, err
	}
	crd, err := crdExists(ctx, env)
	if err != nil {
		return nil, err
	}
	p.CRD = crd
	if crd {
		list, err := env.Clients.Dynamic.Resource(teamspace.GVR).List(ctx, metav1.ListOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("list teamspaces: %w", err)
		}
		if list != nil {
			for _, u := range list.Items {
				p.TeamSpaces = append(p.TeamSpaces, u.GetName())
			}
		}
	}
	owners, err := teamSpaceOwners(ctx, env, crd)
	if err != nil {
		return nil, err
	}
	nss, err := ownedNamespaces(ctx, env, owners)
	if err != nil {
		return nil, err
	}
	for _, ns := range nss {
		p.Namespaces = append(p.Namespaces, ns.Name)
	}
	files, err := ourFiles(env.Dir, false)
	if err != nil {
		return nil, err
	}
	p.Files, p.Kept = files.remove, files.kept
	if purge {
		records, err := ourFiles(env.ArchiveDir(), true)
		if err != nil {
			return nil, err
		}
		p.ArchiveFiles, p.Kept = records.remove, append(p.Kept, records.kept...)
	}
	return p, nil
}

// Run resets the lab. Phases:
//  1. stop and remove the service, so no controller races what follows,
//     and delete its identity (ServiceAccount, token, roles, admission
//     policy; its kubeconfig goes with the files in phase 6);
//  2. delete every TeamSpace; for each one carrying our finalizer, write
//     its archive record as the controller would (evidence.WriteArchive)
//     and then remove only our finalizer, with the resourceVersion read as
//     a precondition so that a foreign finalizer added meanwhile is kept;
//  3. wait until they are gone; one held by a foreign finalizer stops the
//     reset here with a message naming it;
//  4. delete the namespaces that were theirs, by the controller's own
//     ownership test against the TeamSpaces listed before phase 2 (the
//     garbage collector would too, but can take a minute), and wait until
//     they are gone;
//  5. delete the CRD and wait until it is gone;
//  6. remove the files cnpa's manifest lists and that still hold what cnpa
//     wrote, and cnpa's own .cnpa/ (archive records only with Purge).
func Run(ctx context.Context, env *labenv.Env, opts Options) (*Result, error) {
	log := opts.Log
	if log == nil {
		log = func(string, ...any) {}
	}
	r := &Result{Identity: []string{}, TeamSpaces: []string{}, Archived: []string{}, Namespaces: []string{}, Files: []string{}}

	if dir, m := otherLab(env); m != nil {
		if st, err := m.Status(ctx); err == nil && (st.Installed || st.Active) {
			if err := m.Remove(ctx); err != nil {
				return r, fmt.Errorf("remove %s of the evidence dir %s: %w", service.Name, dir, err)
			}
			log("stopped and removed %s of the evidence dir %s: it runs on the identity and the CRD this reset deletes, "+
				"and would fail on every pass (`cnpa --dir %s step 4` installs it again)", service.Name, dir, dir)
		}
	}
	// Asked first so that "removed" is said only of a unit that was there;
	// a status that cannot be read is no reason not to remove it.
	before, statusErr := env.Service.Status(ctx)
	if err := env.Service.Remove(ctx); err != nil {
		return r, fmt.Errorf("remove %s: %w", service.Name, err)
	}
	r.ServiceRemoved = true
	if statusErr == nil && !before.Installed && !before.Active {
		log("no %s installed (%s): nothing to remove", service.Name, env.Service.Name())
	} else {
		log("removed %s (%s)", service.Name, env.Service.Name())
	}
	// Each phase goes on after the one before failed on some objects:
	// what can be removed is removed, and every failure is reported.
	var failures []error
	removed, err := identity.Remove(ctx, env.Clients)
	r.Identity = append(r.Identity, removed...)
	if len(removed) > 0 {
		log("deleted the service's identity %s: %s", identity.Username, strings.Join(removed, ", "))
	}
	if err != nil {
		failures = append(failures, err)
	}

	crd, err := crdExists(ctx, env)
	if err != nil {
		return r, err
	}
	// The namespaces are judged ours against the TeamSpaces as they are
	// now: once those are deleted, nothing tells a TeamSpace's namespace
	// from a stranger's that merely looks like one.
	owners, err := teamSpaceOwners(ctx, env, crd)
	if err != nil {
		return r, err
	}
	if crd {
		if err := deleteTeamSpaces(ctx, env, r, log); err != nil {
			failures = append(failures, err)
		}
	}
	if err := deleteNamespaces(ctx, env, owners, r, log); err != nil {
		failures = append(failures, err)
	}
	if crd {
		if err := deleteCRD(ctx, env, log); err != nil {
			failures = append(failures, err)
		} else {
			r.CRDDeleted = true
		}
	}
	if err := removeFiles(env, opts.Purge, r, log); err != nil {
		failures = append(failures, err)
	}
	return r, errors.Join(failures...)
}

// otherLab is the service manager of another evidence dir's service at
// this lab's unit path (the unit path is one per machine), with that dir;
// nil when the unit there is this lab's, names no dir, or is not there.
func otherLab(env *labenv.Env) (string, service.Manager) {
	data, err := os.ReadFile(env.Service.UnitPath())
	if err != nil {
		return "", nil
	}
	served, ok := service.ServedDir(data)
	if !ok || filepath.Clean(served) == filepath.Clean(env.Dir) {
		return "", nil
	}
	m, err := service.New(env.Service.Name(), filepath.Dir(env.Service.UnitPath()), served)
	if err != nil {
		return "", nil
	}
	return served, m
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

// deleteTeamSpaces is phases 2 and 3.
func deleteTeamSpaces(ctx context.Context, env *labenv.Env, r *Result, log func(string, ...any)) error {
	res := env.Clients.Dynamic.Resource(teamspace.GVR)
	list, err := listTeamSpaces(ctx, env)
	if err != nil {
		return err
	}
	// One TeamSpace that cannot be released must not keep the others, the
	// namespaces and the CRD in place: each failure is reported and the
	// reset goes on.
	var failures []error
	for _, u := range list.Items {
		name := u.GetName()
		if u.GetDeletionTimestamp() == nil {
			if err := res.Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				failures = append(failures, fmt.Errorf("delete teamspace %s: %w", name, err))
				continue
			}
		}
		r.TeamSpaces = append(r.TeamSpaces, name)
		if isProbe(name) {
			// cnpa's own temporary TeamSpace (step 4's probe, or check's,
			// left by an interrupted run): every finalizer on it is cnpa's
			// to drop, the grader's foreign stand-in included.
			if _, err := res.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`),
				metav1.PatchOptions{FieldManager: fieldManager}); err != nil && !apierrors.IsNotFound(err) {
				failures = append(failures, fmt.Errorf("drop the finalizers of cnpa's temporary TeamSpace %s: %w", name, err))
			}
			log("deleted cnpa's temporary TeamSpace %s", name)
			continue
		}
		archivedTo, err := releaseOurs(ctx, env, name, log)
		if err != nil {
			failures = append(failures, err)
			log("TeamSpace %s: %v", name, err)
			continue
		}
		if archivedTo != "" {
			r.Archived = append(r.Archived, name)
			log("deleted TeamSpace %s (archived to %s, finalizer %s removed)", name, archivedTo, teamspace.Finalizer)
		} else {
			log("deleted TeamSpace %s", name)
		}
	}
	held := map[string][]string{}
	err = wait(ctx, env.Timeout, func(ctx context.Context) (bool, error) {
		list, err := res.List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		clear(held)
		for _, u := range list.Items {
			held[u.GetName()] = u.GetFinalizers()
		}
		// Only foreign finalizers can hold them now; waiting longer
		// than a moment for another controller is pointless.
		return len(held) == 0, nil
	}, 15*time.Second)
	if err != nil && len(held) == 0 {
		return errors.Join(append(failures, err)...)
	}
	if len(held) > 0 {
		var names []string
		for n, f := range held {
			names = append(names, fmt.Sprintf("%s (finalizers %v)", n, f))
		}
		sort.Strings(names)
		return errors.Join(append(failures, fmt.Errorf("TeamSpaces held by finalizers that are not cnpa's: %v; whoever set them must remove them (or `kubectl patch teamspace NAME --type=json -p '[{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}]'`), then run `cnpa reset` again", names))...)
	}
	return errors.Join(failures...)
}

// isProbe tells whether a TeamSpace is one cnpa made for a moment: step 4's
// probe or one of check's.
func isProbe(name string) bool {
	return strings.HasPrefix(name, lab.ProbePrefix) || strings.HasPrefix(name, lab.TempPrefix)
}

// releaseOurs writes the archive record of a TeamSpace being deleted and
// removes our finalizer, keeping every other one, as the controller's
// finalize does. It retries on a conflict from fresh state. It reports
// where it archived ("" when it did not).
//
// An archive record of that name holding another uid (step 6's beta, say,
// when a newer beta is being reset) or one that does not read is never
// overwritten: this TeamSpace's record goes beside it, <name>.<uid>.json.
func releaseOurs(ctx context.Context, env *labenv.Env, name string, log func(string, ...any)) (string, error) {
	for attempt := 0; ; attempt++ {
		u, err := env.Clients.Dynamic.Resource(teamspace.GVR).Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("get teamspace %s: %w", name, err)
		}
		// What finalizing needs, also of a TeamSpace whose spec does not
		// decode (a weaker schema), as the controller does.
		ts, _, _ := teamspace.Finalizable(u)
		if !teamspace.HasFinalizer(ts.Finalizers, teamspace.Finalizer) {
			return "", nil
		}
		file := ts.Name + ".json"
		if old, rerr := evidence.ReadArchive(env.ArchiveDir(), ts.Name); rerr != nil || (old != nil && old.UID != string(ts.UID)) {
			file = ts.Name + "." + string(ts.UID) + ".json"
			held := "one that does not read"
			if old != nil {
				held = "uid " + old.UID
			}
			log("kept %s (it holds %s, not this TeamSpace's %s); archiving %s to %s instead",
				filepath.Join(env.ArchiveDir(), ts.Name+".json"), held, ts.UID, name, filepath.Join(env.ArchiveDir(), file))
		}
		// The record first: once our finalizer is gone, the object may
		// vanish before anything else is written. A record that cannot be
		// written (a name too long for a file, say) does not keep the lab
		// from starting over: the TeamSpace is released without it, and
		// the caller is told.
		if err := evidence.WriteArchiveAs(env.ArchiveDir(), file, evidence.ArchiveRecord{Name: ts.Name, UID: string(ts.UID), Pods: ts.Spec.Pods}); err != nil {
			if _, ferr := teamspace.SetFinalizers(ctx, env.Clients.Dynamic, ts, teamspace.WithoutFinalizer(ts.Finalizers, teamspace.Finalizer), fieldManager); ferr != nil && !apierrors.IsNotFound(ferr) {
				return "", fmt.Errorf("archive teamspace %s: %v; and remove finalizer %s: %w", name, err, teamspace.Finalizer, ferr)
			}
			log("TeamSpace %s released without an archive record (it cannot be written: %v)", name, err)
			return "", nil
		}
		_, err = teamspace.SetFinalizers(ctx, env.Clients.Dynamic, ts, teamspace.WithoutFinalizer(ts.Finalizers, teamspace.Finalizer), fieldManager)
		switch {
		case err == nil, apierrors.IsNotFound(err):
			return filepath.Join(env.ArchiveDir(), file), nil
		case apierrors.IsConflict(err) && attempt < 10:
			continue // someone wrote it since we read it: read again
		default:
			return "", fmt.Errorf("remove finalizer %s from %s: %w", teamspace.Finalizer, name, err)
		}
	}
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
			return false, "the API server does not serve teamspaces yet although the CRD exists", nil
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

// teamSpaceOwners maps every TeamSpace's name to its uid: the owners
// ownedNamespaces judges namespaces against.
func teamSpaceOwners(ctx context.Context, env *labenv.Env, crd bool) (map[string]types.UID, error) {
	owners := map[string]types.UID{}
	if !crd {
		return owners, nil
	}
	list, err := listTeamSpaces(ctx, env)
	if err != nil {
		return nil, err
	}
	for _, u := range list.Items {
		owners[u.GetName()] = u.GetUID()
	}
	return owners, nil
}

// ownedNamespaces lists the namespaces that are the lab's: for each
// TeamSpace in owners, team-<name> when the controller's own ownership
// test (teamspace.OwnsNamespace) says it is that TeamSpace's. A namespace
// with our label, or a TeamSpace ownerReference that is not the
// controller's with that uid, is someone else's and never touched; so is a
// namespace whose TeamSpace is gone already (the garbage collector, which
// knows the owners, removes it if it is a dependent). Besides: check's
// stand-in for a foreign namespace, left by an interrupted run.
func ownedNamespaces(ctx context.Context, env *labenv.Env, owners map[string]types.UID) ([]corev1.Namespace, error) {
	var out []corev1.Namespace
	probes, err := env.Clients.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: "owner=" + lab.ForeignNamespaceOwner})
	if err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	for _, ns := range probes.Items {
		// Named after one of check's temporary TeamSpaces, so it is cnpa's.
		if strings.HasPrefix(ns.Name, teamspace.NamespaceName(lab.TempPrefix)) {
			out = append(out, ns)
		}
	}
	names := make([]string, 0, len(owners))
	for n := range owners {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		ns, err := env.Clients.Kube.CoreV1().Namespaces().Get(ctx, teamspace.NamespaceName(name), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("get namespace %s: %w", teamspace.NamespaceName(name), err)
		}
		if teamspace.OwnsNamespace(name, owners[name], ns) {
			out = append(out, *ns)
		}
	}
	return out, nil
}

// deleteNamespaces is phase 4. The UID precondition makes sure the
// namespace deleted is the one judged ours.
func deleteNamespaces(ctx context.Context, env *labenv.Env, owners map[string]types.UID, r *Result, log func(string, ...any)) error {
	nss, err := ownedNamespaces(ctx, env, owners)
	if err != nil {
		return err
	}
	if len(nss) == 0 {
		return nil
	}
	names := map[string]bool{}
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
	log("deleting namespaces %v", r.Namespaces)
	var left []string
	err = wait(ctx, env.Timeout, func(ctx context.Context) (bool, error) {
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
		return fmt.Errorf("namespaces %v not gone: %w", left, err)
	}
	log("namespaces gone")
	return nil
}

// deleteCRD is phase 5.
func deleteCRD(ctx context.Context, env *labenv.Env, log func(string, ...any)) error {
	crds := env.Clients.Dynamic.Resource(teamspace.CRDGVR)
	if err := crds.Delete(ctx, teamspace.CRDName, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete CRD %s: %w", teamspace.CRDName, err)
	}
	if err := wait(ctx, env.Timeout, func(ctx context.Context) (bool, error) {
		_, err := crds.Get(ctx, teamspace.CRDName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	}, 0); err != nil {
		return fmt.Errorf("CRD %s not gone: %w", teamspace.CRDName, err)
	}
	log("deleted CRD %s", teamspace.CRDName)
	return nil
}

// files are what reset does with the files of one directory.
type files struct {
	remove []string // cnpa wrote them and they still hold what it wrote
	kept   []string // cnpa wrote them, someone rewrote them since
	// notRecords are entries of the archive dir's manifest that name no
	// archive record (x/motd): the service's user may write that
	// manifest, so they are not cnpa's.
	notRecords []string
}

// ourFiles sorts the files dir's manifest lists: only those are cnpa's.
// A directory cnpa never wrote into has none, whatever its files are called.
//
// With records set, dir is the archive dir, whose manifest the service's
// user may append to: there an entry counts only as an archive record,
// <name>.json directly in dir, never a path through a subdirectory.
func ourFiles(dir string, records bool) (files, error) {
	var f files
	entries, err := manifest.Read(dir)
	if err != nil {
		return f, err
	}
	for _, e := range entries {
		if records && (strings.Contains(e.Name, "/") || !strings.HasSuffix(e.Name, ".json")) {
			f.notRecords = append(f.notRecords, filepath.Join(dir, e.Name))
			continue
		}
		st, err := manifest.Check(dir, e)
		if err != nil {
			return f, err
		}
		switch st {
		case manifest.Unchanged:
			f.remove = append(f.remove, filepath.Join(dir, e.Name))
		case manifest.Changed, manifest.NotAFile:
			f.kept = append(f.kept, filepath.Join(dir, e.Name))
		}
	}
	return f, nil
}

// removeOurs removes what ourFiles says is cnpa's in dir, then cnpa's own
// dir/.cnpa (the manifest with it).
func removeOurs(dir string, records bool, r *Result, log func(string, ...any)) error {
	f, err := ourFiles(dir, records)
	if err != nil {
		return err
	}
	// Each name is removed beneath dir from a directory descriptor, no
	// symlink followed in any part (package safefs): a part swapped for
	// a symlink since ourFiles looked is an error, not a way out of dir.
	d, err := safefs.OpenDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	defer d.Close()
	var errs []error
	removed := 0
	for _, p := range f.remove {
		rel, _ := filepath.Rel(dir, p)
		if err := d.Remove(rel); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		r.Files = append(r.Files, p)
		removed++
	}
	for _, p := range f.kept {
		log("kept %s: cnpa wrote it, but it has changed since (or it is reached through a symlink), so it is not cnpa's to remove", p)
	}
	for _, p := range f.notRecords {
		log("kept %s: the archive dir's manifest names it, but it is no archive record (<name>.json in %s), and that manifest is writable by the service's user", p, dir)
	}
	own := filepath.Join(dir, manifest.OwnDir)
	if _, err := os.Lstat(own); err == nil {
		if err := os.RemoveAll(own); err != nil {
			errs = append(errs, err)
		} else {
			r.Files = append(r.Files, own)
		}
	}
	if removed > 0 {
		log("removed %d %s cnpa wrote in %s", removed, map[bool]string{true: "file", false: "files"}[removed == 1], dir)
	}
	return errors.Join(errs...)
}

// removeFiles is phase 6.
func removeFiles(env *labenv.Env, purge bool, r *Result, log func(string, ...any)) error {
	var errs []error
	if purge {
		// The archive dir first: the evidence dir can be removed only
		// once it is empty.
		if err := removeOurs(env.ArchiveDir(), true, r, log); err != nil {
			errs = append(errs, err)
		}
		// The dir itself only when that left it empty: whatever else is in
		// it is not cnpa's. An error means not empty, or not there.
		_ = os.Remove(env.ArchiveDir())
	} else if _, err := os.Stat(env.ArchiveDir()); err == nil {
		log("kept the archive records in %s (--purge removes those cnpa wrote)", env.ArchiveDir())
	}
	if err := removeOurs(env.Dir, false, r, log); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// wait polls cond every 200 ms until it holds, timeout passes or ctx ends.
// max, when positive, shortens timeout. The callers say what was left.
func wait(ctx context.Context, timeout time.Duration, cond func(context.Context) (bool, error), max time.Duration) error {
	if max > 0 && (timeout <= 0 || max < timeout) {
		timeout = max
	}
	_, err := poll.Until(ctx, 200*time.Millisecond, timeout, func(ctx context.Context) (bool, string, error) {
		done, err := cond(ctx)
		return done, "", err
	})
	var gaveUp *poll.TimeoutError
	if errors.As(err, &gaveUp) {
		return fmt.Errorf("gave up after %s", timeout)
	}
	return err
}

package reset

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/archive"
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/teamspace"
)

// deleteTeamSpaces is phase 3: it deletes the TeamSpaces listed, releases
// them, and waits until they are gone.
func deleteTeamSpaces(ctx context.Context, env *labenv.Env, listed []unstructured.Unstructured, r *Result, log func(string, ...any)) error {
	res := env.Clients.Dynamic.Resource(teamspace.GVR)
	// One TeamSpace that cannot be released must not keep the others, the
	// namespaces and the CRD in place: each failure is reported and the
	// reset goes on.
	var failures []error
	for _, u := range listed {
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
				failures = append(failures, fmt.Errorf("%s: %w", i18n.T("reset.drop_temp_finalizers", i18n.Args{"Name": name}), err))
			}
			log("%s", i18n.T("reset.deleted_temp", i18n.Args{"Name": name}))
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
			log("%s", i18n.T("reset.deleted_archived", i18n.Args{"Name": name, "File": archivedTo, "Finalizer": teamspace.Finalizer}))
		} else {
			log("%s", i18n.T("reset.deleted_teamspace", i18n.Args{"Name": name}))
		}
	}
	held := map[string][]string{}
	err := wait(ctx, env.Timeout, func(ctx context.Context) (bool, error) {
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
		return errors.Join(append(failures, i18n.NewError("reset.foreign_finalizers", i18n.Args{"Names": i18n.List(names)}))...)
	}
	return errors.Join(failures...)
}

// releaseOurs keeps our finalizer's promise for a TeamSpace being deleted,
// as the controller's finalize does (archive.ThenRelease), with reset's
// policy, archive.ReleaseAnyway: a record that cannot be written (a name
// too long for a file, say) must not keep the lab from starting over, so
// the TeamSpace is released without it and the log says so. It retries on
// a conflict from fresh state. It reports where it archived ("" when it did
// not).
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
		var file string
		out, err := archive.ThenRelease(ts, archive.ReleaseAnyway,
			func(rec evidence.ArchiveRecord) error {
				var held string
				if file, held = archiveFile(env.ArchiveDir(), ts.Name, ts.UID); held != "" {
					log("%s", i18n.T("reset.kept_archive", i18n.Args{"Kept": filepath.Join(env.ArchiveDir(), ts.Name+".json"), "Held": held,
						"UID": ts.UID, "Name": name, "File": filepath.Join(env.ArchiveDir(), file)}))
				}
				return evidence.WriteArchiveAs(env.ArchiveDir(), file, rec)
			},
			func(finalizers []string) error {
				_, err := teamspace.SetFinalizers(ctx, env.Clients.Dynamic, ts, finalizers, fieldManager)
				return err
			})
		if out.ArchiveErr != nil {
			if err != nil && !apierrors.IsNotFound(err) {
				return "", fmt.Errorf("%s: %w", i18n.T("reset.archive_and_release_failed", i18n.Args{"Name": name, "Err": fmt.Sprint(out.ArchiveErr), "Finalizer": teamspace.Finalizer}), err)
			}
			log("%s", i18n.T("reset.released_no_record", i18n.Args{"Name": name, "Err": fmt.Sprint(out.ArchiveErr)}))
			return "", nil
		}
		switch {
		case !out.Ours:
			return "", nil
		case err == nil, apierrors.IsNotFound(err):
			return filepath.Join(env.ArchiveDir(), file), nil
		case apierrors.IsConflict(err) && attempt < 10:
			continue // someone wrote it since we read it: read again
		default:
			return "", fmt.Errorf("remove finalizer %s from %s: %w", teamspace.Finalizer, name, err)
		}
	}
}

// archiveFile is the file in dir that TeamSpace name with uid is archived
// to: <name>.json, unless that holds a record of another uid (step 6's
// beta, say, when a newer beta is being reset) or one that does not read.
// Such a record is never overwritten: this one goes beside it,
// <name>.<uid>.json, and held says what the kept one holds.
func archiveFile(dir, name string, uid types.UID) (file, held string) {
	old, err := evidence.ReadArchive(dir, name)
	switch {
	case err != nil:
		return name + "." + string(uid) + ".json", i18n.T("reset.unreadable_record")
	case old != nil && old.UID != string(uid):
		return name + "." + string(uid) + ".json", "uid " + old.UID
	}
	return name + ".json", ""
}

// deleteCRD is phase 5: the TeamSpaces' type goes last, once nothing of its kind is left.
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
	log("%s", i18n.T("reset.deleted_crd", i18n.Args{"CRD": teamspace.CRDName}))
	return nil
}

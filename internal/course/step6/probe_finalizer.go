package step6

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/ssaconflict"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Finalizer is the grader of step 6 and more: a TeamSpace created with
// a foreign finalizer gets ours added beside it; deleted, it is archived,
// loses only ours and stays, held by the foreign one, until the grader
// removes that too. It returns the verdicts of
// step6.finalizer_added_keeps_foreign and step6.delete_archives.
func Finalizer(ctx context.Context, r *check.Session) []lab.Verdict {
	r.Note(i18n.T("check.progress.finalizer", i18n.Args{"Foreign": check.ForeignFinalizer}))
	added, deleted := finalizer(ctx, r)
	return []lab.Verdict{added, deleted}
}

// finalizer is Finalizer's two verdicts.
func finalizer(ctx context.Context, r *check.Session) (added, deleted lab.Verdict) {
	env, tmp, timeout := r.Env(), r.Temps(), r.Timeout()
	wantAdded := i18n.T("check.finalizer.want_added", i18n.Args{"Finalizers": check.ForeignFinalizer + " " + teamspace.Finalizer, "Timeout": timeout})
	// spec.pods as the drift probe's, which may edit its quota.
	ts, err := tmp.New(ctx, check.DriftPods, "", []string{check.ForeignFinalizer})
	if err != nil {
		return lab.Holds(false, wantAdded, err.Error()), lab.Skipped(i18n.T("check.finalizer.no_temp"))
	}
	r.Lend(ts)
	ok, seen := check.Await(ctx, timeout, func(ctx context.Context) (bool, string) {
		live, err := teamspace.Get(ctx, env.Clients.Dynamic, ts.Name)
		if err != nil || live == nil {
			return false, fmt.Sprintf("%s: %v", ts.Name, check.OrGone(err))
		}
		return teamspace.HasFinalizer(live.Finalizers, check.ForeignFinalizer) && teamspace.HasFinalizer(live.Finalizers, teamspace.Finalizer),
			fmt.Sprintf("%s finalizers %v", ts.Name, live.Finalizers)
	})
	if !ok {
		var mistake lab.Mistake
		if live, _ := teamspace.Get(ctx, env.Clients.Dynamic, ts.Name); live != nil && teamspace.HasFinalizer(live.Finalizers, teamspace.Finalizer) &&
			!teamspace.HasFinalizer(live.Finalizers, check.ForeignFinalizer) {
			seen += i18n.T("check.finalizer.dropped", i18n.Args{"Keep": lab.Say(lab.KeepOtherFinalizers)})
			mistake = lab.MistakeFinalizerList
		} else {
			stop := r.StopsBefore(ctx, ts.Name)
			seen += stop
			if refusedFinalizerOverwrite(stop) {
				// The own identity's admission policy refused the
				// overwrite; the controller's log says so.
				mistake = lab.MistakeFinalizerList
			}
		}
		var conflict *ssaconflict.Conflict
		if mistake.IsZero() {
			conflict = r.Conflict(ctx)
		}
		r.Phase(ctx, check.PhaseDelete)
		_ = tmp.Discard(ctx, ts.Name)
		v := lab.Holds(false, wantAdded, seen)
		v.Mistake = mistake
		v = check.WithConflict(v, conflict)
		return v, lab.Skipped(i18n.T("check.finalizer.never_added"))
	}
	added = lab.Holds(true, wantAdded, seen)

	// Deleted in phase 3, with every probe's: never while the drift
	// probe's quotas must come back with no TeamSpace changing.
	r.Phase(ctx, check.PhaseDelete)

	wantDeleted := i18n.T("check.finalizer.want_deleted", i18n.Args{"Foreign": check.ForeignFinalizer, "Timeout": timeout.String()})
	res := env.Clients.Dynamic.Resource(teamspace.GVR)
	if err := res.Delete(ctx, ts.Name, metav1.DeleteOptions{}); err != nil {
		return added, lab.Holds(false, wantDeleted, "delete: "+err.Error())
	}
	var final *teamspace.TeamSpace
	vanished := false
	ok, seen = check.Await(ctx, timeout, func(ctx context.Context) (bool, string) {
		live, err := teamspace.Get(ctx, env.Clients.Dynamic, ts.Name)
		if err != nil {
			return false, err.Error()
		}
		if live == nil {
			vanished = true
			return true, i18n.T("check.finalizer.foreign_removed", i18n.Args{"Name": ts.Name})
		}
		final = live
		return !teamspace.HasFinalizer(live.Finalizers, teamspace.Finalizer), fmt.Sprintf("%s finalizers %v", ts.Name, live.Finalizers)
	})
	// The record must be on disk by the time our finalizer is off.
	rec, recErr := evidence.ReadArchive(env.ArchiveDir(), ts.Name)
	switch {
	case vanished:
		// Another controller's cleanup is not ours to skip.
		deleted = lab.Holds(false, wantDeleted, seen)
		deleted.Mistake = lab.MistakeFinalizerList
	case !ok:
		deleted = lab.Holds(false, wantDeleted, seen)
	case !slices.Equal(final.Finalizers, []string{check.ForeignFinalizer}) || final.DeletionTimestamp == nil:
		deleted = lab.Holds(false, wantDeleted, fmt.Sprintf("%s, deletionTimestamp %v", seen, final.DeletionTimestamp))
	case tmp.Remote():
		// The record is on the learner's VM, out of this machine's sight.
		deleted = lab.Holds(true, wantDeleted, i18n.T("check.finalizer.remote", i18n.Args{"Finalizers": fmt.Sprint(final.Finalizers)}))
	case recErr != nil || rec == nil:
		deleted = lab.Holds(false, wantDeleted, i18n.T("check.finalizer.no_record", i18n.Args{"Seen": seen, "Path": filepath.Join(env.ArchiveDir(), ts.Name+".json"), "Err": fmt.Sprint(check.OrGone(recErr))}))
		deleted.Mistake = lab.MistakeNoArchive
	case rec.UID != string(ts.UID) || rec.Name != ts.Name:
		data, _ := json.Marshal(rec)
		deleted = lab.Holds(false, wantDeleted, i18n.T("check.finalizer.wrong_record", i18n.Args{"Record": string(data), "UID": ts.UID}))
	default:
		deleted = lab.Holds(true, wantDeleted, i18n.T("check.finalizer.got", i18n.Args{"Finalizers": fmt.Sprint(final.Finalizers), "UID": rec.UID}))
	}
	// Our part done: drop the foreign finalizer, with the resourceVersion
	// read as precondition so nothing else is lost. A conflict or any other
	// failure is left to cleanup, which drops what is left.
	if final != nil && !vanished {
		_, _ = teamspace.SetFinalizers(ctx, env.Clients.Dynamic, final, teamspace.WithoutFinalizer(final.Finalizers, check.ForeignFinalizer), check.FieldManager)
	}
	// Gone when the check ends, whatever the controller did.
	_ = tmp.Discard(ctx, ts.Name)
	return added, deleted
}

// finalizerRefusal is what the own identity's admission policy
// (assets/admission.yaml) answers a controller that overwrites the
// finalizer list: seen in the controller's log, it shows the mistake.
const finalizerRefusal = "may only add or remove the finalizer"

// refusedFinalizerOverwrite tells whether what the controller's log says
// about a probe is the admission policy refusing a finalizer overwrite.
func refusedFinalizerOverwrite(logSays string) bool {
	return strings.Contains(logSays, finalizerRefusal)
}

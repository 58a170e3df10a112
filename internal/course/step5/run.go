package step5

import (
	"context"
	"fmt"
	"math"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/reaction"
	"github.com/labhub/cnpa/internal/steps"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/timeline"
)

// Run drives step 5 against the live cluster and writes drift.json: the
// quota deleted and watched until the controller restores it, then
// edited to 99 and watched until it is reverted.
func Run(ctx context.Context, env *steps.Lab, s *steps.Step) (*steps.Result, error) {
	var kept lab.DriftRecord
	if r, ok, err := steps.Keep(ctx, env, s, &kept); ok || err != nil {
		return r, err
	}
	alpha, err := steps.NeedAlpha(ctx, env, s.Number)
	if err != nil {
		return nil, err
	}
	if st, _ := env.Service.Status(ctx); !st.Active {
		return nil, steps.SayError("steps.need.controller", "N", 5)
	}
	ns := teamspace.NamespaceName("alpha")
	quotas := env.Clients.Kube.CoreV1().ResourceQuotas(ns)
	list, err := quotas.List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", teamspace.QuotaName).String()})
	if err != nil {
		return nil, err
	}
	if len(list.Items) == 0 {
		return nil, steps.SayError("steps.step5.no_quota")
	}
	old := list.Items[0]
	r := &steps.Result{Step: s.Number, Title: s.EnglishTitle()}
	if err := freshBaseline(env, r, &old); err != nil {
		return nil, err
	}
	// Watch from the list's resourceVersion, opened before the delete,
	// so the restore is seen the moment it happens.
	w, err := quotas.Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", teamspace.QuotaName).String(),
		ResourceVersion: list.ResourceVersion})
	if err != nil {
		return nil, err
	}
	defer w.Stop()
	alphaOnly := reaction.Only("alpha")
	rx, err := reaction.Start(ctx, env.Env, s.Number, s.EnglishTitle(), reaction.Quotas(alphaOnly), reaction.Events(alphaOnly), reaction.ServiceLog(alphaOnly))
	if err != nil {
		return nil, err
	}
	defer rx.Stop()
	sh := steps.Show(env)
	quota := steps.QuotaObj(ns)
	uidOf := steps.Kubectl(append(append([]string{"get"}, quota.Args()...), "-o", "jsonpath={.metadata.uid}")...)
	sh.ReadBack("deleted_uid", quota, "{.metadata.uid}", &old)
	sh.Cmd("start=$(date +%s%N)")
	rx.Action(steps.DeleteCmd(quota), timeline.Say("timeline.what.you_deleted_uid", "Object", quota.Name, "UID", string(old.UID)), quota.Target(), reaction.DeletedKey(string(old.UID)))
	start := time.Now()
	if err := sh.Remove(ctx, env, quota); err != nil {
		return nil, err
	}
	sh.WaitCmd(steps.Until(`restored_uid=$(` + uidOf + ` 2>/dev/null) && [ -n "$restored_uid" ] && [ "$restored_uid" != "$deleted_uid" ]`))
	restored, err := watchQuota(ctx, env, w, steps.Say("steps.what.quota_restored"), whyQuotaRestored, func(q *corev1.ResourceQuota) bool { return q.UID != old.UID })
	if err != nil && ctx.Err() != nil {
		return nil, err
	}
	if err != nil {
		return nil, steps.Diagnosis(err.Error(), []string{steps.Say("steps.step5.diag_edge")}, steps.ServiceTail(ctx, env))
	}
	took := time.Since(start)
	rx.SawNow(reaction.VersionKey(restored.ResourceVersion))
	ev := lab.DriftRecord{DeletedUID: string(old.UID), RestoredUID: string(restored.UID), EditedTo: "99",
		RestoreSeconds: int64(math.Ceil(took.Seconds()))}
	r.Note("%s", steps.Say("steps.step5.restored", "MS", took.Milliseconds(), "Seconds", ev.RestoreSeconds))
	sh.Value(restored.UID)
	sh.Set("restore_seconds", "$(( ($(date +%s%N) - start + 999999999) / 1000000000 ))", ev.RestoreSeconds)

	w2, err := quotas.Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", teamspace.QuotaName).String(),
		ResourceVersion: restored.ResourceVersion})
	if err != nil {
		return nil, err
	}
	defer w2.Stop()
	// The same patch `kubectl patch` sends, under its field manager.
	const edit = `{"spec":{"hard":{"pods":"99"}}}`
	rx.You(steps.PatchCmd(quota, edit), timeline.Say("timeline.what.you_set_to", "Field", quota.Name+" hard.pods", "Value", "99"), quota.Target())
	// edited_to is read from the patch's answer: the controller may
	// revert the edit before any later read.
	edited, err := sh.MergePatchInto(ctx, env, quota, edit, "edited_to", "{.spec.hard.pods}")
	if err != nil {
		return nil, err
	}
	editStart := time.Now()
	rx.Echo(edited.GetResourceVersion())
	// Events arrive in order: first our edit, then the revert. Earlier
	// events (the quota controller's status write) must not count.
	seenEdit := false
	sh.WaitCmd(steps.Until(`[ "$(` + steps.Kubectl(append(append([]string{"get"}, quota.Args()...), "-o", "jsonpath={.spec.hard.pods}")...) + `)" != 99 ]`))
	reverted, err := watchQuota(ctx, env, w2, steps.Say("steps.what.quota_reverted"), whyQuotaReverted, func(q *corev1.ResourceQuota) bool {
		if q.ResourceVersion == edited.GetResourceVersion() {
			seenEdit = true
			return false
		}
		return seenEdit && teamspace.QuotaPods(q) != "99"
	})
	if err != nil && ctx.Err() == nil {
		// The controller's output names who owns the field when its
		// apply was refused; else the likely cause, said in general.
		if c := steps.ApplyConflict(ctx, env); c != nil {
			return nil, steps.DiagnosisLines(err.Error(), []string{steps.ConflictLines(c)}, steps.ServiceTail(ctx, env))
		}
		return nil, steps.Diagnosis(err.Error(), []string{steps.Say("steps.step5.diag_conflict")}, steps.ServiceTail(ctx, env))
	}
	if err != nil {
		return nil, err
	}
	rx.SawNow(reaction.VersionKey(reverted.ResourceVersion))
	p := reverted.Spec.Hard[corev1.ResourcePods]
	ev.RevertedTo = p.Value()
	r.Note("%s", steps.Say("steps.step5.reverted", "To", ev.RevertedTo, "MS", time.Since(editStart).Milliseconds()))
	sh.ReadBack("reverted_to", quota, "{.spec.hard.pods}", reverted)
	if r.File, err = sh.WriteEvidence(env, s.File, ev); err != nil {
		return nil, err
	}
	r.Evidence = ev
	if err := r.Judge(env.Steps.Lab().Read(env.Dir), s.File, ev, alpha); err != nil {
		return nil, err
	}
	r.FinishTimeline(ctx, rx)
	return r, nil
}

// watchQuota reads w until a quota satisfies done, or the timeout passes
// (the error then names the last quota seen).
func watchQuota(ctx context.Context, env *steps.Lab, w watch.Interface, what, why string, done func(*corev1.ResourceQuota) bool) (q *corev1.ResourceQuota, err error) {
	timeout := time.NewTimer(env.Timeout)
	defer timeout.Stop()
	live := steps.StartWait(env, what, why)
	defer func() {
		switch {
		case err == nil:
			live.Done(steps.Say("steps.outcome.done"))
		case ctx.Err() != nil:
			live.Done(steps.Say("steps.outcome.interrupted"))
		default:
			live.Done(steps.Say("steps.outcome.gave_up"))
		}
	}()
	last := steps.Say("steps.wait.no_event")
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				return nil, steps.SayError("steps.wait.watch_closed", "What", what, "Last", last)
			}
			q, isQuota := ev.Object.(*corev1.ResourceQuota)
			if !isQuota {
				continue
			}
			last = fmt.Sprintf("%s uid=%s pods=%s", ev.Type, q.UID, teamspace.QuotaPods(q))
			if ev.Type != watch.Deleted && done(q) {
				return q, nil
			}
		case <-timeout.C:
			return nil, steps.SayError("steps.wait.gave_up", "What", what, "Took", env.Timeout, "Last", last)
		case <-ctx.Done():
			return nil, fmt.Errorf("%s: %w", steps.Say("steps.wait.while", "What", what), ctx.Err())
		}
	}
}

// freshBaseline makes the quota about to be deleted the one reconcile.json
// names. They differ when an earlier try of this step deleted the quota
// step 3 made and then failed or was interrupted (the controller restored
// it later, under a new uid), or when somebody deleted it by hand: the
// quota step 3 made is gone for good, and without a new baseline no rerun
// could ever pass (drift.json deleted_uid must be reconcile.json
// quota_uid). LAB.md's quota_uid is "the uid of team-alpha/team-quota",
// which the live one now is.
func freshBaseline(env *steps.Lab, r *steps.Result, live *corev1.ResourceQuota) error {
	var rec lab.ReconcileRecord
	problems, err := env.Steps.Lab().ReadFile(env.Dir, lab.ReconcileFile, &rec)
	if err != nil || len(problems) > 0 || rec.QuotaUID == string(live.UID) {
		return nil // missing or damaged: its own checks say so
	}
	was := rec.QuotaUID
	rec.QuotaUID = string(live.UID)
	path, err := evidence.Write(env.Dir, lab.ReconcileFile, rec)
	if err != nil {
		return err
	}
	steps.Show(env).Cmd("jq --arg uid " + steps.Quote(string(live.UID)) + " '.quota_uid = $uid' " + steps.Quote(path) + " > " + steps.Quote(path+".tmp") +
		" && mv " + steps.Quote(path+".tmp") + " " + steps.Quote(path))
	r.Note("%s", steps.Say("steps.step5.baseline", "Was", was, "UID", live.UID))
	return nil
}

// Why step 5's waits take the time they take, as the live wait says
// it (steps.StartWait): who is expected to act, and why it is not instant.
const (
	whyQuotaRestored = "steps.why.quota_restored"
	whyQuotaReverted = "steps.why.quota_reverted"
)

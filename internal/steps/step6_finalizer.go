package steps

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/reaction"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/timeline"
)

// BetaYAML is the TeamSpace step 6 creates and deletes.
const BetaYAML = `apiVersion: platform.labhub.io/v1alpha1
kind: TeamSpace
metadata:
  name: beta
spec:
  pods: 2
  cpu: "500m"
`

// RunCleanup runs step 6 (course/step6 binds it to the step).
func RunCleanup(ctx context.Context, env *Lab, s *Step) (*Result, error) {
	var kept lab.CleanupRecord
	if r, ok, err := keep(ctx, env, s, &kept); ok || err != nil {
		return r, err
	}
	if _, err := needAlpha(ctx, env, s.Number); err != nil {
		return nil, err
	}
	if st, _ := env.Service.Status(ctx); !st.Active {
		return nil, errors.New(say("steps.need.controller", "N", 6))
	}
	r := &Result{Step: s.Number, Title: s.EnglishTitle()}
	// The lab's "extend reconcile.sh": turn finalizer handling on in the
	// script and in the running service.
	env.State.Finalizer = true
	if err := env.SaveState(); err != nil {
		return nil, err
	}
	if err := env.InstallScript(); err != nil {
		return nil, err
	}
	sh := show(env)
	if env.Engine != labenv.EngineOwn {
		sh.comment("%s", say("steps.step6.script"))
		sh.cmd(cnpaCmd(env, "scaffold", labenv.ScriptName, "--engine", env.Engine, "--finalizer=true", "--force"))
	}
	if env.Engine == labenv.EngineGo {
		// Step 4 showed the unit; this step shows what changes in it.
		before, _ := os.ReadFile(env.Service.UnitPath())
		if err := env.InstallService(ctx, true); err != nil {
			return nil, err
		}
		sh.comment("%s", say("steps.step6.unit"))
		showUnit(sh, env, true, before)
	}
	if env.Engine == labenv.EngineOwn {
		r.note("%s", say("steps.step6.yours", "Script", env.ScriptPath(), "Finalizer", teamspace.Finalizer))
	} else {
		id := "steps.step6.on"
		if env.Engine == labenv.EngineGo {
			id = "steps.step6.on_restarted"
		}
		r.noteUnshown(env, "%s", say(id, "Script", env.ScriptPath()))
	}
	res := env.Clients.Dynamic.Resource(teamspace.GVR)
	sh.waitCmd(until(`[[ "$(` + getCmd(teamspaceObj("alpha"), "{.metadata.finalizers}") + `)" == *` + teamspace.Finalizer + `* ]]`))
	if _, err := waitFor(ctx, env, say("steps.what.finalizer_added", "Finalizer", teamspace.Finalizer), whyFinalizerAdded, func(ctx context.Context) (bool, string, error) {
		a, err := teamspace.Get(ctx, env.Clients.Dynamic, "alpha")
		if err != nil || a == nil {
			return false, say("steps.seen.absent", "Name", "alpha"), err
		}
		return teamspace.HasFinalizer(a.Finalizers, teamspace.Finalizer), fmt.Sprintf("finalizers %v", a.Finalizers), nil
	}); err != nil {
		return nil, diagnosis(err.Error(), []string{mistakeFor(teamspace.Gap{Kind: teamspace.GapFinalizer}, nil).Advise()}, serviceTail(ctx, env))
	}
	if err := earlierBeta(ctx, env, sh, r); err != nil {
		return nil, err
	}
	betaPath, err := sh.writeFile(env, "beta.yaml", []byte(BetaYAML))
	if err != nil {
		return nil, err
	}
	if err := sh.apply(ctx, env, betaPath, []byte(BetaYAML)); err != nil {
		return nil, err
	}
	beta, err := teamspace.Get(ctx, env.Clients.Dynamic, "beta")
	if err != nil || beta == nil {
		return nil, fmt.Errorf("%s: %v", say("steps.step6.beta_created"), err)
	}
	sh.readBack("uid", teamspaceObj("beta"), "{.metadata.uid}", beta)
	sh.waitCmd(until(kubectl("get", "namespace", "team-beta", "-o", "name") + ` >/dev/null 2>&1 && [[ "$(` + getCmd(teamspaceObj("beta"), "{.metadata.finalizers}") + `)" == *` + teamspace.Finalizer + `* ]]`))
	if _, err := waitFor(ctx, env, say("steps.what.beta_converged"), whyBetaConverged, func(ctx context.Context) (bool, string, error) {
		exists, err := namespaceExists(ctx, env, "team-beta")
		b, gerr := teamspace.Get(ctx, env.Clients.Dynamic, "beta")
		if err != nil || gerr != nil || b == nil {
			return false, "", err
		}
		return exists && teamspace.HasFinalizer(b.Finalizers, teamspace.Finalizer),
			say("steps.seen.beta_converging", "Exists", exists, "Finalizers", fmt.Sprint(b.Finalizers)), nil
	}); err != nil {
		return nil, err
	}
	// The watch is open before the delete, so the update that sets
	// deletionTimestamp is seen however fast the controller then
	// removes the finalizer: blocked_seen does not depend on a race.
	w, err := res.Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", "beta").String()})
	if err != nil {
		return nil, err
	}
	defer w.Stop()
	betaOnly := reaction.Only("beta")
	rx, err := reaction.Start(ctx, env.Env, s.Number, s.EnglishTitle(), reaction.TeamSpaces(betaOnly), reaction.Namespaces(betaOnly),
		reaction.Archive("beta"), reaction.Events(betaOnly), reaction.ServiceLog(betaOnly))
	if err != nil {
		return nil, err
	}
	defer rx.Stop()
	// The timeline is "since" the command shown for the delete, as typed.
	betaAPI := "/apis/" + teamspace.APIVersion + "/" + teamspace.Resource + "/beta"
	rx.Action(deleteRawCmd(betaAPI), timeline.Say("timeline.what.you_deleted_uid", "Object", "TeamSpace beta", "UID", string(beta.UID)), "teamspace beta")
	ev := lab.CleanupRecord{UID: string(beta.UID)}
	// The DELETE's own answer is beta as the server left it: with a
	// finalizer, still there with a deletionTimestamp. Read from the
	// answer, blocked_seen does not race the controller's release.
	answer, err := deleteRaw(ctx, env, sh, betaAPI, "blocked_seen", ".metadata.deletionTimestamp != null")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", say("steps.step6.delete_beta"), err)
	}
	rx.SawNow(reaction.DeletionKey("beta"))
	ev.BlockedSeen = answer.GetDeletionTimestamp() != nil
	sh.value(ev.BlockedSeen)
	if ev.BlockedSeen {
		r.noteUnshown(env, "%s", say("steps.step6.delete_answered", "Time", answer.GetDeletionTimestamp().UTC().Format(time.RFC3339), "Finalizers", fmt.Sprint(answer.GetFinalizers())))
	}
	sh.waitCmd(kubectlWait(env, teamspaceObj("beta"), "delete"))
	betaGone := say("steps.what.beta_gone")
	betaWait := startWait(env, betaGone, whyBetaGone)
	deadline := time.After(env.Timeout)
	gone := false
	for !gone {
		select {
		case e, ok := <-w.ResultChan():
			if !ok && ctx.Err() != nil {
				// Ctrl-C closes the watch: say so, as waitFor does.
				betaWait.Done(say("steps.outcome.interrupted"))
				return nil, fmt.Errorf("%s: %w", say("steps.wait.while", "What", betaGone), ctx.Err())
			}
			if !ok {
				betaWait.Done(say("steps.outcome.gave_up"))
				return nil, errors.New(say("steps.step6.watch_closed"))
			}
			u, _ := e.Object.(*unstructured.Unstructured)
			if u == nil {
				continue
			}
			if e.Type == watch.Modified && u.GetDeletionTimestamp() != nil && !ev.BlockedSeen {
				// Noted only when the DELETE's answer did not already
				// show it: the same fact once.
				ev.BlockedSeen = true
				r.note("%s", say("steps.step6.beta_seen", "Time", u.GetDeletionTimestamp().UTC().Format(time.RFC3339), "Finalizers", fmt.Sprint(u.GetFinalizers())))
			}
			gone = e.Type == watch.Deleted
		case <-deadline:
			betaWait.Done(say("steps.outcome.gave_up"))
			b, _ := teamspace.Get(ctx, env.Clients.Dynamic, "beta")
			last := say("steps.step6.gone_meanwhile")
			if b != nil {
				last = fmt.Sprintf("deletionTimestamp %v, finalizers %v", b.DeletionTimestamp, b.Finalizers)
				if teamspace.HasFinalizer(b.Finalizers, teamspace.Finalizer) {
					last = say("steps.step6.left_on_beta", "Finalizer", teamspace.Finalizer, "Time", fmt.Sprint(b.DeletionTimestamp), "Finalizers", fmt.Sprint(b.Finalizers))
				}
			}
			mistakes := []string{say("steps.step6.diag_release", "Finalizer", teamspace.Finalizer)}
			if held := heldProbe(env); held != "" {
				mistakes = append(mistakes, say("steps.step6.probe_held", "Held", held))
			}
			return nil, diagnosis(say("steps.step6.not_gone", "Timeout", env.Timeout, "Last", last), mistakes, serviceTail(ctx, env))
		}
	}
	betaWait.Done(say("steps.outcome.beta_gone"))
	sh.waitCmd(kubectlWait(env, namespaceObj("team-beta"), "delete"))
	if _, err := waitFor(ctx, env, say("steps.what.garbage_collected"), whyGarbageCollected, func(ctx context.Context) (bool, string, error) {
		ns, err := env.Clients.Kube.CoreV1().Namespaces().Get(ctx, "team-beta", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, "", nil
		}
		if err != nil {
			return false, "", err
		}
		return false, say("steps.seen.namespace_phase", "Namespace", "team-beta", "Phase", string(ns.Status.Phase)), nil
	}); err != nil {
		return nil, err
	}
	ev.NamespaceGone = true
	sh.exists("team_beta_exists", namespaceObj("team-beta"), false)
	sh.set("namespace_gone", `$([ "$team_beta_exists" = false ] && echo true || echo false)`, ev.NamespaceGone)
	rec, err := evidence.ReadArchive(env.ArchiveDir(), "beta")
	if err != nil {
		return nil, err
	}
	if rec == nil {
		r.note("%v", diagnosis(say("steps.step6.no_archive", "Path", filepath.Join(env.ArchiveDir(), "beta.json")),
			[]string{say("steps.step6.diag_no_archive", "Finalizer", teamspace.Finalizer)}, ""))
	}
	if r.File, err = sh.writeEvidence(env, s.File, ev); err != nil {
		return nil, err
	}
	r.Evidence = ev
	// cleanup.json's rules compare with archive/beta.json, not alpha.
	if err := r.judge(env.Steps.Lab().Read(env.Dir), s.File, ev, nil); err != nil {
		return nil, err
	}
	// cleanup.json's uid rule above compares it with the record's uid.
	if rec != nil {
		r.check("archive/beta.json pods", rec.Pods, 2)
	} else {
		r.check("archive/beta.json", "<missing>", say("steps.step6.want_archive"))
	}
	r.finishTimeline(ctx, rx)
	return r, nil
}

// earlierBeta deals with the beta an earlier step 6 left when it was cut
// short (Ctrl-C, a timeout), so that the rerun needs nothing done by hand:
//   - being deleted, or gone with its team-beta still there (the garbage
//     collector deletes it next): wait until both are gone, as that try
//     would have; this run then deletes a beta of its own;
//   - not deleted yet (the try stopped before its delete): it is the beta
//     of beta.yaml, which this run applies again and goes on with.
func earlierBeta(ctx context.Context, env *Lab, sh shell, r *Result) error {
	old, err := teamspace.Get(ctx, env.Clients.Dynamic, "beta")
	if err != nil {
		return err
	}
	ns, err := getNamespace(ctx, env, "team-beta")
	if err != nil {
		return err
	}
	switch {
	case old != nil && old.DeletionTimestamp == nil:
		r.note("%s", say("steps.step6.beta_exists", "UID", old.UID))
		return nil
	case old == nil && ns == nil:
		return nil
	}
	r.note("%s", say("steps.step6.earlier"))
	sh.waitCmd(kubectlWait(env, teamspaceObj("beta"), "delete"))
	sh.waitCmd(kubectlWait(env, namespaceObj("team-beta"), "delete"))
	_, err = waitFor(ctx, env, say("steps.what.earlier_beta_gone"), whyEarlierBetaGone, func(ctx context.Context) (bool, string, error) {
		b, err := teamspace.Get(ctx, env.Clients.Dynamic, "beta")
		if err != nil {
			return false, "", err
		}
		ns, err := getNamespace(ctx, env, "team-beta")
		if err != nil {
			return false, "", err
		}
		switch {
		case b != nil:
			return false, say("steps.seen.deleting", "Name", "beta", "UID", b.UID, "Time", fmt.Sprint(b.DeletionTimestamp), "Finalizers", fmt.Sprint(b.Finalizers)), nil
		case ns != nil:
			return false, say("steps.seen.gone_namespace_phase", "Name", "beta", "Namespace", "team-beta", "Phase", string(ns.Status.Phase)), nil
		}
		return true, "", nil
	})
	return err
}

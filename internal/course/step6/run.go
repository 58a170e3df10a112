package step6

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/labhub/cnpa/internal/course/step4"
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/reaction"
	"github.com/labhub/cnpa/internal/steps"
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

// betaDiff compares a learner's beta.yaml with the lab text's step 6's
// beta (pods 2, cpu "500m"): anything more is theirs to add.
var betaDiff = steps.FieldsDiff([]steps.Field{
	{Path: []string{"apiVersion"}, Want: teamspace.APIVersion},
	{Path: []string{"kind"}, Want: teamspace.Kind},
	{Path: []string{"metadata", "name"}, Want: "beta"},
	{Path: []string{"spec", "pods"}, Want: float64(2)},
	{Path: []string{"spec", "cpu"}, Want: "500m"},
})

// Run drives step 6 against the live cluster and writes cleanup.json:
// finalizer handling turned on, beta created and deleted, its deletion
// seen blocked by the finalizer, beta and team-beta watched until gone,
// and the archive record read.
func Run(ctx context.Context, env *steps.Lab, s *steps.Step) (*steps.Result, error) {
	var kept lab.CleanupRecord
	if r, ok, err := steps.Keep(ctx, env, s, &kept); ok || err != nil {
		return r, err
	}
	if _, err := steps.NeedAlpha(ctx, env, s.Number); err != nil {
		return nil, err
	}
	if st, _ := env.Service.Status(ctx); !st.Active {
		return nil, steps.SayError("steps.need.controller", "N", 6)
	}
	r := &steps.Result{Step: s.Number, Title: s.EnglishTitle()}
	// The lab's "extend reconcile.sh": turn finalizer handling on in the
	// script and in the running service.
	env.State.Finalizer = true
	if err := env.SaveState(); err != nil {
		return nil, err
	}
	if err := env.InstallScript(); err != nil {
		return nil, err
	}
	sh := steps.Show(env)
	if env.Engine != labenv.EngineOwn {
		sh.Comment("%s", steps.Say("steps.step6.script"))
		sh.Cmd(steps.CnpaCmd(env, "scaffold", labenv.ScriptName, "--engine", env.Engine, "--finalizer=true", "--force"))
	}
	if env.Engine == labenv.EngineGo {
		// Step 4 showed the unit; this step shows what changes in it.
		before, _ := os.ReadFile(env.Service.UnitPath())
		if err := env.InstallService(ctx, true); err != nil {
			return nil, err
		}
		sh.Comment("%s", steps.Say("steps.step6.unit"))
		steps.ShowUnit(sh, env, true, before)
	}
	if env.Engine == labenv.EngineOwn {
		r.Note("%s", steps.Say("steps.step6.yours", "Script", env.ScriptPath(), "Finalizer", teamspace.Finalizer))
	} else {
		id := "steps.step6.on"
		if env.Engine == labenv.EngineGo {
			id = "steps.step6.on_restarted"
		}
		r.NoteUnshown(env, "%s", steps.Say(id, "Script", env.ScriptPath()))
	}
	res := env.Clients.Dynamic.Resource(teamspace.GVR)
	sh.WaitCmd(steps.Until(`[[ "$(` + steps.GetCmd(steps.TeamspaceObj("alpha"), "{.metadata.finalizers}") + `)" == *` + teamspace.Finalizer + `* ]]`))
	if _, err := steps.WaitFor(ctx, env, steps.Say("steps.what.finalizer_added", "Finalizer", teamspace.Finalizer), whyFinalizerAdded, func(ctx context.Context) (bool, string, error) {
		a, err := teamspace.Get(ctx, env.Clients.Dynamic, "alpha")
		if err != nil || a == nil {
			return false, steps.Say("steps.seen.absent", "Name", "alpha"), err
		}
		return teamspace.HasFinalizer(a.Finalizers, teamspace.Finalizer), fmt.Sprintf("finalizers %v", a.Finalizers), nil
	}); err != nil {
		return nil, steps.Diagnosis(err.Error(), []string{lab.MistakeNoFinalizer.Advise()}, steps.ServiceTail(ctx, env))
	}
	if err := earlierBeta(ctx, env, sh, r); err != nil {
		return nil, err
	}
	// A beta.yaml of the learner's that says what the lab text's beta
	// says is theirs, applied as it is (as alpha.yaml is at step 1).
	betaPath, betaYAML, _, err := steps.LearnersOrLabs(env, sh, "beta.yaml", []byte(BetaYAML), betaDiff, "steps.step6.yours_differs")
	if err != nil {
		return nil, err
	}
	if err := sh.Apply(ctx, env, betaPath, betaYAML); err != nil {
		return nil, err
	}
	beta, err := teamspace.Get(ctx, env.Clients.Dynamic, "beta")
	if err != nil || beta == nil {
		return nil, fmt.Errorf("%s: %v", steps.Say("steps.step6.beta_created"), err)
	}
	sh.ReadBack("uid", steps.TeamspaceObj("beta"), "{.metadata.uid}", beta)
	sh.WaitCmd(steps.Until(steps.Kubectl("get", "namespace", "team-beta", "-o", "name") + ` >/dev/null 2>&1 && [[ "$(` + steps.GetCmd(steps.TeamspaceObj("beta"), "{.metadata.finalizers}") + `)" == *` + teamspace.Finalizer + `* ]]`))
	if _, err := steps.WaitFor(ctx, env, steps.Say("steps.what.beta_converged"), whyBetaConverged, func(ctx context.Context) (bool, string, error) {
		exists, err := steps.NamespaceExists(ctx, env, "team-beta")
		b, gerr := teamspace.Get(ctx, env.Clients.Dynamic, "beta")
		if err != nil || gerr != nil || b == nil {
			return false, "", err
		}
		return exists && teamspace.HasFinalizer(b.Finalizers, teamspace.Finalizer),
			steps.Say("steps.seen.beta_converging", "Exists", exists, "Finalizers", fmt.Sprint(b.Finalizers)), nil
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
		return nil, fmt.Errorf("%s: %w", steps.Say("steps.step6.delete_beta"), err)
	}
	rx.SawNow(reaction.DeletionKey("beta"))
	ev.BlockedSeen = answer.GetDeletionTimestamp() != nil
	sh.Value(ev.BlockedSeen)
	if ev.BlockedSeen {
		r.NoteUnshown(env, "%s", steps.Say("steps.step6.delete_answered", "Time", answer.GetDeletionTimestamp().UTC().Format(time.RFC3339), "Finalizers", fmt.Sprint(answer.GetFinalizers())))
	}
	sh.WaitCmd(steps.KubectlWait(env, steps.TeamspaceObj("beta"), "delete"))
	betaGone := steps.Say("steps.what.beta_gone")
	betaWait := steps.StartWait(env, betaGone, whyBetaGone)
	deadline := time.After(env.Timeout)
	gone := false
	for !gone {
		select {
		case e, ok := <-w.ResultChan():
			if !ok && ctx.Err() != nil {
				// Ctrl-C closes the watch: say so, as steps.WaitFor does.
				betaWait.Done(steps.Say("steps.outcome.interrupted"))
				return nil, fmt.Errorf("%s: %w", steps.Say("steps.wait.while", "What", betaGone), ctx.Err())
			}
			if !ok {
				betaWait.Done(steps.Say("steps.outcome.gave_up"))
				return nil, steps.SayError("steps.step6.watch_closed")
			}
			u, _ := e.Object.(*unstructured.Unstructured)
			if u == nil {
				continue
			}
			if e.Type == watch.Modified && u.GetDeletionTimestamp() != nil && !ev.BlockedSeen {
				// Noted only when the DELETE's answer did not already
				// show it: the same fact once.
				ev.BlockedSeen = true
				r.Note("%s", steps.Say("steps.step6.beta_seen", "Time", u.GetDeletionTimestamp().UTC().Format(time.RFC3339), "Finalizers", fmt.Sprint(u.GetFinalizers())))
			}
			gone = e.Type == watch.Deleted
		case <-deadline:
			betaWait.Done(steps.Say("steps.outcome.gave_up"))
			b, _ := teamspace.Get(ctx, env.Clients.Dynamic, "beta")
			last := steps.Say("steps.step6.gone_meanwhile")
			if b != nil {
				last = fmt.Sprintf("deletionTimestamp %v, finalizers %v", b.DeletionTimestamp, b.Finalizers)
				if teamspace.HasFinalizer(b.Finalizers, teamspace.Finalizer) {
					last = steps.Say("steps.step6.left_on_beta", "Finalizer", teamspace.Finalizer, "Time", fmt.Sprint(b.DeletionTimestamp), "Finalizers", fmt.Sprint(b.Finalizers))
				}
			}
			mistakes := []string{steps.Say("steps.step6.diag_release", "Finalizer", teamspace.Finalizer)}
			if held := step4.HeldProbe(env); held != "" {
				mistakes = append(mistakes, steps.Say("steps.step6.probe_held", "Held", held))
			}
			return nil, steps.Diagnosis(steps.Say("steps.step6.not_gone", "Timeout", env.Timeout, "Last", last), mistakes, steps.ServiceTail(ctx, env))
		}
	}
	betaWait.Done(steps.Say("steps.outcome.beta_gone"))
	sh.WaitCmd(steps.KubectlWait(env, steps.NamespaceObj("team-beta"), "delete"))
	if _, err := steps.WaitFor(ctx, env, steps.Say("steps.what.garbage_collected"), whyGarbageCollected, func(ctx context.Context) (bool, string, error) {
		ns, err := env.Clients.Kube.CoreV1().Namespaces().Get(ctx, "team-beta", metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, "", nil
		}
		if err != nil {
			return false, "", err
		}
		return false, steps.Say("steps.seen.namespace_phase", "Namespace", "team-beta", "Phase", string(ns.Status.Phase)), nil
	}); err != nil {
		return nil, err
	}
	ev.NamespaceGone = true
	sh.Exists("team_beta_exists", steps.NamespaceObj("team-beta"), false)
	sh.Set("namespace_gone", `$([ "$team_beta_exists" = false ] && echo true || echo false)`, ev.NamespaceGone)
	rec, err := evidence.ReadArchive(env.ArchiveDir(), "beta")
	if err != nil {
		return nil, err
	}
	if rec == nil {
		r.Note("%v", steps.Diagnosis(steps.Say("steps.step6.no_archive", "Path", filepath.Join(env.ArchiveDir(), "beta.json")),
			[]string{steps.Say("steps.step6.diag_no_archive", "Finalizer", teamspace.Finalizer)}, ""))
	}
	if r.File, err = sh.WriteEvidence(env, s.File, ev); err != nil {
		return nil, err
	}
	r.Evidence = ev
	// cleanup.json's rules compare with archive/beta.json, not alpha.
	if err := r.Judge(env.Steps.Lab().Read(env.Dir), s.File, ev, nil); err != nil {
		return nil, err
	}
	// cleanup.json's uid rule above compares it with the record's uid.
	if rec != nil {
		r.Check("archive/beta.json pods", rec.Pods, 2)
	} else {
		r.Check("archive/beta.json", "<missing>", steps.Say("steps.step6.want_archive"))
	}
	r.FinishTimeline(ctx, rx)
	return r, nil
}

// earlierBeta deals with the beta an earlier step 6 left when it was cut
// short (Ctrl-C, a timeout), so that the rerun needs nothing done by hand:
//   - being deleted, or gone with its team-beta still there (the garbage
//     collector deletes it next): wait until both are gone, as that try
//     would have; this run then deletes a beta of its own;
//   - not deleted yet (the try stopped before its delete): it is the beta
//     of beta.yaml, which this run applies again and goes on with.
func earlierBeta(ctx context.Context, env *steps.Lab, sh steps.Shell, r *steps.Result) error {
	old, err := teamspace.Get(ctx, env.Clients.Dynamic, "beta")
	if err != nil {
		return err
	}
	ns, err := steps.GetNamespace(ctx, env, "team-beta")
	if err != nil {
		return err
	}
	switch {
	case old != nil && old.DeletionTimestamp == nil:
		r.Note("%s", steps.Say("steps.step6.beta_exists", "UID", old.UID))
		return nil
	case old == nil && ns == nil:
		return nil
	}
	r.Note("%s", steps.Say("steps.step6.earlier"))
	sh.WaitCmd(steps.KubectlWait(env, steps.TeamspaceObj("beta"), "delete"))
	sh.WaitCmd(steps.KubectlWait(env, steps.NamespaceObj("team-beta"), "delete"))
	_, err = steps.WaitFor(ctx, env, steps.Say("steps.what.earlier_beta_gone"), whyEarlierBetaGone, func(ctx context.Context) (bool, string, error) {
		b, err := teamspace.Get(ctx, env.Clients.Dynamic, "beta")
		if err != nil {
			return false, "", err
		}
		ns, err := steps.GetNamespace(ctx, env, "team-beta")
		if err != nil {
			return false, "", err
		}
		switch {
		case b != nil:
			return false, steps.Say("steps.seen.deleting", "Name", "beta", "UID", b.UID, "Time", fmt.Sprint(b.DeletionTimestamp), "Finalizers", fmt.Sprint(b.Finalizers)), nil
		case ns != nil:
			return false, steps.Say("steps.seen.gone_namespace_phase", "Name", "beta", "Namespace", "team-beta", "Phase", string(ns.Status.Phase)), nil
		}
		return true, "", nil
	})
	return err
}

// deleteRawCmd is DELETE path, as the API server's answer.
func deleteRawCmd(path string) string { return steps.Kubectl("delete", "--raw", path) }

// deleteRaw sends DELETE path as `kubectl delete --raw` does and returns
// the server's answer, the object as the delete left it; it shows the
// command with the answer piped through jq filter into variable name.
func deleteRaw(ctx context.Context, env *steps.Lab, sh steps.Shell, path, name, filter string) (*unstructured.Unstructured, error) {
	sh.Cmd(name + "=$(" + deleteRawCmd(path) + " | jq " + steps.Quote(filter) + ")")
	raw, err := env.Clients.Kube.Discovery().RESTClient().Delete().AbsPath(path).Do(ctx).Raw()
	if err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("the answer to DELETE %s: %w", path, err)
	}
	return u, nil
}

// Why step 6's waits take the time they take, as the live wait says
// it (steps.StartWait): who is expected to act, and why it is not instant.
const (
	whyFinalizerAdded   = "steps.why.finalizer_added"
	whyBetaConverged    = "steps.why.beta_converged"
	whyBetaGone         = "steps.why.beta_gone"
	whyEarlierBetaGone  = "steps.why.earlier_beta_gone"
	whyGarbageCollected = "steps.why.garbage_collected"
)

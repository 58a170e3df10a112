package step7

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/cnpa/internal/atomicfile"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/reaction"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/steps"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/timeline"
	"github.com/labhub/cnpa/internal/ui"
)

// Run drives step 7 against the live cluster and writes catchup.json:
// the service stopped, alpha changed to 8 pods, alpha and its quota read
// after the wait (the reading saved, so that an interrupted run resumes
// from it), then the service started and watched until it catches up.
// However it ends, the service runs again.
func Run(ctx context.Context, env *steps.Lab, s *steps.Step) (r *steps.Result, err error) {
	var kept lab.CatchupRecord
	if r, ok, err := steps.Keep(ctx, env, s, &kept); ok || err != nil {
		return r, err
	}
	alpha, err := steps.NeedAlpha(ctx, env, s.Number)
	if err != nil {
		return nil, err
	}
	r = &steps.Result{Step: s.Number, Title: s.EnglishTitle()}
	sh := steps.Show(env)
	alphaObj, quota := steps.TeamspaceObj("alpha"), steps.QuotaObj(teamspace.NamespaceName("alpha"))
	ns := teamspace.NamespaceName("alpha")
	saved, err := loadStoppedReading(env.Dir)
	if err != nil {
		return nil, err
	}
	resume := saved != nil && saved.Generation == alpha.Generation && alpha.Spec.Pods == 8
	switch {
	case resume:
	case alpha.Spec.Pods == 8:
		return nil, steps.SayError("steps.step7.at_8", "Generation", alpha.Generation)
	case alpha.Spec.Pods == 6 && alpha.Generation == 2 && alpha.Status.ObservedGeneration < alpha.Generation:
		// alpha is as step 2 left it; only the controller is behind
		// (stopped, or not caught up yet): nothing to start over.
		return nil, steps.SayError("steps.step7.behind", "Observed", alpha.Status.ObservedGeneration)
	case alpha.Spec.Pods != 6 || alpha.Status.ObservedGeneration != alpha.Generation:
		// Not "run steps 2-4 again": with their evidence written they
		// keep it and change nothing, and an alpha put back by hand
		// has a generation past the 2 that catchup.json must start from.
		return nil, steps.SayError("steps.step7.not_from_step2", "Pods", alpha.Spec.Pods, "Generation", alpha.Generation,
			"Observed", alpha.Status.ObservedGeneration, "StartOver", steps.StartOver(env))
	}
	alphaOnly := reaction.Only("alpha")
	rx, err := reaction.Start(ctx, env.Env, s.Number, s.EnglishTitle(), reaction.TeamSpaces(alphaOnly), reaction.Quotas(alphaOnly),
		reaction.Events(alphaOnly), reaction.ServiceLog(alphaOnly))
	if err != nil {
		return nil, err
	}
	defer rx.Stop()
	// However this step ends, the service runs again: the graders of
	// steps 4-7 fail when it is stopped. Saying so is part of it: a
	// learner who pressed Ctrl-C must know the service is back.
	defer func() {
		if st, _ := env.Service.Status(context.WithoutCancel(ctx)); !st.Active {
			if serr := env.Service.Start(context.WithoutCancel(ctx)); serr != nil && err == nil {
				err = fmt.Errorf("%s: %w", steps.Say("steps.step7.start_again"), serr)
			} else if serr == nil && err != nil {
				err = fmt.Errorf("%w%s", err, steps.Say("steps.step7.started_again", "Service", service.Name))
			}
		}
	}()
	var ev lab.CatchupRecord
	if resume {
		ev = lab.CatchupRecord{Generation: saved.Generation, ObservedWhileStopped: saved.ObservedWhileStopped, QuotaPodsWhileStopped: saved.QuotaPodsWhileStopped}
		r.Note("%s", steps.Say("steps.step7.resumed", "At", saved.At.Format(time.TimeOnly), "Generation", ev.Generation, "Observed", ev.ObservedWhileStopped, "Pods", ev.QuotaPodsWhileStopped))
	} else {
		sh.Systemctl(env, "stop", service.Name)
		rx.You(steps.ServiceCommand(env, "stop"), timeline.Say("timeline.what.you_stopped"), "service "+reaction.UnitName)
		if err := env.Service.Stop(ctx); err != nil {
			return nil, fmt.Errorf("%s: %w", steps.Say("steps.step7.stop", "Unit", env.Service.UnitPath()), err)
		}
		r.NoteUnshown(env, "%s", steps.Say("steps.step7.stopped"))
		const change = `{"spec":{"pods":8}}`
		rx.Action(steps.PatchCmd(alphaObj, change), timeline.Say("timeline.what.you_set", "Field", "alpha spec.pods", "Value", "8"), alphaObj.Target())
		if _, err := sh.MergePatch(ctx, env, alphaObj, change, ""); err != nil {
			return nil, err
		}
		patched := time.Now()
		sh.Cmd(steps.Words("sleep", fmt.Sprint(env.CatchupWait.Seconds())))
		stopped := steps.StartWait(env, steps.Say("steps.what.stopped", "Wait", env.CatchupWait),
			whyStopped)
		select {
		case <-time.After(env.CatchupWait):
			stopped.Done(ui.Waited)
		case <-ctx.Done():
			stopped.Done(steps.Say("steps.outcome.interrupted"))
			// The spec change happened and cannot happen again: take the
			// reading LAB.md asks for (after 8 s stopped) before letting
			// go, so that a rerun resumes from it instead of meeting a
			// cluster that has moved on.
			if err := saveReadingWhenDue(env, ns, patched); err != nil {
				return nil, fmt.Errorf("%w%s", ctx.Err(), steps.Say("steps.step7.not_saved", "Err", err))
			}
			return nil, fmt.Errorf("%w%s", ctx.Err(), steps.Say("steps.step7.saved"))
		}
		a, q, err := readStopped(ctx, env, ns)
		if err != nil {
			return nil, err
		}
		ev = lab.CatchupRecord{Generation: a.Generation, ObservedWhileStopped: a.Status.ObservedGeneration, QuotaPodsWhileStopped: teamspace.QuotaPods(q)}
		if err := saveStoppedReading(env.Dir, ev); err != nil {
			return nil, err
		}
		sh.ReadBack("generation", alphaObj, "{.metadata.generation}", a)
		sh.ReadBack("observed_while_stopped", alphaObj, "{.status.observedGeneration}", a)
		sh.ReadBack("quota_pods_while_stopped", quota, "{.spec.hard.pods}", q)
	}
	rx.Read("cnpa", timeline.KindRead, "teamspace alpha", timeline.Say("timeline.what.read_stopped", "Wait", env.CatchupWait.String(),
		"Generation", fmt.Sprint(ev.Generation), "Observed", fmt.Sprint(ev.ObservedWhileStopped), "Pods", ev.QuotaPodsWhileStopped))
	if st, _ := env.Service.Status(ctx); !st.Active {
		sh.Systemctl(env, "start", service.Name)
		rx.You(steps.ServiceCommand(env, "start"), timeline.Say("timeline.what.you_started"), "service "+reaction.UnitName)
		if err := env.Service.Start(ctx); err != nil {
			return nil, fmt.Errorf("%s: %w", steps.Say("steps.step7.start", "Unit", env.Service.UnitPath()), err)
		}
		r.NoteUnshown(env, "%s", steps.Say("steps.step7.started"))
	}
	sh.WaitCmd(steps.KubectlWait(env, alphaObj, fmt.Sprintf("jsonpath={.status.observedGeneration}=%d", ev.Generation)) +
		" && " + steps.KubectlWait(env, quota, "jsonpath={.spec.hard.pods}=8"))
	var lastAlpha *teamspace.TeamSpace
	var lastQuota any
	if _, err := steps.WaitFor(ctx, env, steps.Say("steps.what.caught_up"), whyCaughtUp, func(ctx context.Context) (bool, string, error) {
		a, err := teamspace.Get(ctx, env.Clients.Dynamic, "alpha")
		if err != nil || a == nil {
			return false, "", err
		}
		q, err := steps.GetQuota(ctx, env, ns)
		if err != nil {
			return false, "", err
		}
		ev.ObservedAfterStart, ev.QuotaPodsAfterStart = a.Status.ObservedGeneration, teamspace.QuotaPods(q)
		lastAlpha, lastQuota = a, q
		return a.Status.ObservedGeneration == a.Generation && teamspace.QuotaPods(q) == "8",
			steps.Say("steps.seen.catching_up", "Generation", a.Generation, "Observed", a.Status.ObservedGeneration, "Pods", strconv.Quote(teamspace.QuotaPods(q))), nil
	}); err != nil {
		return nil, err
	}
	sh.ReadBack("observed_after_start", alphaObj, "{.status.observedGeneration}", lastAlpha)
	sh.ReadBack("quota_pods_after_start", quota, "{.spec.hard.pods}", lastQuota)
	if r.File, err = sh.WriteEvidence(env, s.File, ev); err != nil {
		return nil, err
	}
	removeStoppedReading(env.Dir)
	r.Evidence = ev
	// catchup.json's rules are values; alpha is not compared.
	if err := r.Judge(env.Steps.Lab().Read(env.Dir), s.File, ev, nil); err != nil {
		return nil, err
	}
	if ev.ObservedWhileStopped >= ev.Generation {
		// The controller was stopped, yet alpha's change was observed:
		// something else ran the reconcile, and the reading is not of a
		// stopped controller. Said first: the rules' hints cannot know.
		r.Fixes = append([]string{steps.Say("steps.step7.acted_while_stopped", "Observed", ev.ObservedWhileStopped,
			"Generation", ev.Generation, "Script", lab.ScriptName, "Unit", service.Name, "StartOver", steps.StartOver(env))}, r.Fixes...)
	}
	r.FinishTimeline(ctx, rx)
	return r, nil
}

// stoppedReading is step 7's reading of alpha with the controller stopped,
// kept under <dir>/.cnpa/ until catchup.json is written: the spec change it
// measures happens once on a cluster, so an interrupted step 7 must not
// lose it.
type stoppedReading struct {
	lab.CatchupRecord
	At time.Time `json:"at"`
}

const stoppedReadingFile = "step7-stopped.json"

func stoppedReadingPath(dir string) string {
	return filepath.Join(dir, lab.OwnDir, stoppedReadingFile)
}

func saveStoppedReading(dir string, ev lab.CatchupRecord) error {
	return atomicfile.WriteJSON(stoppedReadingPath(dir), stoppedReading{CatchupRecord: ev, At: time.Now()})
}

// loadStoppedReading is the saved reading, nil when there is none.
func loadStoppedReading(dir string) (*stoppedReading, error) {
	var r stoppedReading
	found, err := atomicfile.ReadJSON(stoppedReadingPath(dir), &r)
	var bad *atomicfile.DecodeError
	switch {
	case errors.As(err, &bad):
		return nil, steps.SayError("steps.step7.bad_reading", "Path", bad.Path, "Err", bad.Err)
	case err != nil:
		return nil, err
	case !found:
		return nil, nil
	}
	return &r, nil
}

func removeStoppedReading(dir string) { _ = os.Remove(stoppedReadingPath(dir)) }

// readStopped reads alpha and its quota.
func readStopped(ctx context.Context, env *steps.Lab, ns string) (*teamspace.TeamSpace, *corev1.ResourceQuota, error) {
	a, err := teamspace.Get(ctx, env.Clients.Dynamic, "alpha")
	if err != nil {
		return nil, nil, err
	}
	if a == nil {
		return nil, nil, steps.SayError("steps.seen.is_gone", "Name", "TeamSpace alpha")
	}
	q, err := steps.GetQuota(ctx, env, ns)
	return a, q, err
}

// saveReadingWhenDue takes and saves step 7's reading for an interrupted
// run: once LAB.md's 8 s with the controller stopped have passed since
// the patch (it waits out what is left of them, at most 8 s), so that the
// reading is the one LAB.md asks for. The step's context has ended, so
// this uses one of its own.
func saveReadingWhenDue(env *steps.Lab, ns string, patched time.Time) error {
	ctx, cancel := context.WithTimeout(context.Background(), labenv.LabCatchupWait+30*time.Second)
	defer cancel()
	if left := time.Until(patched.Add(labenv.LabCatchupWait)); left > 0 && env.Progress != nil {
		env.Progress.Note("%s", steps.Say("steps.step7.more", "Left", left.Round(time.Second)))
	}
	time.Sleep(time.Until(patched.Add(labenv.LabCatchupWait)))
	a, q, err := readStopped(ctx, env, ns)
	if err != nil {
		return err
	}
	return saveStoppedReading(env.Dir, lab.CatchupRecord{Generation: a.Generation, ObservedWhileStopped: a.Status.ObservedGeneration, QuotaPodsWhileStopped: teamspace.QuotaPods(q)})
}

// Why step 7's waits take the time they take, as the live wait says
// it (steps.StartWait): who is expected to act, and why it is not instant.
const (
	whyStopped  = "steps.why.stopped"
	whyCaughtUp = "steps.why.caught_up"
)

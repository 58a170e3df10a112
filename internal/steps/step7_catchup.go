package steps

import (
	"context"
	"fmt"
	"time"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/timeline"
	"github.com/labhub/cnpa/internal/ui"
)

var step7 = &Step{
	Number: 7, Title: "No change missed while stopped", File: evidence.CatchupFile,
	Teaches: "While the controller is down, observedGeneration < generation says \"not acted on yet\".\n" +
		"Started again, one pass reads the current state and catches up; it need not know what\n" +
		"changed, or how often, while it was down.",
	Run: func(ctx context.Context, env *labenv.Env, s *Step) (r *Result, err error) {
		var kept evidence.Catchup
		if r, ok, err := keep(env, s, &kept); ok || err != nil {
			return r, err
		}
		alpha, err := needAlpha(ctx, env, 7)
		if err != nil {
			return nil, err
		}
		if alpha.Spec.Pods != 6 || alpha.Status.ObservedGeneration != alpha.Generation {
			return nil, fmt.Errorf("step 7 needs alpha at pods=6 and in sync (now pods=%d, generation %d, observed %d): run steps 2-4 first or start over with `cnpa reset --yes`",
				alpha.Spec.Pods, alpha.Generation, alpha.Status.ObservedGeneration)
		}
		r = &Result{Step: 7, Title: s.Title}
		rx, err := startReaction(ctx, env, s, watchTeamSpaces(only("alpha")), watchQuotas(only("alpha")),
			watchEvents(only("alpha")), watchServiceLog(only("alpha")))
		if err != nil {
			return nil, err
		}
		defer rx.stop()
		sh := show(env)
		alphaObj, quota := teamspaceObj("alpha"), quotaObj(teamspace.NamespaceName("alpha"))
		sh.systemctl(env, "stop", service.Name)
		rx.you(serviceCommand(env, "stop"), "stopped the controller", "service "+unitName)
		if err := env.Service.Stop(ctx); err != nil {
			return nil, fmt.Errorf("stop %s: %w", env.Service.UnitPath(), err)
		}
		// However this step ends, the service runs again: the graders of
		// steps 4-7 fail when it is stopped.
		defer func() {
			if st, _ := env.Service.Status(context.WithoutCancel(ctx)); !st.Active {
				if serr := env.Service.Start(context.WithoutCancel(ctx)); serr != nil && err == nil {
					err = fmt.Errorf("start the service again: %w", serr)
				}
			}
		}()
		r.noteUnshown(env, "service stopped")
		rx.action(`kubectl patch teamspace alpha --type=merge -p '{"spec":{"pods":8}}'`, "set alpha spec.pods=8", "teamspace alpha")
		if _, err := sh.mergePatch(ctx, env, alphaObj, `{"spec":{"pods":8}}`, ""); err != nil {
			return nil, err
		}
		sh.cmd(words("sleep", fmt.Sprint(env.CatchupWait.Seconds())))
		stopped := startWait(env, fmt.Sprintf("%s with the controller stopped", env.CatchupWait),
			whyStopped)
		select {
		case <-time.After(env.CatchupWait):
			stopped.Done(ui.Waited)
		case <-ctx.Done():
			stopped.Done("interrupted")
			return nil, ctx.Err()
		}
		ns := teamspace.NamespaceName("alpha")
		a, err := teamspace.Get(ctx, env.Clients.Dynamic, "alpha")
		if err != nil {
			return nil, err
		}
		q, err := getQuota(ctx, env, ns)
		if err != nil {
			return nil, err
		}
		ev := evidence.Catchup{Generation: a.Generation, ObservedWhileStopped: a.Status.ObservedGeneration, QuotaPodsWhileStopped: quotaPods(q)}
		sh.readBack("generation", alphaObj, "{.metadata.generation}", a)
		sh.readBack("observed_while_stopped", alphaObj, "{.status.observedGeneration}", a)
		sh.readBack("quota_pods_while_stopped", quota, "{.spec.hard.pods}", q)
		sh.systemctl(env, "start", service.Name)
		rx.read("cnpa", timeline.KindRead, "teamspace alpha", fmt.Sprintf("after %s stopped: generation %d, observedGeneration %d, quota hard.pods=%s",
			env.CatchupWait, ev.Generation, ev.ObservedWhileStopped, ev.QuotaPodsWhileStopped))
		rx.you(serviceCommand(env, "start"), "started the controller", "service "+unitName)
		if err := env.Service.Start(ctx); err != nil {
			return nil, fmt.Errorf("start %s: %w", env.Service.UnitPath(), err)
		}
		r.noteUnshown(env, "service started")
		sh.waitCmd(kubectlWait(env, alphaObj, fmt.Sprintf("jsonpath={.status.observedGeneration}=%d", ev.Generation)) +
			" && " + kubectlWait(env, quota, "jsonpath={.spec.hard.pods}=8"))
		var lastAlpha *teamspace.TeamSpace
		var lastQuota any
		if _, err := waitFor(ctx, env, "observedGeneration = generation and quota pods = 8", whyCaughtUp, func(ctx context.Context) (bool, string, error) {
			a, err := teamspace.Get(ctx, env.Clients.Dynamic, "alpha")
			if err != nil || a == nil {
				return false, "", err
			}
			q, err := getQuota(ctx, env, ns)
			if err != nil {
				return false, "", err
			}
			ev.ObservedAfterStart, ev.QuotaPodsAfterStart = a.Status.ObservedGeneration, quotaPods(q)
			lastAlpha, lastQuota = a, q
			return a.Status.ObservedGeneration == a.Generation && quotaPods(q) == "8",
				fmt.Sprintf("generation %d observed %d quota pods %q", a.Generation, a.Status.ObservedGeneration, quotaPods(q)), nil
		}); err != nil {
			return nil, err
		}
		sh.readBack("observed_after_start", alphaObj, "{.status.observedGeneration}", lastAlpha)
		sh.readBack("quota_pods_after_start", quota, "{.spec.hard.pods}", lastQuota)
		if r.File, err = sh.writeEvidence(env.Dir, s.File, ev); err != nil {
			return nil, err
		}
		r.Evidence = ev
		// catchup.json's rules are values; alpha is not compared.
		if err := r.judge(env, s.File, ev, nil); err != nil {
			return nil, err
		}
		rx.finish(ctx, r)
		return r, nil
	},
}

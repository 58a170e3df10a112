package steps

import (
	"context"
	"errors"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/reaction"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/teamspace"
)

var step4 = &Step{
	Step: lab.Service,
	Run: func(ctx context.Context, env *labenv.Env, s *Step) (*Result, error) {
		if _, err := needAlpha(ctx, env, s.Number); err != nil {
			return nil, err
		}
		if env.State.Engine == "" {
			return nil, fmt.Errorf("step 4 needs reconcile.sh: run `cnpa step 3`")
		}
		r := &Result{Step: s.Number, Title: s.Title}
		probes := reaction.Probes
		rx, err := reaction.Start(ctx, env, s.Number, s.Title, reaction.TeamSpaces(probes), reaction.Namespaces(probes),
			reaction.Quotas(probes), reaction.Events(probes), reaction.ServiceLog(reaction.Any))
		if err != nil {
			return nil, err
		}
		defer rx.Stop()
		r.reaction = rx
		before, err := env.Service.Status(ctx)
		if err != nil {
			return nil, err
		}
		rx.Action(serviceCommand(env, "enable --now"), "installed and started the controller", "service "+reaction.UnitName)
		unitData, theirs := env.LearnersUnit()
		installErr := env.InstallService(ctx, false)
		if err := lockService(ctx, env); err != nil {
			return nil, errors.Join(installErr, err)
		}
		if installErr != nil {
			return nil, installErr
		}
		// Step 4 again (with another --service-identity, say): the running
		// service must become the unit as written now, which enabling
		// alone does not do.
		if before.Active {
			if err := env.Service.Restart(ctx); err != nil {
				return nil, fmt.Errorf("restart %s with the unit as written now: %w", before.UnitPath, err)
			}
		}
		rx.ServiceUp(ctx)
		if env.OwnIdentity() {
			if err := showIdentity(show(env), env); err != nil {
				return nil, err
			}
		}
		if theirs {
			showLearnersUnit(show(env), env, unitData)
			r.verdict("your unit, used as it is", true, env.Service.UnitPath()+": "+strings.Join(unitKeyLines(unitData), "; "),
				"Restart=always, ExecStart looping reconcile.sh every ~3 s")
		} else {
			if env.Engine == labenv.EngineOwn && !env.OwnIdentity() {
				show(env).comment("you have no %s of your own: cnpa wrote LAB.md step 4's (edit it, and cnpa uses yours as it is)", env.Service.UnitPath())
			}
			showUnit(show(env), env, false, nil)
		}
		st, err := env.Service.Status(ctx)
		if err != nil {
			return nil, err
		}
		r.noteUnshown(env, "installed %s (%s), main pid %d", st.UnitPath, st.Manager, st.MainPID)
		r.verdict("unit installed", st.Installed, st.UnitPath, "the unit file")
		r.verdict("enabled", st.Enabled, onOff(st.Enabled, "enabled", "disabled"), "enabled")
		r.verdict("active", st.Active, onOff(st.Active, fmt.Sprintf("active, main pid %d", st.MainPID), "inactive"), "active")
		if env.OwnIdentity() {
			r.noteUnshown(env, "the service acts as %s (kubeconfig %s, %s)", identity.Username, env.CredentialPath(),
				onOff(env.SystemUser(), "a copy delivered by LoadCredential=, as system user "+service.User, "read in place, as the user running cnpa"))
			answer, err := env.ProbeIdentity(ctx)
			if err != nil {
				return nil, err
			}
			showIdentityProbe(show(env), env, answer)
			refused, observed := identity.IsPolicyDenial(answer), "allowed"
			switch {
			case refused:
				observed = "refused by ValidatingAdmissionPolicy " + identity.Policy
			case answer != nil:
				observed = answer.Error()
			}
			r.verdict("its identity may not touch kube-system", refused, observed, "refused by ValidatingAdmissionPolicy "+identity.Policy)
		} else if theirs {
			r.note("the service runs as your unit says (LAB.md's runs as root with the cluster's admin kubeconfig); " +
				"`--service-identity own` runs cnpa's unit as a least-privilege ServiceAccount instead (docs/identity.md)")
		} else {
			r.note("the service runs as root with your kubeconfig %s, as LAB.md's does (--service-identity admin); "+
				"`--service-identity own` runs it as a least-privilege ServiceAccount instead (docs/identity.md)", env.Target.Path)
		}
		if err := ProbeController(ctx, env, r); err != nil {
			return nil, err
		}
		r.finishTimeline(ctx, rx)
		return r, nil
	},
}

// lockService remembers the service manager and unit dir once the unit is
// installed, also when starting it failed: the unit in that dir is what
// the service and `cnpa reset` work on from now on (State.ServiceLocked).
func lockService(ctx context.Context, env *labenv.Env) error {
	st, err := env.Service.Status(ctx)
	if err != nil || !st.Installed {
		// Nothing installed (or nothing known): nothing depends on the
		// choice yet, so it stays open for a rerun.
		return nil
	}
	env.State.ServiceLocked = true
	return env.SaveState()
}

// ProbePrefix starts the name of step 4's temporary TeamSpace.
const ProbePrefix = lab.ProbePrefix

// ProbeController proves the running controller works as the lab's grader
// does: a temporary TeamSpace converges by itself (teamspace.FindGaps
// finds nothing LAB.md asks for missing: namespace, quota, status, the
// same test as check's probeConverges), and goes when deleted. The probe
// is deleted however the proof ends.
func ProbeController(ctx context.Context, env *labenv.Env, r *Result) error {
	name := lab.TempName(lab.ProbePrefix)
	ts := fmt.Sprintf("apiVersion: %s\nkind: %s\nmetadata:\n  name: %s\nspec:\n  pods: 1\n", teamspace.APIVersion, teamspace.Kind, name)
	sh := show(env)
	res := env.Clients.Dynamic.Resource(teamspace.GVR)
	defer res.Delete(context.WithoutCancel(ctx), name, metav1.DeleteOptions{}) // a no-op once it is gone
	probe := teamspaceObj(name)
	r.reaction.You(applyCmd("-"), "created TeamSpace "+name, probe.target())
	if err := sh.apply(ctx, env, "-", []byte(ts)); err != nil {
		return err
	}
	ns := teamspace.NamespaceName(name)
	sh.waitCmd(until(kubectl(append(append([]string{"get"}, quotaObj(ns).args()...), "-o", "name")...) + " >/dev/null 2>&1"))
	took, err := waitFor(ctx, env, "the controller to create "+ns+" and its quota", whyProbeCreated, func(ctx context.Context) (bool, string, error) {
		return probeConverged(ctx, env, name)
	})
	if err != nil {
		return fmt.Errorf("%w (is the service running? `cnpa service status`, `cnpa service logs`)", err)
	}
	r.note("probe %s: namespace and quota appeared by themselves in %s", name, took.Round(1e6))
	r.verdict("probe namespace+quota by itself", true, fmt.Sprintf("%s and its quota in %s", ns, took.Round(1e6)), "by themselves, within --timeout")
	r.reaction.You(deleteCmd(probe), "deleted TeamSpace "+name, probe.target())
	if err := sh.remove(ctx, env, probe); err != nil {
		return fmt.Errorf("delete probe %s: %w", name, err)
	}
	sh.waitCmd(kubectlWait(env, teamspaceObj(name), "delete"))
	why := whyProbeGoneNow
	if env.State != nil && env.State.Finalizer {
		why = whyProbeGone
	}
	took, err = waitFor(ctx, env, "probe "+name+" to be gone", why, func(ctx context.Context) (bool, string, error) {
		u, err := res.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, "", nil
		}
		if err != nil {
			return false, "", err
		}
		return false, fmt.Sprintf("still there, finalizers %v", u.GetFinalizers()), nil
	})
	if err != nil {
		return err
	}
	r.verdict("probe deleted", true, fmt.Sprintf("gone in %s", took.Round(1e6)), "gone")
	return nil
}

// probeConverged tells whether TeamSpace name lacks nothing LAB.md asks
// for, or what it lacks first: check's pending, word for word. Our
// finalizer is not owed (the grader does not ask it of a new TeamSpace),
// and a spec no controller can serve owes nothing more.
func probeConverged(ctx context.Context, env *labenv.Env, name string) (bool, string, error) {
	ts, err := teamspace.Get(ctx, env.Clients.Dynamic, name)
	if err != nil || ts == nil {
		return false, name + " is gone", err
	}
	ns, err := getNamespace(ctx, env, teamspace.NamespaceName(name))
	if err != nil {
		return false, "", err
	}
	q, err := getQuota(ctx, env, teamspace.NamespaceName(name))
	if err != nil {
		return false, "", err
	}
	gaps, _ := teamspace.FindGaps(ts, ns, q, false)
	if lab := gaps.Lab(); len(lab) > 0 {
		return false, lab[0].String(), nil
	}
	return true, "converged", nil
}

// onOff words a state for a verdict line.
func onOff(on bool, yes, no string) string {
	if on {
		return yes
	}
	return no
}

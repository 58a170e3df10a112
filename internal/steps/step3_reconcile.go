package steps

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/teamspace"
)

var step3 = &Step{
	Step: lab.Reconcile,
	Run: func(ctx context.Context, env *labenv.Env, s *Step) (*Result, error) {
		var kept lab.ReconcileRecord
		if r, ok, err := keep(env, s, &kept); ok || err != nil {
			if err == nil {
				// The evidence stays, but the script is what the service
				// and `cnpa check` run: a missing one is put back (never
				// over the learner's, which InstallScript refuses).
				_, statErr := os.Stat(env.ScriptPath())
				if err := env.InstallScript(); err != nil {
					return nil, err
				}
				if errors.Is(statErr, fs.ErrNotExist) {
					r.note("installed %s again (%s engine)", env.ScriptPath(), env.Engine)
				}
			}
			return r, err
		}
		alpha, err := needAlpha(ctx, env, s.Number)
		if err != nil {
			return nil, err
		}
		if alpha.Generation < 2 {
			return nil, fmt.Errorf("alpha's generation is %d: run `cnpa step 2` first (its spec.pods=6 is what the quota must show)", alpha.Generation)
		}
		r := &Result{Step: s.Number, Title: s.Title}
		sh := show(env)
		if err := env.InstallScript(); err != nil {
			return nil, err
		}
		if env.Engine == labenv.EngineOwn {
			r.note("running your %s (own engine)", env.ScriptPath())
			if env.Target.ContextGiven {
				// kubectl has no variable for a context: say how the
				// learner's script gets the one cnpa was given.
				kc, err := env.CommandKubeconfig()
				if err != nil {
					return nil, err
				}
				r.note("with KUBECONFIG=%s: its first file sets current-context %q, so plain kubectl uses it; "+
					"a script that passes its own --kubeconfig must pass --context %s too", kc, env.Target.Context, env.Target.Context)
			}
		} else {
			r.noteUnshown(env, "installed %s (%s engine)", env.ScriptPath(), env.Engine)
		}
		showScript(sh, env)
		// The Go engine's pass logs its API requests: there is no script
		// to read, so what it asked of the API server is what to see.
		var extraEnv []string
		if env.Engine == labenv.EngineGo {
			extraEnv = []string{kube.RequestLogEnv + "=1"}
		}
		out, err := runScript(ctx, env, sh, extraEnv...)
		if err != nil {
			return nil, err
		}
		showPass(sh, env, out)
		// One pass must converge (LAB.md step 3): say what is missing, and
		// why, now rather than after a timeout.
		problems, err := diagnoseTeamSpace(ctx, env, "alpha", false)
		if err != nil {
			return nil, err
		}
		if len(problems) > 0 {
			return nil, diagnosis(fmt.Sprintf("after one pass of %s, alpha is not converged (LAB.md step 3):", env.ScriptPath()), problems, out)
		}
		ns := teamspace.NamespaceName("alpha")
		// The quota controller writes status.hard after the quota appears;
		// that write moves resourceVersion, so compare only after it.
		sh.waitCmd(kubectlWait(env, quotaObj(ns), fmt.Sprintf("jsonpath={.status.hard.pods}=%d", alpha.Spec.Pods)))
		if _, err := waitFor(ctx, env, "the quota controller to fill team-quota status.hard", whyQuotaStatus, func(ctx context.Context) (bool, string, error) {
			q, err := getQuota(ctx, env, ns)
			if err != nil || q == nil {
				return false, "team-quota absent", err
			}
			sp, st := q.Spec.Hard[corev1.ResourcePods], q.Status.Hard[corev1.ResourcePods]
			return st.Cmp(sp) == 0 && len(q.Status.Hard) == len(q.Spec.Hard),
				fmt.Sprintf("spec.hard.pods=%s status.hard.pods=%s", sp.String(), st.String()), nil
		}); err != nil {
			return nil, err
		}
		objects := func() ([]metav1.Object, error) {
			a, err := teamspace.Get(ctx, env.Clients.Dynamic, "alpha")
			if err != nil {
				return nil, err
			}
			n, err := getNamespace(ctx, env, ns)
			if err != nil {
				return nil, err
			}
			q, err := getQuota(ctx, env, ns)
			// A nil pointer in an interface is not a nil interface.
			objs := []metav1.Object{nil, nil, nil}
			if a != nil {
				objs[0] = a
			}
			if n != nil {
				objs[1] = n
			}
			if q != nil {
				objs[2] = q
			}
			return objs, err
		}
		beforeAll, err := objects()
		if err != nil {
			return nil, err
		}
		before, _ := beforeAll[2].(*corev1.ResourceQuota)
		if before == nil {
			return nil, fmt.Errorf("team-alpha/team-quota is gone before the second pass")
		}
		sh.readBack("rv_before", quotaObj(ns), "{.metadata.resourceVersion}", before)
		out, err = runScript(ctx, env, sh)
		if err != nil {
			return nil, err
		}
		showOutput(sh, out)
		afterAll, err := objects()
		if err != nil {
			return nil, err
		}
		after, _ := afterAll[2].(*corev1.ResourceQuota)
		nsObj, _ := afterAll[1].(*corev1.Namespace)
		if after == nil || nsObj == nil {
			return nil, fmt.Errorf("the second pass of %s removed team-alpha or its quota", env.ScriptPath())
		}
		ev := lab.ReconcileRecord{QuotaUID: string(after.UID), SecondPassRVChanged: before.ResourceVersion != after.ResourceVersion}
		for _, ref := range nsObj.OwnerReferences {
			if ref.Kind == teamspace.Kind {
				ev.NamespaceOwnerUID = string(ref.UID)
			}
		}
		sh.readBack("quota_uid", quotaObj(ns), "{.metadata.uid}", after)
		sh.readBack("namespace_owner_uid", namespaceObj(ns), `{.metadata.ownerReferences[?(@.kind=="TeamSpace")].uid}`, nsObj)
		sh.readBack("rv_after", quotaObj(ns), "{.metadata.resourceVersion}", after)
		sh.set("second_pass_rv_changed", `$([ "$rv_before" != "$rv_after" ] && echo true || echo false)`, ev.SecondPassRVChanged)
		if r.File, err = sh.writeEvidence(env, s.File, ev); err != nil {
			return nil, err
		}
		// reconcile.json now depends on the engine: it is locked.
		env.State.EngineLocked = true
		if err := env.SaveState(); err != nil {
			return nil, err
		}
		r.Evidence = ev
		if err := r.judge(lab.Read(env.Dir), s.File, ev, alpha); err != nil {
			return nil, err
		}
		r.check("team-quota hard.pods", teamspace.QuotaPods(after), alpha.Spec.Pods)
		writes := secondPassWrites(beforeAll, afterAll)
		r.verdict("second pass writes", len(writes) == 0, orNothingWritten(writes), "nothing")
		for _, w := range writes {
			r.note("%s", w)
		}
		r.noteUnshown(env, "quota resourceVersion %s before and %s after the second pass", before.ResourceVersion, after.ResourceVersion)
		return r, nil
	},
}

// orNothingWritten words the second pass's writes for a verdict line.
func orNothingWritten(writes []string) string {
	if len(writes) == 0 {
		return "nothing"
	}
	return fmt.Sprintf("%d object(s), see below", len(writes))
}

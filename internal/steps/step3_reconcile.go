package steps

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/teamspace"
)

var step3 = &Step{
	Number: 3, Title: "The same result however often it runs", File: evidence.ReconcileFile,
	Teaches: "reconcile.sh asks \"is desired equal to actual now?\", never \"what changed?\". Its first run\n" +
		"creates team-alpha and team-quota; a second run finds nothing to do and writes nothing.",
	Run: func(ctx context.Context, env *labenv.Env, s *Step) (*Result, error) {
		var kept evidence.Reconcile
		if r, ok, err := keep(env, s, &kept); ok || err != nil {
			return r, err
		}
		alpha, err := needAlpha(ctx, env, 3)
		if err != nil {
			return nil, err
		}
		if alpha.Generation < 2 {
			return nil, fmt.Errorf("alpha's generation is %d: run `cnpa step 2` first (its spec.pods=6 is what the quota must show)", alpha.Generation)
		}
		r := &Result{Step: 3, Title: s.Title}
		if err := env.InstallScript(); err != nil {
			return nil, err
		}
		r.note("installed %s (%s engine)", env.ScriptPath(), env.Engine)
		if _, err := runScript(ctx, env); err != nil {
			return nil, err
		}
		ns := teamspace.NamespaceName("alpha")
		// The quota controller writes status.hard after the quota appears;
		// that write moves resourceVersion, so compare only after it.
		if _, err := waitFor(ctx, env, "the quota controller to fill team-quota status.hard", func(ctx context.Context) (bool, string, error) {
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
		before, err := getQuota(ctx, env, ns)
		if err != nil {
			return nil, err
		}
		if _, err := runScript(ctx, env); err != nil {
			return nil, err
		}
		after, err := getQuota(ctx, env, ns)
		if err != nil || after == nil {
			return nil, fmt.Errorf("team-quota after the second pass: %v", err)
		}
		nsObj, err := env.Clients.Kube.CoreV1().Namespaces().Get(ctx, ns, getOpts)
		if err != nil {
			return nil, fmt.Errorf("namespace %s after reconcile.sh: %w", ns, err)
		}
		ev := evidence.Reconcile{QuotaUID: string(after.UID), SecondPassRVChanged: before.ResourceVersion != after.ResourceVersion}
		for _, ref := range nsObj.OwnerReferences {
			if ref.Kind == teamspace.Kind {
				ev.NamespaceOwnerUID = string(ref.UID)
			}
		}
		if r.File, err = evidence.Write(env.Dir, s.File, ev); err != nil {
			return nil, err
		}
		if err := env.SaveState(); err != nil {
			return nil, err
		}
		r.Evidence = ev
		if err := r.judge(env, s.File, ev, alpha); err != nil {
			return nil, err
		}
		r.check("team-quota hard.pods", quotaPods(after), alpha.Spec.Pods)
		r.note("quota resourceVersion %s before and %s after the second pass", before.ResourceVersion, after.ResourceVersion)
		return r, nil
	},
}

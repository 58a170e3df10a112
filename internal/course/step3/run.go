package step3

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/steps"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Run drives step 3 against the live cluster and writes reconcile.json:
// reconcile.sh installed and run twice (twoPasses). A script the learner
// changed since step 3 ran it is run again and judged (rerunChanged).
func Run(ctx context.Context, env *steps.Lab, s *steps.Step) (*steps.Result, error) {
	// The learner's script changed since step 3 ran it: run the new
	// one and judge it, saying which evidence the new run replaces.
	if scriptChanged(env) {
		return rerunChanged(ctx, env, s)
	}
	var kept lab.ReconcileRecord
	if r, ok, err := steps.Keep(ctx, env, s, &kept); ok || err != nil {
		if err == nil {
			// The evidence stays, but the script is what the service
			// and `cnpa check` run: a missing one is put back (never
			// over the learner's, which InstallScript refuses).
			_, statErr := os.Stat(env.ScriptPath())
			if err := env.InstallScript(); err != nil {
				return nil, err
			}
			if errors.Is(statErr, fs.ErrNotExist) {
				r.Note("%s", steps.Say("steps.step3.installed_again", "Path", env.ScriptPath(), "Engine", env.Engine))
			}
			if r.OK() && env.Engine == labenv.EngineOwn {
				// The file holds; what the lab asks of a pass is on the
				// live objects: the learner's script runs once and alpha
				// must be converged, status included.
				if err := onePass(ctx, env); err != nil {
					return nil, err
				}
			}
		}
		return r, err
	}
	return runStep3(ctx, env, s, nil)
}

// runStep3 is step 3 on a cluster that step 2 left: install the script,
// run it once, diagnose, run it a second time, write reconcile.json and
// judge it. replaces, when set, is the note that says which evidence this
// run replaces (the learner's script changed since step 3 ran it).
func runStep3(ctx context.Context, env *steps.Lab, s *steps.Step, replaces *string) (*steps.Result, error) {
	alpha, err := steps.NeedAlpha(ctx, env, s.Number)
	if err != nil {
		return nil, err
	}
	if alpha.Generation < 2 {
		return nil, steps.SayError("steps.step3.need_step2", "Generation", alpha.Generation)
	}
	r := &steps.Result{Step: s.Number, Title: s.EnglishTitle()}
	if replaces != nil {
		r.Note("%s", *replaces)
	}
	sh := steps.Show(env)
	p, err := twoPasses(ctx, env, r, sh, alpha)
	if err != nil {
		return nil, err
	}
	ev := p.record()
	sh.ReadBack("quota_uid", steps.QuotaObj(p.ns), "{.metadata.uid}", p.after)
	sh.ReadBack("namespace_owner_uid", steps.NamespaceObj(p.ns), `{.metadata.ownerReferences[?(@.kind=="TeamSpace")].uid}`, p.nsObj)
	sh.ReadBack("rv_after", steps.QuotaObj(p.ns), "{.metadata.resourceVersion}", p.after)
	sh.Set("second_pass_rv_changed", `$([ "$rv_before" != "$rv_after" ] && echo true || echo false)`, ev.SecondPassRVChanged)
	if r.File, err = sh.WriteEvidence(env, s.File, ev); err != nil {
		return nil, err
	}
	// reconcile.json now depends on the engine: it is locked; and on this
	// script, whose sum tells a changed one (scriptChanged).
	env.State.EngineLocked = true
	env.State.ScriptSHA256 = labenv.ScriptSum(env.Dir)
	if err := env.SaveState(); err != nil {
		return nil, err
	}
	r.Evidence = ev
	if err := r.Judge(env.Steps.Lab().Read(env.Dir), s.File, ev, alpha); err != nil {
		return nil, err
	}
	p.verdicts(env, r, alpha)
	return r, nil
}

// scriptChanged tells whether the learner's reconcile.sh differs from the
// one step 3 ran when it wrote reconcile.json (State.ScriptSHA256). cnpa's engines' scripts are cnpa's to change (the finalizer
// switch of step 6 does), so only the own engine's counts.
func scriptChanged(env *steps.Lab) bool {
	prev := env.State.ScriptSHA256
	if env.Engine != labenv.EngineOwn || prev == "" {
		return false
	}
	if _, err := os.Stat(filepath.Join(env.Dir, lab.ReconcileFile)); err != nil {
		return false
	}
	now := labenv.ScriptSum(env.Dir)
	return now != "" && now != prev
}

// rerunChanged is step 3 after the learner changed reconcile.sh: the new
// script runs twice and is judged as the first was. reconcile.json is
// written again only when no later evidence depends on it (drift.json
// compares with its quota_uid); else the new runs replace no evidence, and
// the note says so.
func rerunChanged(ctx context.Context, env *steps.Lab, s *steps.Step) (*steps.Result, error) {
	path := filepath.Join(env.Dir, s.File)
	later := steps.LaterEvidence(env, s)
	var old lab.ReconcileRecord
	problems, readErr := env.Steps.Lab().ReadFile(env.Dir, s.File, &old)
	if later == "" {
		note := steps.Say("steps.step3.changed", "Script", env.ScriptPath(), "Path", path)
		if readErr == nil && len(problems) == 0 {
			note += steps.Say("steps.step3.it_held", "QuotaUID", old.QuotaUID, "OwnerUID", old.NamespaceOwnerUID, "Changed", old.SecondPassRVChanged)
		}
		return runStep3(ctx, env, s, &note)
	}
	alpha, err := steps.NeedAlpha(ctx, env, s.Number)
	if err != nil {
		return nil, err
	}
	r := &steps.Result{Step: s.Number, Title: s.EnglishTitle(), File: path, Evidence: old, Kept: true}
	r.Note("%s", steps.Say("steps.step3.changed_kept", "Script", env.ScriptPath(), "File", s.File, "Later", later, "StartOver", steps.StartOver(env)))
	sh := steps.Show(env)
	p, err := twoPasses(ctx, env, r, sh, alpha)
	if err != nil {
		return nil, err
	}
	if readErr != nil || len(problems) > 0 {
		return nil, steps.SayError("steps.keep.damaged", "File", s.File, "Later", later, "StartOver", steps.StartOver(env))
	}
	if err := r.Judge(env.Steps.Lab().Read(env.Dir), s.File, old, alpha); err != nil {
		return nil, err
	}
	p.verdicts(env, r, alpha)
	if r.OK() {
		// The new script is the one judged now: a rerun keeps.
		env.State.ScriptSHA256 = labenv.ScriptSum(env.Dir)
		if err := env.SaveState(); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// onePass runs the learner's reconcile.sh once, shown, and fails with
// the diagnosis of every gap it leaves on alpha, as the step's own first
// pass does: reconcile.json kept (written by hand, say) says nothing of
// what the script does to the cluster.
func onePass(ctx context.Context, env *steps.Lab) error {
	sh := steps.Show(env)
	out, err := runScript(ctx, env, sh)
	if err != nil {
		return err
	}
	showOutput(sh, out)
	problems, err := diagnoseTeamSpace(ctx, env, "alpha", false)
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return steps.Diagnosis(steps.Say("steps.step3.not_converged", "Script", env.ScriptPath()), problems, out)
	}
	return nil
}

// passes is what two passes of reconcile.sh left: the objects before and
// after the second, for the verdicts and reconcile.json.
type passes struct {
	ns                  string
	beforeAll, afterAll []metav1.Object
	before, after       *corev1.ResourceQuota
	nsObj               *corev1.Namespace
}

// record is reconcile.json as the passes measured it.
func (p *passes) record() lab.ReconcileRecord {
	ev := lab.ReconcileRecord{QuotaUID: string(p.after.UID), SecondPassRVChanged: p.before.ResourceVersion != p.after.ResourceVersion}
	for _, ref := range p.nsObj.OwnerReferences {
		if ref.Kind == teamspace.Kind {
			ev.NamespaceOwnerUID = string(ref.UID)
		}
	}
	return ev
}

// verdicts adds the lines about the script itself: the quota it made and
// what its second pass wrote.
func (p *passes) verdicts(env *steps.Lab, r *steps.Result, alpha *teamspace.TeamSpace) {
	r.Check("team-quota hard.pods", teamspace.QuotaPods(p.after), alpha.Spec.Pods)
	writes := secondPassWrites(p.beforeAll, p.afterAll)
	r.VerdictT("steps.step3.verdict_writes", len(writes) == 0, orNothingWritten(writes), steps.Say("steps.nothing"))
	for _, w := range writes {
		r.Note("%s", w)
	}
	r.NoteUnshown(env, "%s", steps.Say("steps.step3.rv", "Before", p.before.ResourceVersion, "After", p.after.ResourceVersion))
}

// twoPasses installs reconcile.sh (never over the learner's), runs it
// once and checks that alpha converged, waits for the quota controller,
// then runs it a second time, reading alpha, team-alpha and team-quota
// before and after.
func twoPasses(ctx context.Context, env *steps.Lab, r *steps.Result, sh steps.Shell, alpha *teamspace.TeamSpace) (*passes, error) {
	if err := env.InstallScript(); err != nil {
		return nil, err
	}
	if env.Engine == labenv.EngineOwn {
		r.Note("%s", steps.Say("steps.step3.running_yours", "Path", env.ScriptPath()))
		if env.Target.ContextGiven {
			// kubectl has no variable for a context: say how the
			// learner's script gets the one cnpa was given.
			kc, err := env.CommandKubeconfig()
			if err != nil {
				return nil, err
			}
			r.Note("%s", steps.Say("steps.step3.context", "Kubeconfig", kc, "Context", env.Target.Context))
		}
	} else {
		r.NoteUnshown(env, "%s", steps.Say("steps.step3.installed", "Path", env.ScriptPath(), "Engine", env.Engine))
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
	// One pass must converge (the lab text's step 3): say what is missing, and
	// why, now rather than after a timeout.
	problems, err := diagnoseTeamSpace(ctx, env, "alpha", false)
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		return nil, steps.Diagnosis(steps.Say("steps.step3.not_converged", "Script", env.ScriptPath()), problems, out)
	}
	ns := teamspace.NamespaceName("alpha")
	// The quota controller writes status.hard after the quota appears;
	// that write moves resourceVersion, so compare only after it.
	sh.WaitCmd(steps.KubectlWait(env, steps.QuotaObj(ns), fmt.Sprintf("jsonpath={.status.hard.pods}=%d", alpha.Spec.Pods)))
	if _, err := steps.WaitFor(ctx, env, steps.Say("steps.what.quota_status"), whyQuotaStatus, func(ctx context.Context) (bool, string, error) {
		q, err := steps.GetQuota(ctx, env, ns)
		if err != nil || q == nil {
			return false, steps.Say("steps.seen.absent", "Name", teamspace.QuotaName), err
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
		n, err := steps.GetNamespace(ctx, env, ns)
		if err != nil {
			return nil, err
		}
		q, err := steps.GetQuota(ctx, env, ns)
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
		return nil, steps.SayError("steps.step3.quota_gone")
	}
	sh.ReadBack("rv_before", steps.QuotaObj(ns), "{.metadata.resourceVersion}", before)
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
		return nil, steps.SayError("steps.step3.second_removed", "Script", env.ScriptPath())
	}
	return &passes{ns: ns, beforeAll: beforeAll, afterAll: afterAll, before: before, after: after, nsObj: nsObj}, nil
}

// orNothingWritten words the second pass's writes for a verdict line.
func orNothingWritten(writes []string) string {
	if len(writes) == 0 {
		return steps.Say("steps.nothing")
	}
	return steps.Say("steps.step3.objects", "N", len(writes))
}

// Why step 3's waits take the time they take, as the live wait says
// it (steps.StartWait): who is expected to act, and why it is not instant.
const whyQuotaStatus = "steps.why.quota_status"

package step4

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/manifest"
	"github.com/labhub/cnpa/internal/poll"
	"github.com/labhub/cnpa/internal/reaction"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/steps"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/timeline"
)

// Run drives step 4 against the live cluster: the service installed,
// enabled and started, its identity proved narrow (--service-identity
// own), and a probe TeamSpace converged by the running controller
// (probeController). It writes no evidence file; its timeline is saved.
func Run(ctx context.Context, env *steps.Lab, s *steps.Step) (*steps.Result, error) {
	if _, err := steps.NeedAlpha(ctx, env, s.Number); err != nil {
		return nil, err
	}
	if env.State.Engine == "" {
		return nil, steps.SayError("steps.step4.need_script")
	}
	r := &steps.Result{Step: s.Number, Title: s.EnglishTitle()}
	probes := reaction.Probes
	rx, err := reaction.Start(ctx, env.Env, s.Number, s.EnglishTitle(), reaction.TeamSpaces(probes), reaction.Namespaces(probes),
		reaction.Quotas(probes), reaction.Events(probes), reaction.ServiceLog(reaction.Any))
	if err != nil {
		return nil, err
	}
	defer rx.Stop()
	before, err := env.Service.Status(ctx)
	if err != nil {
		return nil, err
	}
	rx.Action(steps.ServiceCommand(env, "enable --now"), timeline.Say("timeline.what.you_installed"), "service "+reaction.UnitName)
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
			return nil, fmt.Errorf("%s: %w", steps.Say("steps.step4.restart", "Unit", before.UnitPath), err)
		}
	}
	rx.ServiceUp(ctx)
	if env.OwnIdentity() {
		if err := showIdentity(steps.Show(env), env); err != nil {
			return nil, err
		}
	}
	if theirs {
		showLearnersUnit(steps.Show(env), env, unitData)
		r.VerdictT("steps.step4.verdict_your_unit", true, env.Service.UnitPath()+": "+strings.Join(unitKeyLines(unitData), "; "),
			steps.Say("steps.step4.want_your_unit"))
	} else {
		if env.Engine == labenv.EngineOwn && !env.OwnIdentity() {
			steps.Show(env).Comment("%s", steps.Say("steps.step4.unit_cnpas", "Unit", env.Service.UnitPath()))
		}
		steps.ShowUnit(steps.Show(env), env, false, nil)
	}
	st, err := env.Service.Status(ctx)
	if err != nil {
		return nil, err
	}
	r.NoteUnshown(env, "%s", steps.Say("steps.step4.installed", "Unit", st.UnitPath, "Manager", st.Manager, "PID", st.MainPID))
	r.VerdictT("steps.step4.verdict_installed", st.Installed, st.UnitPath, steps.Say("steps.step4.want_unit_file"))
	r.VerdictT("steps.step4.verdict_enabled", st.Enabled, steps.OnOff(st.Enabled, steps.Say("steps.step4.enabled"), steps.Say("steps.step4.disabled")), steps.Say("steps.step4.enabled"))
	// Active is what the lab asks: it keeps running. A unit that runs
	// reconcile.sh once per start is between two runs most of the time,
	// Restart= starting it again: not stopped (issue 57).
	running := steps.Say("steps.step4.active_pid", "PID", st.MainPID)
	if st.Restarting {
		running = steps.Say("steps.step4.restarting")
	}
	r.VerdictT("steps.step4.verdict_active", st.Active, steps.OnOff(st.Active, running, steps.Say("steps.step4.inactive")), steps.Say("steps.step4.active"))
	if env.OwnIdentity() {
		r.NoteUnshown(env, "%s", steps.Say("steps.step4.acts_as", "User", identity.Username, "Kubeconfig", env.CredentialPath(),
			"How", steps.OnOff(env.SystemUser(), steps.Say("steps.step4.as_system_user", "User", service.User), steps.Say("steps.step4.in_place"))))
		answer, err := env.ProbeIdentity(ctx)
		if err != nil {
			return nil, err
		}
		showIdentityProbe(steps.Show(env), env, answer)
		refused, observed := identity.IsPolicyDenial(answer), steps.Say("steps.step4.allowed")
		switch {
		case refused:
			observed = steps.Say("steps.step4.refused_by", "Policy", identity.Policy)
		case answer != nil:
			observed = answer.Error()
		}
		r.VerdictT("steps.step4.verdict_identity", refused, observed, steps.Say("steps.step4.refused_by", "Policy", identity.Policy))
	} else if theirs {
		r.Note("%s", steps.Say("steps.step4.runs_as_unit"))
	} else {
		r.Note("%s", steps.Say("steps.step4.runs_as_root", "Kubeconfig", env.Target.Path))
	}
	if err := probeController(ctx, env, r, rx); err != nil {
		return nil, err
	}
	r.FinishTimeline(ctx, rx)
	return r, nil
}

// lockService remembers the service manager and unit dir once the unit is
// installed, also when starting it failed: the unit in that dir is what
// the service and `cnpa reset` work on from now on (State.ServiceLocked).
func lockService(ctx context.Context, env *steps.Lab) error {
	st, err := env.Service.Status(ctx)
	if err != nil || !st.Installed {
		// Nothing installed (or nothing known): nothing depends on the
		// choice yet, so it stays open for a rerun.
		return nil
	}
	env.State.ServiceLocked = true
	return env.SaveState()
}

// probeGrace is how long a deleted probe is left to the running
// controller to archive and release it, as `cnpa check` leaves its own
// (check's temps.grace), before cnpa drops its finalizers itself.
const probeGrace = 10 * time.Second

// probeController proves the running controller works as the lab's grader
// does: a temporary TeamSpace converges by itself (teamspace.FindGaps
// finds nothing LAB.md asks for missing: namespace, quota, status, the
// same test as check's probeConverges). Step 4 asks nothing more of it:
// deleted, it gets the grader's grace, and a finalizer still on it then
// is step 6's business (named in a note, and by step 6), never step 4's
// failure. However the proof ends, the probe, its namespace and quota are
// deleted and waited for (releaseProbe): nothing of it outlives the step.
func probeController(ctx context.Context, env *steps.Lab, r *steps.Result, rx *reaction.Recorder) error {
	name := lab.TempName(lab.ProbePrefix)
	ts := fmt.Sprintf("apiVersion: %s\nkind: %s\nmetadata:\n  name: %s\nspec:\n  pods: 1\n", teamspace.APIVersion, teamspace.Kind, name)
	sh := steps.Show(env)
	released := false
	defer func() {
		if !released {
			// Cut short (a failure, Ctrl-C): the same release, quietly,
			// on a context of its own.
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
			defer cancel()
			_, _ = releaseProbe(cctx, env, steps.Shell{}, name, 0)
		}
	}()
	probe := steps.TeamspaceObj(name)
	rx.You(steps.ApplyCmd("-"), timeline.Say("timeline.what.you_created", "Object", "TeamSpace "+name), probe.Target())
	if err := sh.Apply(ctx, env, "-", []byte(ts)); err != nil {
		return err
	}
	ns := teamspace.NamespaceName(name)
	sh.WaitCmd(steps.Until(steps.Kubectl(append(append([]string{"get"}, steps.QuotaObj(ns).Args()...), "-o", "name")...) + " >/dev/null 2>&1"))
	// last is what the probe lacked when last seen; statusOnly, since
	// when its status alone has been missing (namespace and quota there).
	var (
		last       *probeState
		statusOnly time.Time
	)
	took, err := steps.WaitFor(ctx, env, steps.Say("steps.what.probe_created", "Namespace", ns), whyProbeCreated, func(ctx context.Context) (bool, string, error) {
		st, err := probeConverged(ctx, env, name)
		if err != nil || st == nil {
			return false, steps.Say("steps.seen.is_gone", "Name", name), err
		}
		last = st
		if st.gap == nil {
			return true, "converged", nil
		}
		// Namespace and quota there, the status alone wrong: a pass that
		// left it so is done with the probe, and waiting longer changes
		// nothing. Named after a pass or two, not at the timeout.
		if st.gap.Kind != teamspace.GapStatus || st.more {
			statusOnly = time.Time{}
		} else if statusOnly.IsZero() {
			statusOnly = time.Now()
		} else if time.Since(statusOnly) >= statusGrace {
			return false, st.gap.String(), errStatusSettled
		}
		return false, st.gap.String(), nil
	})
	if errors.Is(err, errStatusSettled) {
		return steps.Diagnosis(steps.Say("steps.step4.status_not_written", "Name", name, "Namespace", ns, "Took", took.Round(time.Second)),
			[]string{last.gap.String() + ": " + steps.GapAdvice(*last.gap, last.ts)}, steps.ServiceTail(ctx, env))
	}
	if err != nil {
		return fmt.Errorf("%w%s", err, whyNotConverged(ctx, env, last))
	}
	r.Note("%s", steps.Say("steps.step4.probe_appeared", "Name", name, "Took", took.Round(1e6)))
	r.VerdictT("steps.step4.verdict_probe", true, steps.Say("steps.step4.probe_in", "Namespace", ns, "Took", took.Round(1e6)), steps.Say("steps.step4.want_probe"))
	rx.You(steps.DeleteCmd(probe), timeline.Say("timeline.what.you_deleted", "Object", "TeamSpace "+name), probe.Target())
	held, err := releaseProbe(ctx, env, sh, name, probeGrace)
	released = err == nil
	if err != nil {
		return err
	}
	if len(held) > 0 {
		r.Note("%s", steps.Say("steps.step4.probe_held", "Name", name, "Held", fmt.Sprint(held), "Grace", probeGrace, "Finalizer", teamspace.Finalizer))
		if err := rememberHeldProbe(env, name, held); err != nil {
			return err
		}
	}
	r.VerdictT("steps.step4.verdict_probe_gone", true, steps.Say("steps.step4.probe_gone", "Name", name, "Namespace", ns), steps.Say("steps.step4.want_probe_gone"))
	return nil
}

// releaseProbe deletes probe name as `cnpa check` does its own: the
// delete, grace for the controller to archive and release it, then its
// finalizers dropped (once deletionTimestamp is set none can be added
// back); then its namespace and quota, deleted by cnpa itself rather
// than left to the garbage collector, which on a young cluster can take a
// minute or more to learn a new owner kind. It waits until all three are
// gone and returns the finalizers that still held the probe after grace.
func releaseProbe(ctx context.Context, env *steps.Lab, sh steps.Shell, name string, grace time.Duration) (held []string, err error) {
	res := env.Clients.Dynamic.Resource(teamspace.GVR)
	probe := steps.TeamspaceObj(name)
	if err := sh.Remove(ctx, env, probe); err != nil && !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("%s: %w", steps.Say("steps.step4.delete_probe", "Name", name), err)
	}
	gone := func(ctx context.Context) (bool, string, error) {
		u, err := res.Get(ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return true, steps.Say("steps.seen.gone", "Name", name), nil
		}
		if err != nil {
			return false, "", err
		}
		return false, steps.Say("steps.seen.still_there", "Name", name, "Deleting", u.GetDeletionTimestamp() != nil, "Finalizers", fmt.Sprint(u.GetFinalizers())), nil
	}
	if grace > 0 {
		sh.WaitCmd(steps.KubectlWaitFor(probe, "delete", grace))
		_, _ = poll.Until(ctx, 100*time.Millisecond, grace, gone)
	}
	if u, err := res.Get(ctx, name, metav1.GetOptions{}); err == nil && len(u.GetFinalizers()) > 0 {
		held = u.GetFinalizers()
		sh.Cmd(steps.PatchCmd(probe, `{"metadata":{"finalizers":null}}`))
		if _, err := res.Patch(ctx, name, types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`),
			metav1.PatchOptions{FieldManager: steps.FieldManager}); err != nil && !apierrors.IsNotFound(err) {
			return held, fmt.Errorf("drop the finalizers of probe %s: %w", name, err)
		}
	} else if err != nil && !apierrors.IsNotFound(err) {
		return nil, err
	}
	ns := teamspace.NamespaceName(name)
	if grace > 0 {
		sh.Cmd(steps.Kubectl("delete", "namespace", ns, "--ignore-not-found", "--wait=false"))
	}
	if err := env.Clients.Kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return held, fmt.Errorf("delete the probe's namespace %s: %w", ns, err)
	}
	// The probe's archive record, if the controller wrote one: cnpa's
	// probe, cnpa's to remove, as `cnpa check` removes its own.
	if err := os.Remove(filepath.Join(env.ArchiveDir(), name+".json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return held, err
	}
	if grace > 0 {
		sh.WaitCmd(steps.Until("! "+steps.Kubectl("get", "teamspace", name, "-o", "name")+" >/dev/null 2>&1") + " && " +
			steps.Until("! "+steps.Kubectl("get", "namespace", ns, "-o", "name")+" >/dev/null 2>&1"))
	}
	_, err = steps.WaitFor(ctx, env, steps.Say("steps.what.probe_gone", "Name", name, "Namespace", ns), whyProbeGone, func(ctx context.Context) (bool, string, error) {
		done, seen, err := gone(ctx)
		if err != nil || !done {
			return false, seen, err
		}
		n, err := steps.GetNamespace(ctx, env, ns)
		if err != nil {
			return false, "", err
		}
		if n != nil {
			if n.DeletionTimestamp == nil {
				// Made again by a pass that listed the probe before it went.
				if err := env.Clients.Kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
					return false, "", err
				}
			}
			q, _ := steps.GetQuota(ctx, env, ns)
			return false, steps.Say("steps.seen.namespace_left", "Name", name, "Namespace", ns, "Phase", string(n.Status.Phase),
				"Quota", steps.OnOff(q != nil, steps.Say("steps.seen.there"), steps.Say("steps.seen.gone_word"))), nil
		}
		return true, steps.Say("steps.seen.all_gone"), nil
	})
	return held, err
}

// heldProbeFile, in cnpa's own dir, names the probe step 4 found held by
// a finalizer, for step 6 to report as its mistake: the probe's name on
// the first line, the finalizers that held it on the second, said in
// words when step 6 reads them.
const heldProbeFile = "step4-held-probe.txt"

func rememberHeldProbe(env *steps.Lab, name string, held []string) error {
	dir := filepath.Join(env.Dir, manifest.OwnDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, heldProbeFile), []byte(name+"\n"+strings.Join(held, " ")+"\n"), 0o644)
}

// HeldProbe is what step 4 remembered (rememberHeldProbe), in words, or
// "". A file of one line (an earlier cnpa's, its words) is said as it is.
// Exported for step 6, which names a held probe among its likely mistakes.
func HeldProbe(env *steps.Lab) string {
	data, err := os.ReadFile(filepath.Join(env.Dir, manifest.OwnDir, heldProbeFile))
	if err != nil {
		return ""
	}
	name, held, ok := strings.Cut(strings.TrimSpace(string(data)), "\n")
	if !ok {
		return name
	}
	return steps.Say("steps.seen.held_by", "Name", name, "Finalizers", fmt.Sprint(strings.Fields(held)))
}

// statusGrace is how long the probe's namespace and quota may stand with
// its status alone wrong before the step says so: more than two passes of
// the lab's 3-second loop, whose status write may come a pass after the
// quota.
const statusGrace = 8 * time.Second

// errStatusSettled ends the probe's wait once its status alone has been
// wrong for statusGrace. Never shown: the run tells it by errors.Is and
// says its own diagnosis.
var errStatusSettled error = statusSettled{}

// statusSettled is errStatusSettled's type.
type statusSettled struct{}

func (statusSettled) Error() string { return "step4.status_settled" }

// probeState is the probe as last seen: the TeamSpace, the first thing it
// lacks by LAB.md (nil: converged) and whether it lacks more than that.
type probeState struct {
	ts   *teamspace.TeamSpace
	gap  *teamspace.Gap
	more bool
}

// probeConverged reads TeamSpace name and what it lacks by LAB.md, first
// what check's pending says, word for word (nil when it is gone). Our
// finalizer is not owed (the grader does not ask it of a new TeamSpace),
// and a spec no controller can serve owes nothing more.
func probeConverged(ctx context.Context, env *steps.Lab, name string) (*probeState, error) {
	ts, err := teamspace.Get(ctx, env.Clients.Dynamic, name)
	if err != nil || ts == nil {
		return nil, err
	}
	ns, err := steps.GetNamespace(ctx, env, teamspace.NamespaceName(name))
	if err != nil {
		return nil, err
	}
	q, err := steps.GetQuota(ctx, env, teamspace.NamespaceName(name))
	if err != nil {
		return nil, err
	}
	gaps, _ := teamspace.FindGaps(ts, ns, q, false)
	st := &probeState{ts: ts}
	if lab := gaps.Lab(); len(lab) > 0 {
		st.gap, st.more = &lab[0], len(lab) > 1
	}
	return st, nil
}

// whyNotConverged is what the step adds to a wait for the probe that
// timed out: with the service running, what the probe lacked and the
// likely mistake (never "is the service running?" of one that runs);
// without a service, where to look. A service installed but stopped is
// said by the wait itself.
func whyNotConverged(ctx context.Context, env *steps.Lab, last *probeState) string {
	st, err := env.Service.Status(ctx)
	switch {
	case err != nil || !st.Installed:
		return steps.Say("steps.step4.is_it_running")
	case !st.Active || last == nil || last.gap == nil:
		return ""
	}
	return "\n  " + steps.Say("steps.step4.lacks", "Gap", last.gap.String(), "Advice", steps.GapAdvice(*last.gap, last.ts))
}

// showLearnersUnit shows step 4 with the learner's own unit: used as it
// is, its lines that matter to the lab, and how it is started.
func showLearnersUnit(sh steps.Shell, env *steps.Lab, data []byte) {
	path := env.Service.UnitPath()
	sh.Comment("%s", steps.Say("steps.show.unit_yours", "Path", path))
	sh.Block(steps.Say("steps.show.unit_lines", "File", filepath.Base(path)), unitKeyLines(data), nil)
	sh.Systemctl(env, "daemon-reload")
	sh.Systemctl(env, "enable", "--now", service.Name)
}

// unitKeyLines are a unit's ExecStart=, Restart= and RestartSec= lines.
func unitKeyLines(data []byte) []string {
	var key []string
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"ExecStart=", "Restart=", "RestartSec="} {
			if strings.HasPrefix(l, p) {
				key = append(key, l)
			}
		}
	}
	return key
}

// Why step 4's waits take the time they take, as the live wait says
// it (steps.StartWait): who is expected to act, and why it is not instant.
const (
	whyProbeCreated = "steps.why.probe_created"
	whyProbeGone    = "steps.why.probe_gone"
)

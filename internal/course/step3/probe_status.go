package step3

import (
	"context"
	"path/filepath"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/steps"
	"github.com/labhub/cnpa/internal/teamspace"
)

// ProbeStatus is what a pass must leave on the TeamSpace itself, graded
// from the live alpha once reconcile.sh has run (Rerun): its status
// subresource holds observedGeneration = metadata.generation and
// namespace = team-alpha (LAB.md step 3). A script that sends status to
// the main endpoint (dropped by the server, `patched (no change)`) or that
// never writes status.namespace writes nothing on a rerun either: only
// this row tells it, whatever evidence files exist. Script: its verdict is
// what the reruns left, so a caller that leaves them out (cnpa watch on a
// change of the cluster) leaves it out with them and keeps its last one.
var ProbeStatus = &judge.Probe{ID: "step3.status_written", Step: 3, Where: judge.Local, Script: true, Mistake: lab.MistakeStaleStatus,
	Title: "check.title.step3.status_written",
	Hint: func(f *judge.Facts) string {
		return i18n.T("check.probe.status.hint", i18n.Args{"Script": filepath.Join(f.Dir, lab.ScriptName)})
	}}

// passStatus is ProbeStatus's verdict: alpha's status as the reruns of
// reconcile.sh left it. ran tells whether they ran; when not, the
// script's own row says why and this one skips.
func passStatus(ctx context.Context, env *labenv.Env, ran bool) lab.Verdict {
	if !ran {
		return lab.Skipped(i18n.T("check.rerun.skip_not_run", i18n.Args{"ID": ProbeScriptRuns.ID}))
	}
	alpha, _, _, err := check.LiveState(ctx, env, "alpha")
	if err != nil {
		return lab.Skipped(i18n.T("check.rerun.cannot_read", i18n.Args{"Err": err.Error()}))
	}
	return statusVerdict(alpha)
}

// statusVerdict judges alpha's status (nil: alpha is gone) by what one
// pass must write, with the mistake its shape shows and that mistake's
// advice, the same words `cnpa step 3` says after its own pass.
func statusVerdict(alpha *teamspace.TeamSpace) lab.Verdict {
	want := i18n.T("check.status.want", i18n.Args{"Namespace": teamspace.NamespaceName("alpha")})
	if alpha == nil {
		return lab.Holds(false, want, i18n.T("check.alpha_missing"))
	}
	ns := teamspace.NamespaceName(alpha.Name)
	got := i18n.T("check.status.got", i18n.Args{"Observed": alpha.Status.ObservedGeneration,
		"Namespace": `"` + alpha.Status.Namespace + `"`, "Generation": alpha.Generation})
	v := lab.Holds(alpha.Status.ObservedGeneration == alpha.Generation && alpha.Status.Namespace == ns, want, got)
	if v.OK {
		return v
	}
	m := statusMistake(alpha)
	v.Mistake = m
	if m == lab.MistakeStatusMain {
		v.Advice = i18n.T("check.status.never", i18n.Args{"Advice": m.Advise()})
	} else {
		v.Advice = m.Advise()
	}
	return v
}

// statusMistake is the mistake a status that is not what a pass writes
// shows, as the step's own diagnosis names it (steps.MistakeFor): none at
// all, the status sent to the main endpoint (dropped); else one kept
// incomplete or behind.
func statusMistake(ts *teamspace.TeamSpace) lab.Mistake {
	return steps.MistakeFor(teamspace.Gap{Kind: teamspace.GapStatus}, ts)
}

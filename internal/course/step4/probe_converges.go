package step4

import (
	"context"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/ssaconflict"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Converges is the grader of step 4: a new TeamSpace gets its
// namespace (labelled, owned), its quota and its status by itself, with
// nobody but the running controller acting (LAB.md step 4: "A new TeamSpace
// must get its namespace and quota within seconds with nobody acting").
// The finalizer is step 6's and is graded there. How long it took to
// converge is kept for the foreign-namespace probe. Its TeamSpace is
// deleted in phase 3 and gone when it returns, or, converged, handed on
// to the drift probe (Session.ConvergeDone), which deletes it.
func Converges(ctx context.Context, r *check.Session) []lab.Verdict {
	timeout := r.Timeout()
	r.Note(i18n.T("check.progress.converges", i18n.Args{"Prefix": check.TempPrefix}))
	want := i18n.T("check.converges.want", i18n.Args{"Timeout": timeout.String()})
	// spec.pods as the drift probe's, which may take it.
	ts, err := r.Temps().New(ctx, check.DriftPods, "250m", nil)
	if err != nil {
		r.ConvergeDone(0, false, nil)
		return []lab.Verdict{lab.Holds(false, want, err.Error())}
	}
	start := time.Now()
	// lacks is the kind of what the TeamSpace lacked when last seen.
	var lacks teamspace.GapKind
	ok, seen := check.Await(ctx, timeout, func(ctx context.Context) (bool, string) {
		live, ns, q, err := check.LiveState(ctx, r.Env(), ts.Name)
		switch {
		case err != nil:
			return false, err.Error()
		case live == nil:
			return false, i18n.T("check.ts_gone", i18n.Args{"Name": ts.Name})
		}
		g := check.FirstGap(live, ns, q, false)
		if g == nil {
			return true, ""
		}
		lacks = g.Kind
		return false, g.String()
	})
	took := time.Since(start)
	var stop, blocked string
	var conflict *ssaconflict.Conflict
	if !ok {
		stop = r.StopsBefore(ctx, ts.Name)
		conflict = r.Conflict(ctx)
		if at := stoppedByDrift(ctx, r, ts.Name, conflict); at != "" {
			r.ConvergeBlocked(at)
			blocked = i18n.T("check.converges.blocked", i18n.Args{"At": at})
		}
	}
	// LAB.md: the grader "deletes it": in phase 3, with every probe's,
	// but for the drift probe, which goes on with it when it converged
	// and runs here.
	if !r.ConvergeDone(took, ok, ts) {
		r.Phase(ctx, check.PhaseDelete)
		_ = r.Temps().Discard(ctx, ts.Name)
	}
	if blocked != "" {
		return []lab.Verdict{lab.Skipped(blocked)}
	}
	if !ok {
		v := lab.Holds(false, want, ts.Name+" "+seen+stop)
		if lacks == teamspace.GapQuota || lacks == teamspace.GapQuotaHard {
			v.Mistake = lab.MistakeQuotaSpec
		}
		// A refused apply in the controller's output says why, before
		// the generic verdict.
		return []lab.Verdict{check.WithConflict(v, conflict)}
	}
	return []lab.Verdict{lab.Holds(true, want, i18n.T("check.converges.got", i18n.Args{"Name": ts.Name, "Took": took.Round(time.Millisecond).String()}))}
}

// stoppedByDrift is where every pass ends when step 4 cannot be judged
// because its TeamSpace waited behind another TeamSpace's refused
// server-side apply: that TeamSpace's quota has a field another manager
// holds (step 5's hand edit, LAB.md: patch the quota's pods to 99),
// which an apply without --force-conflicts never takes back, and every
// pass that ends at the first failed command (`set -e`) ends there. That
// is step 5's mistake, reported there (its quota check and drift probe);
// step 4's property, a new TeamSpace served by itself, is not what stops
// the pass. "" when the pass does not stop so: no such quota listed
// before the probe, or the log shows the pass ending at another one.
func stoppedByDrift(ctx context.Context, r *check.Session, probe string, conflict *ssaconflict.Conflict) string {
	if conflict == nil || !conflict.Owns(".spec.hard") {
		return ""
	}
	held := heldQuotaBefore(ctx, r, probe, conflict)
	if held == "" {
		return ""
	}
	if at, _ := r.PassStopsAt(ctx, probe); at != "" && at != held {
		return ""
	}
	return held
}

// heldQuotaBefore is the first TeamSpace listed before probe (in the
// order a loop over `kubectl get teamspaces` serves them) whose quota
// has a field an owner of conflict still holds; "" when none has.
func heldQuotaBefore(ctx context.Context, r *check.Session, probe string, conflict *ssaconflict.Conflict) string {
	list, err := r.Env().Clients.Dynamic.Resource(teamspace.GVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return ""
	}
	var names []string
	for _, u := range list.Items {
		if n := u.GetName(); n < probe {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		q, err := r.Env().Clients.Kube.CoreV1().ResourceQuotas(teamspace.NamespaceName(n)).Get(ctx, teamspace.QuotaName, metav1.GetOptions{})
		if err == nil && conflict.Still([]metav1.Object{q}) != nil {
			return n
		}
	}
	return ""
}

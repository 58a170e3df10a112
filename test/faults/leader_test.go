package faults

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/testcluster"
	"github.com/labhub/cnpa/internal/ui"
	"github.com/labhub/cnpa/test/kit"
)

// TestLeaderElectionFailover runs two controllers with --leader-elect.
// Phases: A takes the lease, B stands by (its log says so, its metrics show
// no reconcile at all while A converges a TeamSpace and reverts a hand
// edit); A is killed with SIGKILL, so it cannot release the lease; B takes
// over once the lease expires and converges a TeamSpace created meanwhile.
func TestLeaderElectionFailover(t *testing.T) {
	e := kit.New(t, testcluster.Shared(t))
	const lease = "cnpa-faults-failover"
	dir := t.TempDir()
	a, b := e.StartLeaderPair("leader", lease, dir)

	e.Create("le-first", 3, "1")
	e.WaitFor("le-first converged by the leader", time.Minute, e.Converged("le-first", 3, "1", true))
	if _, err := e.Kube.CoreV1().ResourceQuotas(teamspace.NamespaceName("le-first")).Patch(e.Ctx, teamspace.QuotaName,
		types.MergePatchType, []byte(`{"spec":{"hard":{"pods":"99"}}}`), metav1.PatchOptions{FieldManager: "hand"}); err != nil {
		t.Fatal(err)
	}
	e.WaitFor("hand edit reverted by the leader", time.Minute, e.Converged("le-first", 3, "1", true))
	// B's view over two more kit.Resync passes with A in charge: nothing
	// reconciled. Nothing changes meanwhile, so A's count grows by resyncs.
	base := a.MustMetric("cnpa_reconcile_total")
	e.WaitFor("two resyncs while B stands by", time.Minute, func() error {
		if n := a.MustMetric("cnpa_reconcile_total"); n < base+2 {
			return fmt.Errorf("A reconciled %.0f times since the revert", n-base)
		}
		return nil
	})
	aReconciles, aDrift := a.MustMetric("cnpa_reconcile_total"), a.MustMetric("cnpa_drift_corrections_total")
	bReconciles, bDrift := b.MustMetric("cnpa_reconcile_total"), b.MustMetric("cnpa_drift_corrections_total")
	if bReconciles != 0 || bDrift != 0 {
		t.Fatalf("standby B wrote while A led: got %.0f reconciles, %.0f drift corrections, want 0", bReconciles, bDrift)
	}
	bReady, _ := kit.HTTPGet("http://" + b.Health + "/readyz")
	if err := e.LeaseHolder(lease, a.Identity())(); err != nil {
		t.Fatalf("before the kill: %v", err)
	}
	t.Logf("A (pid %d) leads: %.0f reconciles, %.0f drift corrections; B (pid %d) stands by: %.0f reconciles, /readyz %d",
		a.Pid(), aReconciles, aDrift, b.Pid(), bReconciles, bReady)

	// Kill the leader: no chance to release the lease.
	l, _ := e.Kube.CoordinationV1().Leases("kube-system").Get(e.Ctx, lease, metav1.GetOptions{})
	transitions := *l.Spec.LeaseTransitions
	a.Kill()
	killed := time.Now()
	e.Create("le-after", 5, "250m")
	takeover := e.WaitFor("B takes the lease", time.Minute, e.LeaseHolder(lease, b.Identity()))
	e.WaitFor("le-after converged by B", time.Minute, e.Converged("le-after", 5, "250m", true))
	if !strings.Contains(b.Log(), "became leader") {
		t.Errorf("B's log does not say it became leader:\n%s", ui.Tail(b.Log(), 10))
	}
	l, _ = e.Kube.CoordinationV1().Leases("kube-system").Get(e.Ctx, lease, metav1.GetOptions{})
	t.Logf("A killed; B took the lease %s later (lease %s, retry %s), le-after converged %s after the kill; lease transitions %d → %d",
		takeover.Round(time.Millisecond), kit.LeaseDuration, kit.RetryPeriod, time.Since(killed).Round(time.Millisecond), transitions, *l.Spec.LeaseTransitions)
	// Generous: a lease expiry plus retries, with room for a busy machine.
	if limit := kit.LeaseDuration + kit.RenewDeadline + 10*time.Second; takeover > limit {
		t.Errorf("takeover: got %s, want within %s", takeover, limit)
	}
	if n := b.MustMetric("cnpa_reconcile_total"); n == 0 {
		t.Errorf("B after takeover: got 0 reconciles, want some")
	}
	e.RemoveAll("le-first", "le-after")
}

// TestPausedLeaderDoesNotWrite freezes the leader (SIGSTOP, as a long GC
// pause, a stalled VM or a debugger would) past its lease, lets the standby
// take over and act on a spec change, then thaws the old leader. Its cache
// is stale and its work items are queued, but it no longer holds the lease:
// it must step down without writing anything.
func TestPausedLeaderDoesNotWrite(t *testing.T) {
	e := kit.New(t, testcluster.Shared(t))
	const lease = "cnpa-faults-paused"
	dir := t.TempDir()
	a, b := e.StartLeaderPair("paused", lease, dir)
	const name = "le-paused"
	e.Create(name, 3, "1")
	e.WaitFor(name+" converged by A", time.Minute, e.Converged(name, 3, "1", true))

	a.Signal(syscall.SIGSTOP)
	paused := time.Now()
	e.PatchSpec(name, map[string]any{"pods": 7})
	took := e.WaitFor("B takes over from the frozen A", time.Minute, e.LeaseHolder(lease, b.Identity()))
	e.WaitFor(name+" converged by B", time.Minute, e.Converged(name, 7, "1", true))
	// A hand edit B reverts, so A's stale cache disagrees with the cluster
	// in one more place.
	if _, err := e.Kube.CoreV1().ResourceQuotas(teamspace.NamespaceName(name)).Patch(e.Ctx, teamspace.QuotaName,
		types.MergePatchType, []byte(`{"spec":{"hard":{"requests.cpu":"3"}}}`), metav1.PatchOptions{FieldManager: "hand"}); err != nil {
		t.Fatal(err)
	}
	e.WaitFor("hand edit reverted by B", time.Minute, e.Converged(name, 7, "1", true))

	before := len(a.Log())
	a.Signal(syscall.SIGCONT)
	st := a.WaitExit(time.Minute)
	if st == nil {
		t.Fatalf("A did not exit within a minute of thawing; log:\n%s", ui.Tail(a.Log(), 20))
	}
	after := a.Log()[before:]
	t.Logf("A frozen for %s (B took over %s after the freeze); A exited %v after thawing; its log after thawing:\n%s",
		time.Since(paused).Round(time.Millisecond), took.Round(time.Millisecond), st, after)
	if !strings.Contains(after, "lost the leader lease") {
		t.Errorf("A's exit: want it to say it lost the leader lease")
	}
	if w := kit.GrepLines(after, `msg=event|reconcile failed`); len(w) > 0 {
		t.Errorf("the old leader wrote (or tried to) after losing the lease: %d lines:\n%s", len(w), strings.Join(w, "\n"))
	}
	e.WaitFor(name+" still converged", time.Minute, e.Converged(name, 7, "1", true))
	e.RemoveAll(name)
}

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
)

const (
	leaseDuration = 4 * time.Second
	renewDeadline = 3 * time.Second
	retryPeriod   = 500 * time.Millisecond
)

// leaderArgs are --leader-elect with a short lease of its own name.
func leaderArgs(lease string) []string {
	return []string{"--leader-elect", "--leader-elect-name", lease,
		"--leader-elect-lease-duration", leaseDuration.String(),
		"--leader-elect-renew-deadline", renewDeadline.String(),
		"--leader-elect-retry-period", retryPeriod.String()}
}

// leaseHolder checks that the Lease kube-system/<lease> is held by want.
func (e *env) leaseHolder(lease, want string) func() error {
	return func() error {
		l, err := e.kube.CoordinationV1().Leases("kube-system").Get(e.ctx, lease, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != want {
			return fmt.Errorf("lease %s held by %v, want %s", lease, ptrString(l.Spec.HolderIdentity), want)
		}
		return nil
	}
}

func ptrString(p *string) string {
	if p == nil {
		return "<nobody>"
	}
	return *p
}

// TestLeaderElectionFailover runs two controllers with --leader-elect.
// Phases: A takes the lease, B stands by (its log says so, its metrics show
// no reconcile at all while A converges a TeamSpace and reverts a hand
// edit); A is killed with SIGKILL, so it cannot release the lease; B takes
// over once the lease expires and converges a TeamSpace created meanwhile.
func TestLeaderElectionFailover(t *testing.T) {
	e := newEnv(t, testcluster.Shared(t))
	const lease = "cnpa-faults-failover"
	dir := t.TempDir()
	a := e.startController("leader-a", ctrlOpts{archiveDir: dir, args: leaderArgs(lease)})
	e.waitFor("A holds the lease", time.Minute, e.leaseHolder(lease, a.identity()))
	b := e.startController("leader-b", ctrlOpts{archiveDir: dir, args: leaderArgs(lease), noWait: true})
	e.waitFor("B stands by", time.Minute, func() error {
		if !strings.Contains(b.log(), "standing by") {
			return fmt.Errorf("B's log does not say it stands by yet:\n%s", ui.Tail(b.log(), 5))
		}
		return nil
	})

	e.create("le-first", 3, "1")
	e.waitFor("le-first converged by the leader", time.Minute, e.converged("le-first", 3, "1"))
	if _, err := e.kube.CoreV1().ResourceQuotas(teamspace.NamespaceName("le-first")).Patch(e.ctx, teamspace.QuotaName,
		types.MergePatchType, []byte(`{"spec":{"hard":{"pods":"99"}}}`), metav1.PatchOptions{FieldManager: "hand"}); err != nil {
		t.Fatal(err)
	}
	e.waitFor("hand edit reverted by the leader", time.Minute, e.converged("le-first", 3, "1"))
	// B's view over two more resync passes with A in charge: nothing
	// reconciled. Nothing changes meanwhile, so A's count grows by resyncs.
	base := a.mustMetric("cnpa_reconcile_total")
	e.waitFor("two resyncs while B stands by", time.Minute, func() error {
		if n := a.mustMetric("cnpa_reconcile_total"); n < base+2 {
			return fmt.Errorf("A reconciled %.0f times since the revert", n-base)
		}
		return nil
	})
	aReconciles, aDrift := a.mustMetric("cnpa_reconcile_total"), a.mustMetric("cnpa_drift_corrections_total")
	bReconciles, bDrift := b.mustMetric("cnpa_reconcile_total"), b.mustMetric("cnpa_drift_corrections_total")
	if bReconciles != 0 || bDrift != 0 {
		t.Fatalf("standby B wrote while A led: got %.0f reconciles, %.0f drift corrections, want 0", bReconciles, bDrift)
	}
	bReady, _ := httpGet("http://" + b.health + "/readyz")
	if err := e.leaseHolder(lease, a.identity())(); err != nil {
		t.Fatalf("before the kill: %v", err)
	}
	t.Logf("A (pid %d) leads: %.0f reconciles, %.0f drift corrections; B (pid %d) stands by: %.0f reconciles, /readyz %d",
		a.pid(), aReconciles, aDrift, b.pid(), bReconciles, bReady)

	// Kill the leader: no chance to release the lease.
	l, _ := e.kube.CoordinationV1().Leases("kube-system").Get(e.ctx, lease, metav1.GetOptions{})
	transitions := *l.Spec.LeaseTransitions
	a.kill()
	killed := time.Now()
	e.create("le-after", 5, "250m")
	takeover := e.waitFor("B takes the lease", time.Minute, e.leaseHolder(lease, b.identity()))
	e.waitFor("le-after converged by B", time.Minute, e.converged("le-after", 5, "250m"))
	if !strings.Contains(b.log(), "became leader") {
		t.Errorf("B's log does not say it became leader:\n%s", ui.Tail(b.log(), 10))
	}
	l, _ = e.kube.CoordinationV1().Leases("kube-system").Get(e.ctx, lease, metav1.GetOptions{})
	t.Logf("A killed; B took the lease %s later (lease %s, retry %s), le-after converged %s after the kill; lease transitions %d → %d",
		takeover.Round(time.Millisecond), leaseDuration, retryPeriod, time.Since(killed).Round(time.Millisecond), transitions, *l.Spec.LeaseTransitions)
	// Generous: a lease expiry plus retries, with room for a busy machine.
	if limit := leaseDuration + renewDeadline + 10*time.Second; takeover > limit {
		t.Errorf("takeover: got %s, want within %s", takeover, limit)
	}
	if n := b.mustMetric("cnpa_reconcile_total"); n == 0 {
		t.Errorf("B after takeover: got 0 reconciles, want some")
	}
	e.removeAll("le-first", "le-after")
}

// TestPausedLeaderDoesNotWrite freezes the leader (SIGSTOP, as a long GC
// pause, a stalled VM or a debugger would) past its lease, lets the standby
// take over and act on a spec change, then thaws the old leader. Its cache
// is stale and its work items are queued, but it no longer holds the lease:
// it must step down without writing anything.
func TestPausedLeaderDoesNotWrite(t *testing.T) {
	e := newEnv(t, testcluster.Shared(t))
	const lease = "cnpa-faults-paused"
	dir := t.TempDir()
	a := e.startController("paused-a", ctrlOpts{archiveDir: dir, args: leaderArgs(lease)})
	e.waitFor("A holds the lease", time.Minute, e.leaseHolder(lease, a.identity()))
	b := e.startController("paused-b", ctrlOpts{archiveDir: dir, args: leaderArgs(lease), noWait: true})
	e.waitFor("B stands by", time.Minute, func() error {
		if !strings.Contains(b.log(), "standing by") {
			return fmt.Errorf("B's log does not say it stands by yet")
		}
		return nil
	})
	const name = "le-paused"
	e.create(name, 3, "1")
	e.waitFor(name+" converged by A", time.Minute, e.converged(name, 3, "1"))

	a.signal(syscall.SIGSTOP)
	paused := time.Now()
	e.patchSpec(name, map[string]any{"pods": 7})
	took := e.waitFor("B takes over from the frozen A", time.Minute, e.leaseHolder(lease, b.identity()))
	e.waitFor(name+" converged by B", time.Minute, e.converged(name, 7, "1"))
	// A hand edit B reverts, so A's stale cache disagrees with the cluster
	// in one more place.
	if _, err := e.kube.CoreV1().ResourceQuotas(teamspace.NamespaceName(name)).Patch(e.ctx, teamspace.QuotaName,
		types.MergePatchType, []byte(`{"spec":{"hard":{"requests.cpu":"3"}}}`), metav1.PatchOptions{FieldManager: "hand"}); err != nil {
		t.Fatal(err)
	}
	e.waitFor("hand edit reverted by B", time.Minute, e.converged(name, 7, "1"))

	before := len(a.log())
	a.signal(syscall.SIGCONT)
	st := a.waitExit(time.Minute)
	if st == nil {
		t.Fatalf("A did not exit within a minute of thawing; log:\n%s", ui.Tail(a.log(), 20))
	}
	after := a.log()[before:]
	t.Logf("A frozen for %s (B took over %s after the freeze); A exited %v after thawing; its log after thawing:\n%s",
		time.Since(paused).Round(time.Millisecond), took.Round(time.Millisecond), st, after)
	if !strings.Contains(after, "lost the leader lease") {
		t.Errorf("A's exit: want it to say it lost the leader lease")
	}
	if w := grepLines(after, `msg=event|reconcile failed`); len(w) > 0 {
		t.Errorf("the old leader wrote (or tried to) after losing the lease: %d lines:\n%s", len(w), strings.Join(w, "\n"))
	}
	e.waitFor(name+" still converged", time.Minute, e.converged(name, 7, "1"))
	e.removeAll(name)
}

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
	"github.com/labhub/cnpa/internal/ui"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// TestLeaderElectionFailover runs two controllers with --leader-elect.
// Phases: A takes the lease, B stands by (its log says so, its metrics show
// no reconcile at all while A converges a TeamSpace and reverts a hand
// edit); A is killed with SIGKILL, so it cannot release the lease; B takes
// over once the lease expires and converges a TeamSpace created meanwhile.
func TestLeaderElectionFailover(t *testing.T) {
	e := kit.New(t, cluster.Shared(t))
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
// it must step down without writing anything. "Without writing" is read
// from kube-apiserver's audit log, where A and B each have a user of their
// own: from the freeze until A has exited, no write request of A's reached
// the server, except a refused attempt on the lease itself (that is how
// leader election finds out it lost). Before the freeze the same log shows
// A's writes, so the audit does see them.
func TestPausedLeaderDoesNotWrite(t *testing.T) {
	c := cluster.Shared(t)
	e := kit.New(t, c)
	const lease = "cnpa-faults-paused"
	dir := t.TempDir()
	var kubeconfigs [2]string
	for i, u := range leaderUsers {
		var err error
		if kubeconfigs[i], err = c.UserKubeconfig(u); err != nil {
			t.Fatal(err)
		}
	}
	userA, userB := leaderUsers[0], leaderUsers[1]
	start, err := c.AuditMark()
	if err != nil {
		t.Fatal(err)
	}
	a, b := e.StartLeaderPairAs("paused", lease, dir, kubeconfigs[0], kubeconfigs[1])
	const name = "le-paused"
	e.Create(name, 3, "1")
	e.WaitFor(name+" converged by A", time.Minute, e.Converged(name, 3, "1", true))

	a.Signal(syscall.SIGSTOP)
	paused := time.Now()
	// A's requests before the freeze are all answered (they are in the log
	// once answered); the window starts here.
	mark, err := c.AuditMark()
	if err != nil {
		t.Fatal(err)
	}
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

	// The audit log: A wrote before the freeze, nothing after it; B wrote
	// after it (the take-over, the spec change, the revert).
	beforeFreeze, err := c.AuditSince(start, userA)
	if err != nil {
		t.Fatal(err)
	}
	if n := countWrites(beforeFreeze, name); n == 0 {
		t.Fatalf("audit log before the freeze: no write by %s to %s or its namespace, want A's (is the audit seeing A?)", userA, name)
	}
	window, err := c.AuditSince(mark, "")
	if err != nil {
		t.Fatal(err)
	}
	var byA []string
	lease409 := 0
	for _, ev := range window {
		if ev.User.Username != userA || ev.Received.Before(paused) {
			continue // another's, or sent before the freeze and answered after the mark
		}
		if ev.ObjectRef.Resource == "leases" && ev.ObjectRef.Name == lease && ev.ResponseStatus.Code == 409 {
			lease409++ // refused: how A learns that B holds the lease
			continue
		}
		byA = append(byA, ev.String())
	}
	var byB int
	for _, ev := range window {
		if ev.User.Username == userB && ev.ObjectRef.Resource != "leases" && ev.ObjectRef.Resource != "events" {
			byB++
		}
	}
	t.Logf("audit log from the freeze until A exited: %d writes by A (%d refused lease updates), %d writes by B to TeamSpaces, namespaces and quotas; %d writes by A before the freeze",
		len(byA), lease409, byB, len(beforeFreeze))
	if len(byA) > 0 {
		t.Errorf("the old leader wrote after losing the lease: got %d write requests, want 0:\n%s", len(byA), strings.Join(byA, "\n"))
	}
	if byB == 0 {
		t.Errorf("audit log after the freeze: no write by %s, want B's take-over writes", userB)
	}
	e.WaitFor(name+" still converged", time.Minute, e.Converged(name, 7, "1", true))
	e.RemoveAll(name)
}

// countWrites counts the writes to TeamSpace name, its namespace and the
// objects in it.
func countWrites(evs []cluster.AuditEvent, name string) int {
	n := 0
	for _, ev := range evs {
		if ev.ObjectRef.Name == name || ev.ObjectRef.Namespace == teamspace.NamespaceName(name) ||
			ev.ObjectRef.Name == teamspace.NamespaceName(name) {
			n++
		}
	}
	return n
}

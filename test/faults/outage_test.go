package faults

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/ui"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// outage is how long kube-apiserver stays down.
const outage = 10 * time.Second

// catchUp is how soon after the API server's return everything must have
// converged (issue 7).
const catchUp = 5 * time.Second

// maxOutageErrors bounds the error lines the controller may log during the
// outage: a backoff gives a few dozen, a retry loop thousands.
const maxOutageErrors = 200

// TestAPIServerOutage stops kube-apiserver for 10 s under a running
// controller. Phases:
//  1. two TeamSpaces converge;
//  2. with the controller paused (SIGSTOP), one spec changes and the other's
//     quota is deleted, so the controller owes work it has not seen;
//  3. the API server stops, the controller resumes: it must stay up and
//     back off (its error lines are counted);
//  4. the API server returns; a spec changes and a TeamSpace is created at
//     once; everything converges, including the work owed from step 2.
//
// It has a cluster of its own: the others' tests must not see the outage.
// It runs on etcd and on kine; on kine the datastore goes down and comes back
// with the API server, as k3s restarts both in one process.
func TestAPIServerOutage(t *testing.T) {
	for _, datastore := range []string{cluster.DatastoreEtcd, cluster.DatastoreKine} {
		t.Run(datastore, func(t *testing.T) { testAPIServerOutage(t, datastore) })
	}
}

func testAPIServerOutage(t *testing.T, datastore string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	c, err := cluster.Start(ctx, cluster.Options{Datastore: datastore})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	t.Logf("own control plane ready in %s", time.Since(start).Round(time.Millisecond))
	e := kit.New(t, c)
	p := e.StartController("outage", kit.CtrlOpts{ArchiveDir: t.TempDir()})

	e.Create("outage-spec", 3, "1")
	e.Create("outage-quota", 2, "500m")
	e.WaitFor("outage-spec converged", time.Minute, e.Converged("outage-spec", 3, "1", true))
	e.WaitFor("outage-quota converged", time.Minute, e.Converged("outage-quota", 2, "500m", true))
	q, err := e.GetQuota(teamspace.NamespaceName("outage-quota"))
	if err != nil {
		t.Fatal(err)
	}
	oldQuotaUID := q.UID

	// 2. Work the controller owes but has not seen.
	p.Signal(syscall.SIGSTOP)
	e.PatchSpec("outage-spec", map[string]any{"pods": 5})
	if err := e.Kube.CoreV1().ResourceQuotas(teamspace.NamespaceName("outage-quota")).Delete(e.Ctx, teamspace.QuotaName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	// 3. The outage.
	logBefore := len(p.Log())
	down := time.Now()
	c.StopAPIServer()
	stopped := time.Now()
	p.Signal(syscall.SIGCONT)
	// kube-apiserver may take longer than the outage to stop (it drains
	// for up to 10 s before the cluster package kills it); the outage counts from
	// the stop request.
	if st := p.WaitExit(max(time.Until(down.Add(outage)), 0)); st != nil {
		t.Fatalf("controller exited during the outage: %v\n%s", st, ui.Tail(p.Log(), 30))
	}
	if err := c.StartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	duringOutage := p.Log()[logBefore:]
	slogErrs, klogErrs, lines := logErrors(duringOutage)
	t.Logf("API server: stop took %s, down %s in all (stop request to /readyz ok)",
		stopped.Sub(down).Round(time.Millisecond), back.Sub(down).Round(time.Millisecond))
	t.Logf("controller log during the outage: %d lines, %d error lines (%d controller reconcile errors, %d client-go errors), max reconcile retries %d",
		lines, slogErrs+klogErrs, slogErrs, klogErrs, maxRetries(duringOutage))
	if n := slogErrs + klogErrs; n >= maxOutageErrors {
		t.Errorf("error lines during a %s outage: got %d, want < %d (an error storm)\n%s", outage, n, maxOutageErrors, ui.Tail(duringOutage, 40))
	}
	if !p.Alive() {
		t.Fatalf("controller exited during the outage: %v", p.Cmd.ProcessState)
	}

	// 4. Changes right after the API returns, and the owed work.
	driftBefore := p.MustMetric("cnpa_drift_corrections_total")
	e.PatchSpec("outage-spec", map[string]any{"cpu": "2"})
	e.Create("outage-new", 4, "250m")
	took := e.WaitAll(back, 2*time.Minute, map[string]func() error{
		"new TeamSpace":         e.Converged("outage-new", 4, "250m", true),
		"spec (owed and fresh)": e.Converged("outage-spec", 5, "2", true),
		"quota deleted (owed)":  e.Converged("outage-quota", 2, "500m", true),
	})
	// The 2 min deadline above only bounds the wait; the promise is
	// catchUp. Without the controller's apiWait the reflectors' own backoff
	// (0.8 s doubling to 30 s) made this 1–21 s.
	for what, d := range took {
		t.Logf("converged after the API returned: %s in %s", what, d.Round(time.Millisecond))
		if d > catchUp {
			t.Errorf("%s converged %s after the API returned, want within %s", what, d.Round(time.Millisecond), catchUp)
		}
	}
	if !strings.Contains(p.Log(), "API server is back") {
		t.Errorf("controller log has no \"API server is back\" line: the informers did not wait out the outage\n%s", ui.Tail(p.Log(), 30))
	}
	t.Logf("drift corrections counted from the API's return to convergence: %.0f (1 is the deleted quota; more are re-applies from a stale cache)",
		p.MustMetric("cnpa_drift_corrections_total")-driftBefore)
	if q, err := e.GetQuota(teamspace.NamespaceName("outage-quota")); err != nil {
		t.Errorf("restored quota: %v", err)
	} else if q.UID == oldQuotaUID {
		t.Errorf("restored quota uid: got %s, the deleted one's; want a new object", q.UID)
	}
	if !p.Alive() {
		t.Fatalf("controller exited: %v", p.Cmd.ProcessState)
	}
	e.RemoveAll("outage-spec", "outage-quota", "outage-new")
}

var retriesRE = regexp.MustCompile(`retries=(\d+)`)

// maxRetries is the largest retries=N in a controller log: how far the
// per-TeamSpace backoff went.
func maxRetries(log string) int {
	max := 0
	for _, m := range retriesRE.FindAllStringSubmatch(log, -1) {
		if n, _ := strconv.Atoi(m[1]); n > max {
			max = n
		}
	}
	return max
}

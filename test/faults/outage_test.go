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
	"github.com/labhub/cnpa/internal/testcluster"
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
	for _, datastore := range []string{testcluster.DatastoreEtcd, testcluster.DatastoreKine} {
		t.Run(datastore, func(t *testing.T) { testAPIServerOutage(t, datastore) })
	}
}

func testAPIServerOutage(t *testing.T, datastore string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	c, err := testcluster.Start(ctx, testcluster.Options{Datastore: datastore})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	t.Logf("own control plane ready in %s", time.Since(start).Round(time.Millisecond))
	e := newEnv(t, c)
	p := e.startController("outage", ctrlOpts{archiveDir: t.TempDir()})

	e.create("outage-spec", 3, "1")
	e.create("outage-quota", 2, "500m")
	e.waitFor("outage-spec converged", time.Minute, e.converged("outage-spec", 3, "1"))
	e.waitFor("outage-quota converged", time.Minute, e.converged("outage-quota", 2, "500m"))
	q, err := e.quota("outage-quota")
	if err != nil {
		t.Fatal(err)
	}
	oldQuotaUID := q.UID

	// 2. Work the controller owes but has not seen.
	p.signal(syscall.SIGSTOP)
	e.patchSpec("outage-spec", map[string]any{"pods": 5})
	if err := e.kube.CoreV1().ResourceQuotas(teamspace.NamespaceName("outage-quota")).Delete(e.ctx, teamspace.QuotaName, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	// 3. The outage.
	logBefore := len(p.log())
	down := time.Now()
	c.StopAPIServer()
	stopped := time.Now()
	p.signal(syscall.SIGCONT)
	// kube-apiserver may take longer than the outage to stop (it drains
	// for up to 10 s before testcluster kills it); the outage counts from
	// the stop request.
	if st := p.waitExit(max(time.Until(down.Add(outage)), 0)); st != nil {
		t.Fatalf("controller exited during the outage: %v\n%s", st, tail(p.log(), 30))
	}
	if err := c.StartAPIServer(ctx); err != nil {
		t.Fatal(err)
	}
	back := time.Now()
	duringOutage := p.log()[logBefore:]
	slogErrs, klogErrs, lines := logErrors(duringOutage)
	t.Logf("API server: stop took %s, down %s in all (stop request to /readyz ok)",
		stopped.Sub(down).Round(time.Millisecond), back.Sub(down).Round(time.Millisecond))
	t.Logf("controller log during the outage: %d lines, %d error lines (%d controller reconcile errors, %d client-go errors), max reconcile retries %d",
		lines, slogErrs+klogErrs, slogErrs, klogErrs, maxRetries(duringOutage))
	if n := slogErrs + klogErrs; n >= maxOutageErrors {
		t.Errorf("error lines during a %s outage: got %d, want < %d (an error storm)\n%s", outage, n, maxOutageErrors, tail(duringOutage, 40))
	}
	if !p.alive() {
		t.Fatalf("controller exited during the outage: %v", p.cmd.ProcessState)
	}

	// 4. Changes right after the API returns, and the owed work.
	driftBefore := p.mustMetric("cnpa_drift_corrections_total")
	e.patchSpec("outage-spec", map[string]any{"cpu": "2"})
	e.create("outage-new", 4, "250m")
	took := e.waitAll(back, 2*time.Minute, map[string]func() error{
		"new TeamSpace":         e.converged("outage-new", 4, "250m"),
		"spec (owed and fresh)": e.converged("outage-spec", 5, "2"),
		"quota deleted (owed)":  e.converged("outage-quota", 2, "500m"),
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
	if !strings.Contains(p.log(), "API server is back") {
		t.Errorf("controller log has no \"API server is back\" line: the informers did not wait out the outage\n%s", tail(p.log(), 30))
	}
	t.Logf("drift corrections counted from the API's return to convergence: %.0f (1 is the deleted quota; more are re-applies from a stale cache)",
		p.mustMetric("cnpa_drift_corrections_total")-driftBefore)
	if q, err := e.quota("outage-quota"); err != nil {
		t.Errorf("restored quota: %v", err)
	} else if q.UID == oldQuotaUID {
		t.Errorf("restored quota uid: got %s, the deleted one's; want a new object", q.UID)
	}
	if !p.alive() {
		t.Fatalf("controller exited: %v", p.cmd.ProcessState)
	}
	e.removeAll("outage-spec", "outage-quota", "outage-new")
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

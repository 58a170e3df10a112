package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/controller"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// TestPeriodicPassCatchesMissedEvents: the running Go controller stops
// hearing quota events (controller.Config.Deaf: the quota informer keeps
// its cache in step with the API server, but no event reaches the
// workqueue, as when an event is lost on the way). A hand edit of the
// quota and then its deletion are undone anyway, by the periodic pass: no
// TeamSpace or namespace changes meanwhile, so nothing else queues this
// TeamSpace. The pass now runs only while the event path is idle and
// spreads itself out (internal/controller/resync.go); this is the proof
// that it still runs, at the lab's 3 s. (With Interval set to an hour the
// same test fails at the first wait, quota pods still 99: the pass is
// what reverts it.)
func TestPeriodicPassCatchesMissedEvents(t *testing.T) {
	e := kit.New(t, cluster.Shared(t))
	var deaf atomic.Bool
	logs := &kit.TailBuffer{Max: 16 << 10}
	e.Diag = func() string { return "controller log:\n" + logs.String() }
	c, err := controller.New(e.Rest, controller.Config{ArchiveDir: t.TempDir(), Interval: goInterval, Logger: quietLogger(logs),
		Deaf: func(resource string) bool { return resource == "resourcequotas" && deaf.Load() }})
	if err != nil {
		t.Fatalf("controller.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	// Registered after kit's removal of the TeamSpaces, so it runs before.
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("controller Run: %v", err)
		}
	})
	select {
	case <-c.Ready():
	case err := <-done:
		t.Fatalf("controller stopped before its caches synced: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatalf("caches not synced after 30s; log:\n%s", logs)
	}

	name := "resync-deaf-quota"
	e.Create(name, 4, "1")
	e.WaitFor("created", 30*time.Second, e.Converged(name, 4, "1", false))

	// In a steady state the pass looks at every TeamSpace and hands none
	// to the workers: each one's last sync found it in order, from the
	// very objects still cached (internal/controller/inorder.go). The
	// rest of the test is the proof that it still sees what changed.
	metrics := fmt.Sprintf("127.0.0.1:%d", kit.FreePorts(t, 1)[0])
	go c.ServeMetrics(ctx, metrics)
	metric := func(name string) (float64, error) {
		code, body := kit.HTTPGet("http://" + metrics + "/metrics")
		if code != http.StatusOK {
			return 0, fmt.Errorf("GET %s/metrics: %d %s", metrics, code, body)
		}
		return kit.SumMetric(body, name, ""), nil
	}
	passes := -1.0
	e.WaitFor("a whole pass that hands no TeamSpace over", 30*time.Second, func() error {
		n, err := metric("cnpa_resync_passes_total")
		if err != nil {
			return err
		}
		if passes < 0 || n < passes+2 {
			// The first pass to end may have begun before the sync that
			// found this TeamSpace in order; wait for two more.
			if passes < 0 {
				passes = n
			}
			return fmt.Errorf("%v passes ended, waiting for %v", n, passes+2)
		}
		synced, err := metric("cnpa_resync_pass_synced")
		if err != nil {
			return err
		}
		if synced != 0 {
			passes = n
			return fmt.Errorf("the last pass handed %v TeamSpaces over, all in order", synced)
		}
		return nil
	})
	deaf.Store(true)
	ns := teamspace.NamespaceName(name)
	quotas := e.Kube.CoreV1().ResourceQuotas(ns)

	if _, err := quotas.Patch(e.Ctx, teamspace.QuotaName, types.MergePatchType,
		[]byte(`{"spec":{"hard":{"pods":"99"}}}`), metav1.PatchOptions{FieldManager: "kubectl-patch"}); err != nil {
		t.Fatalf("edit quota: %v", err)
	}
	took := e.WaitFor("hand edit reverted with quota events lost", 30*time.Second, func() error {
		q := e.Quota(ns)
		if q == nil {
			return errors.New("quota missing")
		}
		if got, want := q.Spec.Hard.Pods().String(), "4"; got != want {
			return fmt.Errorf("quota pods: got %v, want %v", got, want)
		}
		return nil
	})
	t.Logf("edit reverted by the periodic pass after %s (interval %s)", took.Round(time.Millisecond), goInterval)

	old := e.Quota(ns)
	if err := quotas.Delete(e.Ctx, teamspace.QuotaName, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete quota: %v", err)
	}
	took = e.WaitFor("deleted quota restored with quota events lost", 30*time.Second, func() error {
		q := e.Quota(ns)
		if q == nil || q.UID == old.UID {
			return errors.New("no new quota yet")
		}
		return e.Converged(name, 4, "1", false)()
	})
	t.Logf("deleted quota restored by the periodic pass after %s", took.Round(time.Millisecond))
}

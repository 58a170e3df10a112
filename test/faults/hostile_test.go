package faults

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/ui"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

const (
	hostilePeriod   = 100 * time.Millisecond
	hostileDuration = 10 * time.Second
)

// TestHostileWriter patches team-quota every 100 ms for 10 s: pods to 99,
// an extra limit (requests.memory) and a label of its own; and team-<name>:
// our owner label to another value, a label and an annotation of its own.
// What the lab owns (teamspace.FindGaps: the quota's hard list, exactly
// pods and requests.cpu; the owner label) is reverted every time; what is
// not ours (the writer's own labels and annotation) is left alone. The
// controller stays up without errors and writes in proportion to the
// hostile writes (no loop of its own). Writes are counted three ways: the
// hostile writer's own count, the controller's
// cnpa_drift_corrections_total, and a watch on the quota that sees every
// transition of pods and of the extra limit.
func TestHostileWriter(t *testing.T) {
	e := kit.New(t, cluster.Shared(t))
	const name = "hostile"
	ns := teamspace.NamespaceName(name)
	p := e.StartController("hostile", kit.CtrlOpts{ArchiveDir: t.TempDir()})
	e.Create(name, 4, "1")
	e.WaitFor(name+" converged", time.Minute, e.Converged(name, 4, "1", true))
	q, err := e.GetQuota(teamspace.NamespaceName(name))
	if err != nil {
		t.Fatal(err)
	}
	driftBefore := p.MustMetric("cnpa_drift_corrections_total")
	reconcilesBefore := p.MustMetric("cnpa_reconcile_total")

	// Every transition of spec.hard.pods, from a watch that starts before
	// the first hostile write.
	w, err := e.Kube.CoreV1().ResourceQuotas(ns).Watch(e.Ctx, metav1.ListOptions{
		FieldSelector: "metadata.name=" + teamspace.QuotaName, ResourceVersion: q.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var mu sync.Mutex
	var toHostile, reverted, memoryAdded, memoryRemoved int
	last, lastMemory := "4", false
	go func() {
		for ev := range w.ResultChan() {
			rq, ok := ev.Object.(*corev1.ResourceQuota)
			if !ok || ev.Type != watch.Modified {
				continue
			}
			pods := rq.Spec.Hard[corev1.ResourcePods]
			_, memory := rq.Spec.Hard[corev1.ResourceRequestsMemory]
			mu.Lock()
			switch now := pods.String(); {
			case now == last:
			case now == "99":
				toHostile++
			case last == "99" && now == "4":
				reverted++
			}
			switch {
			case memory && !lastMemory:
				memoryAdded++
			case !memory && lastMemory:
				memoryRemoved++
			}
			last, lastMemory = pods.String(), memory
			mu.Unlock()
		}
	}()

	// The hostile writer: its own field manager, plain merge patches, the
	// quota and the namespace in turn.
	quotaPatch := []byte(`{"metadata":{"labels":{"hostile":"yes"}},"spec":{"hard":{"pods":"99","requests.memory":"1Gi"}}}`)
	nsPatch := []byte(`{"metadata":{"labels":{"hostile":"yes","` + teamspace.OwnerLabel + `":"someone-else"},"annotations":{"hostile":"yes"}}}`)
	var ticks, writes, writeErrors int
	ctx, cancel := context.WithTimeout(e.Ctx, hostileDuration)
	tick := time.NewTicker(hostilePeriod)
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case <-tick.C:
			var err error
			ticks++
			if ticks%2 == 1 {
				_, err = e.Kube.CoreV1().ResourceQuotas(ns).Patch(ctx, teamspace.QuotaName, types.MergePatchType,
					quotaPatch, metav1.PatchOptions{FieldManager: "hostile"})
			} else {
				_, err = e.Kube.CoreV1().Namespaces().Patch(ctx, ns, types.MergePatchType,
					nsPatch, metav1.PatchOptions{FieldManager: "hostile"})
			}
			if err != nil {
				if ctx.Err() == nil {
					writeErrors++
				}
				continue
			}
			writes++
		}
	}
	tick.Stop()
	cancel()
	if !p.Alive() {
		t.Fatalf("controller died under the hostile writer: %v\n%s", p.Cmd.ProcessState, ui.Tail(p.Log(), 30))
	}

	// Once the writer stops, the quota goes back to spec.pods …
	back := e.WaitFor("quota back to spec.pods after the writer stopped", time.Minute, e.Converged(name, 4, "1", true))
	// … and stays there: two full resyncs with nothing moving it.
	hold := time.Now()
	for time.Since(hold) < 2*kit.Resync+time.Second {
		if err := e.Converged(name, 4, "1", true)(); err != nil {
			t.Fatalf("quota did not hold after the writer stopped: %v", err)
		}
		select {
		case <-p.Done:
			t.Fatalf("controller exited: %v", p.Cmd.ProcessState)
		case <-time.After(200 * time.Millisecond):
		}
	}
	corrections := p.MustMetric("cnpa_drift_corrections_total") - driftBefore
	reconciles := p.MustMetric("cnpa_reconcile_total") - reconcilesBefore
	reconcileErrors := p.MustMetricWhere("cnpa_reconcile_total", `result="error"`)
	slogErrs, klogErrs, _ := logErrors(p.Log())
	mu.Lock()
	seen99, seenReverts, seenMemory, seenMemoryGone := toHostile, reverted, memoryAdded, memoryRemoved
	mu.Unlock()
	// What is ours is back; what is the writer's own stays.
	q, err = e.GetQuota(ns)
	if err != nil {
		t.Fatal(err)
	}
	if extra := teamspace.ExtraHard(q.Spec.Hard); len(extra) > 0 {
		t.Errorf("quota spec.hard after the writer stopped: extra %v, want only pods and requests.cpu", extra)
	}
	if got := q.Labels["hostile"]; got != "yes" {
		t.Errorf("quota label hostile: got %q, want the writer's \"yes\" kept (not ours)", got)
	}
	nsNow := e.Namespace(ns)
	if got := nsNow.Labels[teamspace.OwnerLabel]; got != name {
		t.Errorf("namespace label %s: got %q, want %q restored", teamspace.OwnerLabel, got, name)
	}
	if nsNow.Labels["hostile"] != "yes" || nsNow.Annotations["hostile"] != "yes" {
		t.Errorf("namespace: label hostile %q, annotation hostile %q, want both \"yes\" kept (not ours)", nsNow.Labels["hostile"], nsNow.Annotations["hostile"])
	}
	t.Logf("hostile writer: %d patches in %s (%d failed); watch saw %d changes to 99 and %d reverts to 4, requests.memory added %d times and removed %d; controller: %.0f drift corrections (quota writes), %.0f reconciles, %.0f reconcile errors, %d error log lines; quota back %s after the writer stopped",
		writes, hostileDuration, writeErrors, seen99, seenReverts, seenMemory, seenMemoryGone, corrections, reconciles, reconcileErrors, slogErrs+klogErrs, back.Round(time.Millisecond))

	if corrections < 1 {
		t.Errorf("drift corrections: got %.0f, want at least 1", corrections)
	}
	// Writes in proportion to the hostile writes, no loop of its own. A
	// revert can be applied twice: an event for the hostile value that
	// arrives (the quota controller's status update) after the revert went
	// out but before the informer saw it re-queues the name, and the stale
	// cache still shows 99. The server takes that second apply as a no-op.
	if limit := 2*float64(writes) + 2; corrections > limit {
		t.Errorf("controller quota writes: got %.0f for %d hostile writes, want at most %.0f", corrections, writes, limit)
	}
	// Every time the quota went to 99, it came back: the watch sees each
	// transition, however the controller's timing compares to the writer's.
	if seenReverts != seen99 || seen99 == 0 {
		t.Errorf("quota transitions: got %d to 99 and %d back to 4, want as many back as away (and some)", seen99, seenReverts)
	}
	if seenMemoryGone != seenMemory || seenMemory == 0 {
		t.Errorf("quota requests.memory: got added %d times and removed %d, want as many removals as additions (and some)", seenMemory, seenMemoryGone)
	}
	if reconcileErrors > 0 || slogErrs+klogErrs > 0 {
		t.Errorf("controller errors under the hostile writer: got %.0f reconcile errors, %d error lines, want 0", reconcileErrors, slogErrs+klogErrs)
	}
	e.RemoveAll(name)
}

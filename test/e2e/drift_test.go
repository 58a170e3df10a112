package e2e

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/labhub/cnpa/internal/teamspace"
)

// testQuotaDeleted: a deleted quota comes back as a new object; the time
// from the delete to the new uid (seen through a watch) is logged.
func testQuotaDeleted(t *testing.T, s *scn) {
	name := s.name("a")
	s.createConverged(name, 4, "1")
	ns := teamspace.NamespaceName(name)
	old := s.Quota(ns)

	ctx, cancel := context.WithTimeout(s.Ctx, 2*time.Minute)
	defer cancel()
	w, err := s.Kube.CoreV1().ResourceQuotas(ns).Watch(ctx, metav1.ListOptions{
		FieldSelector:   fields.OneTermEqualSelector("metadata.name", teamspace.QuotaName).String(),
		ResourceVersion: old.ResourceVersion,
	})
	if err != nil {
		t.Fatalf("watch quota: %v", err)
	}
	defer w.Stop()
	restored := make(chan types.UID, 1)
	go func() {
		for ev := range w.ResultChan() {
			if q, ok := ev.Object.(*corev1.ResourceQuota); ok && ev.Type != watch.Deleted && q.UID != old.UID {
				restored <- q.UID
				return
			}
		}
		close(restored)
	}()

	start := time.Now()
	if err := s.Kube.CoreV1().ResourceQuotas(ns).Delete(s.Ctx, teamspace.QuotaName, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete quota: %v", err)
	}
	s.pass()
	var newUID types.UID
	select {
	case uid, ok := <-restored:
		if !ok {
			t.Fatalf("watch ended before the quota came back (%v)", ctx.Err())
		}
		newUID = uid
	case <-ctx.Done():
		t.Fatalf("quota not restored within 2m; engine: %s", s.eng.diag())
	}
	elapsed := time.Since(start)
	s.env.timings.add(s.ek.name, elapsed)
	t.Logf("quota delete → new uid %s seen: %d ms (%s)", newUID, elapsed.Milliseconds(), s.ek.name)
	if newUID == old.UID {
		t.Errorf("restored quota uid: got %v, want a new one", newUID)
	}
	s.converge("restored quota", s.converged(name, 4, "1"))
}

// testQuotaEdited: a hand edit of hard.pods (merge patch by kubectl-patch)
// is reverted to spec.pods.
func testQuotaEdited(t *testing.T, s *scn) {
	name := s.name("a")
	s.createConverged(name, 5, "1")
	ns := teamspace.NamespaceName(name)
	edited, err := s.Kube.CoreV1().ResourceQuotas(ns).Patch(s.Ctx, teamspace.QuotaName, types.MergePatchType,
		[]byte(`{"spec":{"hard":{"pods":"99"}}}`), metav1.PatchOptions{FieldManager: "kubectl-patch"})
	if err != nil {
		t.Fatalf("edit quota: %v", err)
	}
	if got, want := edited.Spec.Hard.Pods().String(), "99"; got != want {
		t.Fatalf("quota pods after the edit: got %v, want %v", got, want)
	}
	s.converge("edit reverted", func() error {
		q := s.Quota(ns)
		if q == nil {
			return errors.New("quota missing")
		}
		if got, want := q.Spec.Hard.Pods().String(), "5"; got != want {
			return fmt.Errorf("quota pods: got %v, want %v", got, want)
		}
		return nil
	})
}

// testQuotaExtraLimit: a limit added by hand (requests.memory, by the
// field manager kubectl-patch) is drift too: the quota goes back to
// exactly pods and requests.cpu, which a server-side apply alone could not
// do, since the added field is not the engine's.
func testQuotaExtraLimit(t *testing.T, s *scn) {
	name := s.name("a")
	s.createConverged(name, 3, "1")
	ns := teamspace.NamespaceName(name)
	edited, err := s.Kube.CoreV1().ResourceQuotas(ns).Patch(s.Ctx, teamspace.QuotaName, types.MergePatchType,
		[]byte(`{"spec":{"hard":{"requests.memory":"1Gi"}}}`), metav1.PatchOptions{FieldManager: "kubectl-patch"})
	if err != nil {
		t.Fatalf("add a limit to the quota: %v", err)
	}
	if _, ok := edited.Spec.Hard["requests.memory"]; !ok {
		t.Fatalf("quota after the edit: got %v, want requests.memory among its limits", edited.Spec.Hard)
	}
	s.converge("extra limit removed", func() error {
		q := s.Quota(ns)
		if q == nil {
			return errors.New("quota missing")
		}
		cpu := q.Spec.Hard[corev1.ResourceRequestsCPU]
		if len(q.Spec.Hard) != 2 || q.Spec.Hard.Pods().String() != "3" || cpu.String() != "1" {
			return fmt.Errorf("quota hard: got %v, want exactly pods=3 requests.cpu=1", q.Spec.Hard)
		}
		return nil
	})
}

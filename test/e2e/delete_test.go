package e2e

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/controller"
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/test/kit"
)

// testDelete: deleting a TeamSpace that also carries a foreign finalizer
// archives it and removes only ours; once the foreign one goes too, the
// TeamSpace goes and the garbage collector removes its namespace.
func testDelete(t *testing.T, s *scn) {
	name := s.name("a")
	ts := s.createConverged(name, 2, "500m", foreignFinalizer)
	if got, want := s.TeamSpace(name).Finalizers, []string{foreignFinalizer, teamspace.Finalizer}; !slices.Equal(got, want) {
		t.Fatalf("finalizers: got %v, want %v", got, want)
	}
	s.Delete(name)
	s.converge("our finalizer removed", func() error {
		live := s.TeamSpace(name)
		if live == nil {
			return errors.New("teamspace is gone, want it held by the foreign finalizer")
		}
		if live.DeletionTimestamp == nil {
			return errors.New("no deletionTimestamp")
		}
		if got, want := live.Finalizers, []string{foreignFinalizer}; !slices.Equal(got, want) {
			return fmt.Errorf("finalizers: got %v, want %v", got, want)
		}
		return nil
	})
	rec, err := evidence.ReadArchive(s.archiveDir, name)
	if err != nil || rec == nil {
		t.Fatalf("archive %s/%s.json: got %v (err %v), want a record", s.archiveDir, name, rec, err)
	}
	if want := (evidence.ArchiveRecord{Name: name, UID: string(ts.GetUID()), Pods: 2}); *rec != want {
		t.Errorf("archive record: got %+v, want %+v", *rec, want)
	}

	if _, err := s.Dyn.Resource(teamspace.GVR).Patch(s.Ctx, name, types.MergePatchType,
		[]byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatalf("remove the foreign finalizer: %v", err)
	}
	s.WaitFor("teamspace gone", 30*time.Second, s.Gone(name))
	s.WaitFor("namespace garbage-collected", 60*time.Second, s.NamespaceGone(teamspace.NamespaceName(name)))
}

// testUnwritableArchive: when the archive record cannot be written the
// finalizer stays and deletion stays blocked; once the directory can be
// created the TeamSpace goes and the record is there.
func testUnwritableArchive(t *testing.T, s *scn) {
	blocker := filepath.Dir(s.archiveDir)
	if err := os.WriteFile(blocker, []byte("a regular file where a directory should be\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	name, ok := s.name("a"), s.name("ok")
	ts := s.createConverged(name, 3, "1")
	s.Delete(name)
	s.Create(ok, 2, "1")
	s.converge("healthy converged and archive failure warned", kit.AllOf(
		s.converged(ok, 2, "1"),
		s.warned(ts.GetUID(), controller.ReasonArchiveFailed, "archive")))
	s.expectFailed(name, ok)
	s.idle()
	live := s.TeamSpace(name)
	if live == nil {
		t.Fatalf("teamspace %s: gone, want it held by the finalizer while the archive cannot be written", name)
	}
	if !teamspace.HasFinalizer(live.Finalizers, teamspace.Finalizer) {
		t.Errorf("finalizers after failed archiving: got %v, want %s kept", live.Finalizers, teamspace.Finalizer)
	}

	// Fix it: the parent becomes a directory again.
	if err := os.Remove(blocker); err != nil {
		t.Fatal(err)
	}
	s.converge("released after the fix", s.Gone(name))
	rec, err := evidence.ReadArchive(s.archiveDir, name)
	if err != nil || rec == nil || rec.UID != string(ts.GetUID()) {
		t.Errorf("archive record: got %+v (err %v), want uid %s", rec, err, ts.GetUID())
	}
}

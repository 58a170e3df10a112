package check

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/teamspace"
)

// TestCleanupOutlastsASlowController: a controller that did not release a
// probe within grace still holds it in its cache, being deleted, after the
// grader dropped its finalizers; it writes the probe's archive record
// again after cleanup removed the first one (make test saw one such record
// left, 2026-12-05). cleanup removes it once more after settling.
//
// A fake cluster: the narrow path is the order of cleanup's removals
// against one late write, which no real controller can be made to hit.
func TestCleanupOutlastsASlowController(t *testing.T) {
	const name = TempPrefix + "1a2b3c-witness"
	dir := t.TempDir()
	archiveDir := filepath.Join(dir, evidence.ArchiveDir)
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{
		teamspace.GVR: "TeamSpaceList",
	})
	record := filepath.Join(archiveDir, name+".json")
	write := func() {
		if err := evidence.WriteArchive(archiveDir, evidence.ArchiveRecord{Name: name, UID: "u", Pods: 1}); err != nil {
			t.Error(err)
		}
	}
	// The fake tracker deletes at once; the API server waits for the
	// finalizers: Delete only marks the object, and the grader's patch
	// that drops its finalizers removes it.
	deleting := false
	dyn.PrependReactor("delete", "teamspaces", func(clienttesting.Action) (bool, runtime.Object, error) {
		deleting = true
		write()
		return true, nil, nil
	})
	dyn.PrependReactor("patch", "teamspaces", func(a clienttesting.Action) (bool, runtime.Object, error) {
		if !deleting || !strings.Contains(string(a.(clienttesting.PatchAction).GetPatch()), `"finalizers":null`) {
			return false, nil, nil
		}
		return true, nil, dyn.Tracker().Delete(teamspace.GVR, "", name)
	})
	env := &labenv.Env{Dir: dir, Target: &kube.Target{}, Clients: &kube.Clients{Dynamic: dyn}}
	tmp := &temps{env: env, grace: 50 * time.Millisecond, settle: time.Second}
	ctx := context.Background()
	if _, err := tmp.createNamed(ctx, name, 1, "", []string{teamspace.Finalizer}); err != nil {
		t.Fatal(err)
	}
	// The slow controller: it archived the probe when it saw it deleted
	// but did not get to release it (the delete reactor below); once the
	// grader released it and cleanup removed the record, it writes the
	// record again from the cache that still holds the object.
	late := make(chan bool)
	go func() {
		deadline := time.Now().Add(10 * time.Second)
		for time.Now().Before(deadline) {
			_, err := dyn.Resource(teamspace.GVR).Get(ctx, name, metav1.GetOptions{})
			if _, statErr := os.Stat(record); err != nil && errors.Is(statErr, os.ErrNotExist) {
				write()
				late <- true
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
		late <- false
	}()
	if err := tmp.cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	if !<-late {
		t.Fatal("the slow controller never wrote its late record: the test did not run the race")
	}
	if _, err := os.Stat(record); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left behind after cleanup (stat: %v)", record, err)
	}
	if len(tmp.forced) != 1 || tmp.forced[0] != name {
		t.Errorf("forced = %v, want [%s]", tmp.forced, name)
	}
}

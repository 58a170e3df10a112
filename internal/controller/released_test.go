package controller

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/tools/record"

	"github.com/labhub/cnpa/internal/teamspace"
)

// TestNoRecordAfterRelease: the informer still holds a TeamSpace this
// controller archived and released, being deleted, longer than any memo
// in written lives (a loaded machine's watch lag), and the periodic pass
// syncs it again. Its record, removed meanwhile by whoever deleted it (cnpa
// check cleans up its probes so), must not come back.
//
// A fake cluster: this is the order of one controller's own steps over a
// stale cache, which a real control plane cannot be made to lag for.
func TestNoRecordAfterRelease(t *testing.T) {
	const name = "cnpa-check-1a2b3c-witness"
	deleting := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": teamspace.APIVersion, "kind": teamspace.Kind,
		"metadata": map[string]any{"name": name, "uid": "0b0b0b0b-0000-4000-8000-000000000001",
			"resourceVersion": "7", "finalizers": []any{teamspace.Finalizer},
			"deletionTimestamp": metav1.Now().UTC().Format(time.RFC3339)},
		"spec": map[string]any{"pods": int64(1)},
	}}
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
		map[schema.GroupVersionResource]string{teamspace.GVR: "TeamSpaceList"}, deleting.DeepCopy())
	archiveDir := t.TempDir()
	c := &Controller{
		cfg: Config{ArchiveDir: archiveDir}, dyn: dyn, log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		recorder: record.NewFakeRecorder(10), metrics: newMetrics(),
		written: newWritten(), released: newReleased(),
	}
	finalizeFromCache := func() {
		t.Helper()
		u := deleting.DeepCopy() // the cache's copy never changes here
		ts, _, problem := teamspace.Finalizable(u)
		if problem != nil {
			t.Fatal(problem)
		}
		if err := c.finalize(context.Background(), u, ts); err != nil {
			t.Fatalf("finalize: %v", err)
		}
	}
	recordPath := filepath.Join(archiveDir, name+".json")

	finalizeFromCache()
	if _, err := os.Stat(recordPath); err != nil {
		t.Fatalf("the first pass wrote no record: %v", err)
	}
	// Whoever deleted it saw it gone and removed the record; the periodic
	// pass comes.
	if err := os.Remove(recordPath); err != nil {
		t.Fatal(err)
	}
	finalizeFromCache()
	if _, err := os.Stat(recordPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a pass over the stale cache wrote %s again (stat: %v)", recordPath, err)
	}
}

// TestReleasedForgetsOldEntries: entries older than releasedTTL are not
// held, and go once the set is large.
func TestReleasedForgetsOldEntries(t *testing.T) {
	r := newReleased()
	r.add("new")
	r.at["old"] = time.Now().Add(-2 * releasedTTL)
	if !r.has("new") || r.has("old") || r.has("never") {
		t.Errorf("has: new %v, old %v, never %v; want true, false, false", r.has("new"), r.has("old"), r.has("never"))
	}
	for i := range 1024 {
		r.at[types.UID(fmt.Sprint(i))] = time.Now()
	}
	r.add("newest")
	if _, kept := r.at["old"]; kept {
		t.Error("an entry older than releasedTTL stayed once the set was full")
	}
	var nilSet *released
	nilSet.add("x")
	if nilSet.has("x") {
		t.Error("a nil set (Once) holds entries")
	}
}

package teamspace_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/labhub/cnpa/internal/teamspace"
)

// TestFinalizable: what a weak schema lets into spec still leaves the
// name, uid, finalizers and, when it is a whole number, pods.
func TestFinalizable(t *testing.T) {
	for _, tt := range []struct {
		name        string
		spec        map[string]any
		pods        int64
		known, fail bool
	}{
		{"decodes", map[string]any{"pods": int64(4), "cpu": "1"}, 4, true, false},
		{"pods a word", map[string]any{"pods": "ten"}, 0, false, true},
		{"pods digits in a string", map[string]any{"pods": "3"}, 3, true, true},
		{"pods a fraction", map[string]any{"pods": 2.5}, 0, false, true},
		{"pods a whole float", map[string]any{"pods": 3.0}, 3, true, false},
		{"pods padded", map[string]any{"pods": " 3"}, 0, false, true},
		{"cpu a number", map[string]any{"pods": int64(3), "cpu": int64(5)}, 3, true, true},
		{"no pods", map[string]any{"cpu": int64(5)}, 0, false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": teamspace.APIVersion, "kind": teamspace.Kind,
				"metadata": map[string]any{"name": "x", "uid": "u-1", "resourceVersion": "7",
					"finalizers": []any{teamspace.Finalizer, "example.com/keep"}},
				"spec": tt.spec}}
			ts, known, problem := teamspace.Finalizable(u)
			if ts.Name != "x" || ts.UID != "u-1" || ts.ResourceVersion != "7" || len(ts.Finalizers) != 2 {
				t.Errorf("metadata: got %s %s rv %s finalizers %v, want x u-1 7 and both finalizers", ts.Name, ts.UID, ts.ResourceVersion, ts.Finalizers)
			}
			if ts.Spec.Pods != tt.pods || known != tt.known || (problem != nil) != tt.fail {
				t.Errorf("got pods %d known %v problem %v, want %d %v failing=%v", ts.Spec.Pods, known, problem, tt.pods, tt.known, tt.fail)
			}
		})
	}
}

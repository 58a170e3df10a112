package steps

import (
	"testing"

	"github.com/labhub/cnpa/internal/lab"
)

// TestRegistry: the runners are the lab's steps, in its order.
func TestRegistry(t *testing.T) {
	if len(All) != len(lab.Steps) {
		t.Fatalf("%d runners, %d steps", len(All), len(lab.Steps))
	}
	for i, s := range All {
		if s.Step != lab.Steps[i] || s.Run == nil {
			t.Errorf("All[%d]: got step %d (run %t), want step %d", i, s.Number, s.Run != nil, lab.Steps[i].Number)
		}
	}
}

package lab

import (
	"testing"

	"github.com/labhub/cnpa/internal/evidence"
)

// TestSteps: the list is in lab order, each file is written by one step,
// every evidence file has its step, and Get and StepOf find them.
func TestSteps(t *testing.T) {
	files := 0
	for i, s := range Steps {
		if s.Number != i+1 {
			t.Errorf("Steps[%d].Number: got %d, want %d", i, s.Number, i+1)
		}
		if s.Title == "" || s.Teaches == "" {
			t.Errorf("step %d: title %q, teaches %q: want both", s.Number, s.Title, s.Teaches)
		}
		if got, err := Get(s.Number); err != nil || got != s {
			t.Errorf("Get(%d): got %v, %v, want step %d", s.Number, got, err, s.Number)
		}
		if s.File != "" {
			files++
			if got := StepOf(s.File); got != s {
				t.Errorf("StepOf(%s): got %v, want step %d", s.File, got, s.Number)
			}
		}
	}
	if files != len(evidence.Files) {
		t.Errorf("%d steps write a file, evidence.Files has %d", files, len(evidence.Files))
	}
	for _, f := range evidence.Files {
		if StepOf(f) == nil {
			t.Errorf("StepOf(%s): got nil, want the step that writes it", f)
		}
	}
	if StepOf(evidence.ArchiveFile) != nil || StepOf("") != nil {
		t.Errorf("StepOf: a file no step writes must give nil")
	}
	for _, n := range []int{0, len(Steps) + 1} {
		if _, err := Get(n); err == nil {
			t.Errorf("Get(%d): got no error, want one naming the range", n)
		}
	}
}

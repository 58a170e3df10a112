package course_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/lab"
)

// TestSteps: the list is in lab order, each file is written by one step,
// every evidence file has its step, and Get and StepOf find them.
func TestSteps(t *testing.T) {
	files := 0
	for i, s := range steps {
		if s.Number != i+1 {
			t.Errorf("Steps[%d].Number: got %d, want %d", i, s.Number, i+1)
		}
		if strings.HasPrefix(s.Heading(), "step") || strings.HasPrefix(s.Teaching(), "step") {
			t.Errorf("step %d: title %q, teaches %q: want both", s.Number, s.Heading(), s.Teaching())
		}
		if got, err := steps.Get(s.Number); err != nil || got != s {
			t.Errorf("Get(%d): got %v, %v, want step %d", s.Number, got, err, s.Number)
		}
		if s.File != "" {
			files++
			if got := steps.StepOf(s.File); got != s {
				t.Errorf("StepOf(%s): got %v, want step %d", s.File, got, s.Number)
			}
		}
	}
	if files != len(steps.Files()) {
		t.Errorf("%d steps write a file, steps.Files() has %d", files, len(steps.Files()))
	}
	for _, f := range steps.Files() {
		if steps.StepOf(f) == nil {
			t.Errorf("StepOf(%s): got nil, want the step that writes it", f)
		}
	}
	if steps.StepOf(evidence.ArchiveFile) != nil || steps.StepOf("") != nil {
		t.Errorf("StepOf: a file no step writes must give nil")
	}
	for _, n := range []int{0, len(steps) + 1} {
		if _, err := steps.Get(n); err == nil {
			t.Errorf("Get(%d): got no error, want one naming the range", n)
		}
	}
}

// TestRecordsMatchShapes: each step's record, as the step writes it
// (evidence.Write), has exactly its Shape's keys and types, and reads back
// with ReadFile.
func TestRecordsMatchShapes(t *testing.T) {
	dir := t.TempDir()
	records := map[string]any{
		lab.BeforeFile:     lab.BeforeRecord{UID: "u"},
		lab.GenerationFile: lab.GenerationRecord{UID: "u", GenInitial: 1, GenAfterLabel: 1, GenAfterSpec: 2, StatusViaMain: json.RawMessage("null")},
		lab.ReconcileFile:  lab.ReconcileRecord{QuotaUID: "q", NamespaceOwnerUID: "u"},
		lab.DriftFile:      lab.DriftRecord{DeletedUID: "a", RestoredUID: "b", RestoreSeconds: 1, EditedTo: "99", RevertedTo: 6},
		lab.CleanupFile:    lab.CleanupRecord{UID: "b", BlockedSeen: true, NamespaceGone: true},
		lab.CatchupFile:    lab.CatchupRecord{Generation: 3, ObservedWhileStopped: 2, QuotaPodsWhileStopped: "6", ObservedAfterStart: 3, QuotaPodsAfterStart: "8"},
		lab.ReportFile:     lab.ReportRecord{RestoreSeconds: 1, Finalizer: "f", Archived: "b", GenerationsBehindWhileStopped: 1, Trigger: "level"},
	}
	for _, file := range steps.Files() {
		rec, ok := records[file]
		if !ok {
			t.Errorf("%s: no record in this test: add the step's record type", file)
			continue
		}
		if _, err := evidence.Write(dir, file, rec); err != nil {
			t.Fatal(err)
		}
		back := reflect.New(reflect.TypeOf(rec)).Interface()
		if problems, err := steps.ReadFile(dir, file, back); err != nil || len(problems) > 0 {
			t.Errorf("%s as written: %v %v", file, problems, err)
		}
	}
	if _, err := steps.ReadFile(dir, "notes.json", nil); err == nil {
		t.Errorf("ReadFile of a file no step writes: got no error")
	}
}

package evidence

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name, file, data string
		want             []string // substrings of problems, in order; empty = valid
	}{
		{"valid before", BeforeFile, `{"uid":"u","namespace_exists":false}`, nil},
		{"bool as string", BeforeFile, `{"uid":"u","namespace_exists":"false"}`, []string{"namespace_exists: is a string"}},
		{"extra key", BeforeFile, `{"uid":"u","namespace_exists":false,"x":1}`, []string{"x: extra key"}},
		{"missing key", BeforeFile, `{"uid":"u"}`, []string{"namespace_exists: missing"}},
		{"status null", GenerationFile, `{"uid":"u","gen_initial":1,"gen_after_label":1,"gen_after_spec":2,"status_via_main":null}`, nil},
		{"float", GenerationFile, `{"uid":"u","gen_initial":1.0,"gen_after_label":1,"gen_after_spec":2,"status_via_main":null}`, []string{"gen_initial: is a non-integer number"}},
		{"quota pods int", CatchupFile, `{"generation":3,"observed_while_stopped":2,"quota_pods_while_stopped":6,"observed_after_start":3,"quota_pods_after_start":"8"}`, []string{"quota_pods_while_stopped: is an integer"}},
		{"not json", DriftFile, `{`, []string{"not valid JSON"}},
		{"array", DriftFile, `[]`, []string{"not a JSON object"}},
		{"duplicate", CleanupFile, `{"uid":"a","uid":"b","blocked_seen":true,"namespace_gone":true}`, []string{"uid: appears more than once"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Validate(tt.file, []byte(tt.data))
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %d problems %v", got, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(got[i].String(), w) {
					t.Errorf("problem %d: got %q, want it to contain %q", i, got[i], w)
				}
			}
		})
	}
}

func TestWriteKeepsShapes(t *testing.T) {
	dir := t.TempDir()
	records := map[string]any{
		BeforeFile:     Before{UID: "u"},
		GenerationFile: Generation{UID: "u", GenInitial: 1, GenAfterLabel: 1, GenAfterSpec: 2, StatusViaMain: json.RawMessage("null")},
		ReconcileFile:  Reconcile{QuotaUID: "q", NamespaceOwnerUID: "u"},
		DriftFile:      Drift{DeletedUID: "a", RestoredUID: "b", RestoreSeconds: 1, EditedTo: "99", RevertedTo: 6},
		CleanupFile:    Cleanup{UID: "b", BlockedSeen: true, NamespaceGone: true},
		CatchupFile:    Catchup{Generation: 3, ObservedWhileStopped: 2, QuotaPodsWhileStopped: "6", ObservedAfterStart: 3, QuotaPodsAfterStart: "8"},
		ReportFile:     Report{RestoreSeconds: 1, Finalizer: "f", Archived: "b", GenerationsBehindWhileStopped: 1, Trigger: "level"},
	}
	for _, name := range Files {
		path, err := Write(dir, name, records[name])
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		if p := Validate(name, data); len(p) > 0 {
			t.Errorf("%s as written: %v", name, p)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*"))
	if len(left) > 0 {
		t.Errorf("temp files left behind: %v", left)
	}
}

func FuzzValidate(f *testing.F) {
	for _, seed := range []string{`{"uid":"u","namespace_exists":false}`, `{"a":[1,{"b":null}]}`, `"x"`, `{"uid":1e400}`, ``, `{"uid":"\ud800"}`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data string) {
		for _, name := range Files {
			Validate(name, []byte(data))
		}
	})
}

func TestArchiveRecord(t *testing.T) {
	dir := t.TempDir()
	want := ArchiveRecord{Name: "beta", UID: "u-1", Pods: 2}
	if err := WriteArchive(dir, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadArchive(dir, "beta")
	if err != nil || got == nil || *got != want {
		t.Fatalf("read back: got %+v (err %v), want %+v", got, err, want)
	}
	if got, err := ReadArchive(dir, "absent"); got != nil || err != nil {
		t.Errorf("missing record: got %+v (err %v), want nil, nil", got, err)
	}

	tests := []struct {
		name, data string
		want       []string // substrings of the error, in order
	}{
		{"pods as string", `{"name":"x","uid":"u","pods":"2"}`, []string{"pods: is a string"}},
		{"extra key", `{"name":"x","uid":"u","pods":2,"cpu":"1"}`, []string{"cpu: extra key"}},
		{"missing uid and pods", `{"name":"x"}`, []string{"uid: missing", "pods: missing"}},
		{"not an object", `[1]`, []string{"not a JSON object"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(dir, "x.json"), []byte(tt.data), 0o644); err != nil {
				t.Fatal(err)
			}
			rec, err := ReadArchive(dir, "x")
			var shape *ArchiveError
			if rec != nil || !errors.As(err, &shape) {
				t.Fatalf("got %+v (err %v), want an *ArchiveError", rec, err)
			}
			if len(shape.Problems) != len(tt.want) {
				t.Fatalf("got %v, want %d problems %v", shape.Problems, len(tt.want), tt.want)
			}
			for i, w := range tt.want {
				if !strings.Contains(shape.Problems[i].String(), w) {
					t.Errorf("problem %d: got %q, want it to contain %q", i, shape.Problems[i], w)
				}
			}
		})
	}
}

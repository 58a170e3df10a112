package labfile

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// A submission's evidence graded offline against the facts its run
// recorded: the same file passes with facts that say the Deployment was
// refused and fails, by its mistake, with facts that say it was admitted;
// a fact not recorded leaves its checks not checked, never passed.
func TestOfflineGrade(t *testing.T) {
	l := vap(t)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "refuse.json"), []byte(`{"refused": true, "message": "replicas must be at most 5"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	facts := func(admitted string) []byte {
		return []byte(`{"refuse": {"too_many": {"admitted": ` + admitted + `, "message": "denied: replicas must be at most 5"},
			"policy": {"found": true, "object": {"spec": {"failurePolicy": "Fail"}}}}}`)
	}
	grade := func(raw []byte) *Report {
		t.Helper()
		rec, err := DecodeFacts(raw)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := OfflineEngine(l, rec).Grade(context.Background(), dir, "refuse")
		if err != nil {
			t.Fatal(err)
		}
		return rep
	}
	if rep := grade(facts("false")); !rep.OK() {
		t.Errorf("refused, as recorded: %+v, want every check of step refuse to pass", rep.Steps)
	}
	rep := grade(facts("true"))
	if r := rep.Steps[0].Checks[0]; r.Check != "refuse.refused" || r.Status != Fail || r.Mistake != "no-binding-or-warn" {
		t.Errorf("admitted, as recorded: %+v, want refuse.refused failing by no-binding-or-warn", r)
	}
	rep = grade([]byte(`{}`))
	for _, r := range rep.Steps[0].Checks {
		if r.Status != Skip || r.Reason != "labfile.reason.fact" {
			t.Errorf("no facts recorded: %+v, want not checked for the fact", r)
		}
	}
}

// A lab's hash is its files': the same files hash alike wherever they
// are, one byte changed or one file more hashes otherwise, and the
// context kubeconfig a run writes beside them does not count.
func TestHash(t *testing.T) {
	a := fstest.MapFS{"lab.yaml": {Data: []byte("x")}, "resources/a.yaml": {Data: []byte("a")}}
	h := func(fs fstest.MapFS) string {
		t.Helper()
		s, err := Hash(fs)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := h(a)
	a[".context.kubeconfig"] = &fstest.MapFile{Data: []byte("{}")}
	if h(a) != base {
		t.Error("the context kubeconfig changed the hash")
	}
	a["lab.yaml"] = &fstest.MapFile{Data: []byte("y")}
	if h(a) == base {
		t.Error("a changed byte kept the hash")
	}
	a["lab.yaml"] = &fstest.MapFile{Data: []byte("x")}
	a["resources/b.yaml"] = &fstest.MapFile{}
	if h(a) == base {
		t.Error("a file more kept the hash")
	}
	if h(shipped(t)) == base || len(h(shipped(t))) != 64 {
		t.Error("labs/vap's hash is not a SHA-256 of its own")
	}
}

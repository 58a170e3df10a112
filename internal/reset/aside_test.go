package reset

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/course"
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
)

// The learner's own evidence (never cnpa's, or changed since cnpa wrote
// it) is what reset moves aside; what cnpa wrote as it is, and files that
// are no evidence (reconcile.sh, crd.yaml), are not.
func TestOwnEvidenceAndMoveAside(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// cnpa's, unchanged: reset removes it (phase 6), not moved.
	if _, err := evidence.Write(dir, lab.DriftFile, map[string]int{"x": 1}); err != nil {
		t.Fatal(err)
	}
	// cnpa's, changed since: the learner's now.
	if _, err := evidence.Write(dir, lab.GenerationFile, map[string]int{"x": 1}); err != nil {
		t.Fatal(err)
	}
	write(lab.GenerationFile, `{"status_via_main": null}`)
	// never cnpa's.
	write(lab.BeforeFile, `{"uid":"gone","namespace_exists":false}`)
	write(lab.ReportFile, `{}`)
	write(labenv.ScriptName, "#!/bin/bash\n")
	write("crd.yaml", "kind: CustomResourceDefinition\n")

	got, err := labEvidence.own(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{lab.BeforeFile, lab.GenerationFile, lab.ReportFile}
	if !slices.Equal(got, want) {
		t.Fatalf("ownEvidence: got %v, want %v", got, want)
	}

	now := time.Date(2026, 12, 4, 14, 30, 5, 0, time.UTC)
	aside := asideDir(dir, now)
	if aside != filepath.Join(dir, "own-20261204T143005Z") {
		t.Errorf("asideDir: got %s, want <dir>/own-20261204T143005Z", aside)
	}
	var r Result
	var lines []string
	log := func(f string, a ...any) { lines = append(lines, f) }
	if err := moveOwnEvidence(labEvidence, dir, now, &r, log); err != nil {
		t.Fatal(err)
	}
	for _, f := range want {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s is still in the evidence dir", f)
		}
		if _, err := os.Stat(filepath.Join(aside, f)); err != nil {
			t.Errorf("%s not moved aside: %v", f, err)
		}
	}
	for _, f := range []string{lab.DriftFile, labenv.ScriptName, "crd.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("%s should stay where it is: %v", f, err)
		}
	}
	if r.AsideDir != aside || len(r.Aside) != 3 || len(lines) != 1 {
		t.Errorf("result: got %q %v and %d log lines, want %s, 3 files and one line", r.AsideDir, r.Aside, len(lines), aside)
	}

	// A second reset in the same second never overwrites the first's.
	write(lab.BeforeFile, `{}`)
	if _, err := moveAside(dir, aside, []string{lab.BeforeFile, lab.CleanupFile}); err == nil {
		t.Errorf("moveAside over an existing %s: no error", filepath.Join(aside, lab.BeforeFile))
	}
	if data, _ := os.ReadFile(filepath.Join(aside, lab.BeforeFile)); string(data) != `{"uid":"gone","namespace_exists":false}` {
		t.Errorf("the first reset's before.json was overwritten: %s", data)
	}
}

// Reset keeps the lab's choices, unlocked (review row 1: it put the engine
// back to go).
func TestKeepChoices(t *testing.T) {
	dir := t.TempDir()
	st := &labenv.State{Engine: labenv.EngineOwn, ServiceManager: "process", UnitDir: "/u", ServiceIdentity: "admin",
		EngineLocked: true, ServiceLocked: true, Finalizer: true, ScriptSHA256: "abc"}
	env := &labenv.Env{Dir: dir, State: st}
	// A dir without a state file made no choices: nothing is written.
	if err := keepChoices(env, func(string, ...any) {}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, labenv.StateFile)); err == nil {
		t.Fatalf("reset wrote %s into a dir that had none", labenv.StateFile)
	}
	// One that had it (read from disk, then removed by phase 6).
	if err := labenv.SaveState(dir, st); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, labenv.StateFile)); err != nil {
		t.Fatal(err)
	}
	if err := keepChoices(env, func(string, ...any) {}); err != nil {
		t.Fatal(err)
	}
	got, err := labenv.LoadState(dir)
	if err != nil || got == nil {
		t.Fatalf("state after reset: %v %v", got, err)
	}
	if got.Engine != labenv.EngineOwn || got.ServiceManager != "process" || got.UnitDir != "/u" || got.Identity() != "admin" {
		t.Errorf("choices: got %+v, want own, process, /u, admin", got)
	}
	if got.EngineLocked || got.ServiceLocked || got.Finalizer || got.ScriptSHA256 != "" {
		t.Errorf("locks: got %+v, want none", got)
	}
}

// labEvidence is the lab's evidence files, as a command hands them down.
var labEvidence = evidenceFiles(course.Steps.Lab().Files())

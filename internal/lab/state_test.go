package lab_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/lab"
)

// TestStateEmptyDir: an empty evidence dir reads as every file missing,
// each saying so in the words the steps and the page have always used,
// and report.json not computable, naming the step to run.
func TestStateEmptyDir(t *testing.T) {
	st := lab.Read(t.TempDir())
	for _, f := range lab.Files {
		r := st.Records[f]
		if !r.Missing() || r.Step != lab.StepOf(f).Number {
			t.Errorf("%s: got missing %t step %d, want missing, step %d", f, r.Missing(), r.Step, lab.StepOf(f).Number)
		}
		if _, err := r.Strict(); err == nil || err.Error() != f+" is missing" {
			t.Errorf("%s Strict: got %v, want %q", f, err, f+" is missing")
		}
		if _, why := r.Get("uid"); !strings.Contains(why, "(see step") {
			t.Errorf("%s Get: got %q, want it to name the file's own check", f, why)
		}
	}
	in := st.Inputs(nil)
	if in.ArchiveProblem != "archive/beta.json is missing" {
		t.Errorf("ArchiveProblem: got %q, want %q", in.ArchiveProblem, "archive/beta.json is missing")
	}
	if !strings.HasPrefix(in.ReportProblem, "step 8 needs before.json: run `cnpa step 1`") {
		t.Errorf("ReportProblem: got %q, want it to say step 8 needs before.json from step 1", in.ReportProblem)
	}
}

// TestStateKeyProblems: a file with one key of the wrong type and one
// key too many keeps its other keys usable, and its strict reading names
// every problem.
func TestStateKeyProblems(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, lab.BeforeFile), []byte(`{"uid": 7, "namespace_exists": false, "extra": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	r := lab.Read(dir).Records[lab.BeforeFile]
	if v, why := r.Get("namespace_exists"); why != "" || v != false {
		t.Errorf("namespace_exists: got %v (%q), want false", v, why)
	}
	if _, why := r.Get("uid"); !strings.Contains(why, "is an integer") {
		t.Errorf("uid: got %q, want it to say it is an integer", why)
	}
	if len(r.Extra) != 1 || !strings.Contains(r.Extra[0], "extra") {
		t.Errorf("Extra: got %q, want the extra key", r.Extra)
	}
	if _, err := r.Strict(); err == nil || !strings.Contains(err.Error(), "uid") || !strings.Contains(err.Error(), "extra") {
		t.Errorf("Strict: got %v, want an error naming uid and extra", err)
	}
}

package course_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
)

// TestStateEmptyDir: an empty evidence dir reads as every file missing,
// each saying so in the words the steps and the page have always used,
// and report.json not computable, naming the step to run.
func TestStateEmptyDir(t *testing.T) {
	st := steps.Read(t.TempDir())
	for _, f := range steps.Files() {
		r := st.Records[f]
		if !r.Missing() || r.Step != steps.StepOf(f).Number {
			t.Errorf("%s: got missing %t step %d, want missing, step %d", f, r.Missing(), r.Step, steps.StepOf(f).Number)
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
	r := steps.Read(dir).Records[lab.BeforeFile]
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

// In Japanese a record's problems are said in Japanese, wherever they
// are shown (the file's check, a check skipped for it, a key's check,
// Strict's error, the archive's), and nothing that decides reads their
// words: a missing file is Missing, a key written twice is an extra
// problem of the file, not its own.
func TestStateInJapanese(t *testing.T) {
	defer i18n.Set(i18n.Current())
	i18n.Set(i18n.Japanese)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, lab.GenerationFile), []byte(`{"uid": 7, "uid": 8, "gen_initial": 1, "gen_after_label": 1, "gen_after_spec": 2, "status_via_main": null}`), 0o644); err != nil {
		t.Fatal(err)
	}
	st := steps.Read(dir)
	before := st.Records[lab.BeforeFile]
	if !before.Missing() || before.Found() != "before.json: 存在しない" || before.Unusable() != "before.json: 存在しない（step1.fileを参照）" {
		t.Errorf("missing before.json: Missing %t, Found %q, Unusable %q", before.Missing(), before.Found(), before.Unusable())
	}
	if _, err := before.Strict(); err == nil || err.Error() != "before.jsonが存在しない" {
		t.Errorf("Strict: %v", err)
	}
	gen := st.Records[lab.GenerationFile]
	if gen.Missing() || gen.Problem != "" || len(gen.Extra) != 1 || gen.Extra[0] != "uid: 2回以上書かれている" {
		t.Errorf("generation.json: Missing %t, Problem %q, Extra %q; want the twice-written uid an extra problem", gen.Missing(), gen.Problem, gen.Extra)
	}
	if got := gen.KeyFound("uid"); got != "uid: 整数の7だが、文字列であるべき" {
		t.Errorf("KeyFound: %q", got)
	}
	if _, why := gen.Get("uid"); why != "generation.jsonのuid: 整数の7だが、文字列であるべき" {
		t.Errorf("Get: %q", why)
	}
	in := st.Inputs(nil)
	if in.ArchiveProblem != "archive/beta.jsonがない" || !strings.HasPrefix(in.ReportProblem, "ステップ8にはbefore.jsonが必要です: `cnpa step 1`を実行してください") {
		t.Errorf("Inputs: ArchiveProblem %q, ReportProblem %q", in.ArchiveProblem, in.ReportProblem)
	}
	// A rule that wants the rule's own expected value says it in
	// Japanese; a verdict's own words are already Japanese.
	for _, r := range steps.For(lab.GenerationFile) {
		if r.Key != "uid" {
			continue
		}
		v := r.Apply("u", in)
		if v.Got != "TeamSpace alphaが存在しない" || v.Want != "現在のalphaのuid" {
			t.Errorf("uid without alpha: got %q, want %q", v.Got, v.Want)
		}
	}
}

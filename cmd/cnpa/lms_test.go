package main

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/labhub/cnpa/internal/gradebook"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/submission"
	"github.com/labhub/cnpa/test/kit/classfixture"
)

// lmsSchema compiles one of package gradebook's published-format schemas.
func lmsSchema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	path := filepath.Join("..", "..", "internal", "gradebook", "testdata", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(name, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func meets(t *testing.T, s *jsonschema.Schema, data []byte) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	if err := s.Validate(doc); err != nil {
		t.Errorf("does not meet %s: %v\n%s", s.Location, err, data)
	}
}

// goodSubmission writes learner's correct submission into dir.
func goodSubmission(t *testing.T, dir, learner string, i int, edit func(*submission.Content)) string {
	t.Helper()
	c, err := classfixture.Good(learner, i)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(c)
	}
	path, err := classfixture.Write(dir, c)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// cnpaShim is the cnpa for scripts that call cnpa by path: the built
// binary `make unit` names in CNPA_BIN, else an executable that runs this
// test binary as cnpa (as cnpa does).
func cnpaShim(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("CNPA_BIN"); bin != "" {
		return bin
	}
	shim := filepath.Join(t.TempDir(), "cnpa")
	script := fmt.Sprintf("#!/bin/sh\nCNPA_CLI_HELPER=1 NO_COLOR=1 exec %q -test.run='^TestCLIHelperProcess$' -- \"$@\"\n", os.Args[0])
	if err := os.WriteFile(shim, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return shim
}

// TestGradescopeAutograder runs lms/gradescope/run_autograder as
// Gradescope does, a temp dir standing in for /autograder: one real
// submission graded by the policy, late by Gradescope's created_at,
// into a results.json that meets Gradescope's spec; no file, two files
// and a file that is no submission each give a results.json of 0 that
// says why.
func TestGradescopeAutograder(t *testing.T) {
	t.Parallel()
	script, err := filepath.Abs(filepath.Join("..", "..", "lms", "gradescope", "run_autograder"))
	if err != nil {
		t.Fatal(err)
	}
	shim := cnpaShim(t)
	schema := lmsSchema(t, "gradescope-results.schema.json")
	run := func(t *testing.T, root string) map[string]any {
		t.Helper()
		cmd := exec.Command("bash", script)
		cmd.Dir = root
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "CNPA_AUTOGRADER_ROOT=" + root, "CNPA=" + shim}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("run_autograder: %v\n%s", err, out)
		}
		t.Logf("run_autograder said (Gradescope's stdout, for instructors):\n%s", out)
		data, err := os.ReadFile(filepath.Join(root, "results", "results.json"))
		if err != nil {
			t.Fatal(err)
		}
		meets(t, schema, data)
		var got map[string]any
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(root, "results", "results.json.tmp")); err == nil {
			t.Error("results.json.tmp left behind")
		}
		return got
	}
	layout := func(t *testing.T) string {
		root := t.TempDir()
		for _, d := range []string{"source", "submission", "results"} {
			os.MkdirAll(filepath.Join(root, d), 0o755)
		}
		return root
	}

	t.Run("graded", func(t *testing.T) {
		root := layout(t)
		goodSubmission(t, filepath.Join(root, "submission"), "ada", 1, nil)
		os.WriteFile(filepath.Join(root, "source", "policy.toml"), []byte(
			"due = 2026-12-01T00:00:00Z\nstep_points = 2\n[checks]\n\"step5.drift_reverted_live\" = 4\n[late]\npercent_per_day = 50\n"), 0o644)
		// The submission says 2026-12-01T12:00Z; Gradescope received it a
		// day and a bit later: 2 days late, by Gradescope's word.
		os.WriteFile(filepath.Join(root, "submission_metadata.json"), []byte(`{"id": 1, "created_at": "2026-12-02T06:00:00.5-07:00", "users": [{"email": "ada@example.org"}]}`), 0o644)
		got := run(t, root)
		tests, _ := got["tests"].([]any)
		// 8 steps of 2 and one check of 4: 20, all passed; 2 days at 50%: 0.
		if got["score"] != 0.0 || len(tests) != 10 {
			t.Fatalf("got score %v with %d tests, want 0 with 10 (8 steps, a check, the late penalty): %v", got["score"], len(tests), got)
		}
		last, _ := tests[len(tests)-1].(map[string]any)
		if last["score"] != -20.0 || !strings.Contains(fmt.Sprint(last["output"]), "2 day(s) after the due date") {
			t.Errorf("late test: %v", last)
		}
		os.Remove(filepath.Join(root, "submission_metadata.json"))
		// By the submission's own time: 1 day late, 10 of 20.
		if got := run(t, root); got["score"] != 10.0 {
			t.Errorf("without Gradescope's metadata: score %v, want 10", got["score"])
		}
	})
	for _, tc := range []struct {
		name  string
		files map[string]string
		says  string
	}{
		{"none", nil, "No submission file"},
		{"two", map[string]string{"a.json": "{}", "b.json": "{}"}, "More than one .json file"},
		{"not a submission", map[string]string{"notes.json": `{"hello": 1}`}, "is not a cnpa submission"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := layout(t)
			for n, c := range tc.files {
				os.WriteFile(filepath.Join(root, "submission", n), []byte(c), 0o644)
			}
			got := run(t, root)
			if got["score"] != 0.0 || !strings.Contains(fmt.Sprint(got["output"]), tc.says) {
				t.Errorf("got %v, want score 0 and output saying %q", got, tc.says)
			}
		})
	}
}

// TestClassroomResult: -o classroom of one submission is the command
// grader's result, as the workflow passes it base64-encoded.
func TestClassroomResult(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sub := goodSubmission(t, dir, "ada", 1, nil)
	code, out, errOut := cnpa(t, "-o", "classroom", "class", "grade", sub)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	meets(t, lmsSchema(t, "classroom-result.schema.json"), []byte(out))
	// What the reporter decodes from the step's output.
	decoded, err := base64.StdEncoding.DecodeString(base64.StdEncoding.EncodeToString([]byte(out)))
	if err != nil {
		t.Fatal(err)
	}
	var r gradebook.ClassroomResult
	if err := json.Unmarshal(decoded, &r); err != nil || r.Status != "pass" || r.MaxScore != 8 || len(r.Tests) != 8 {
		t.Errorf("got %+v (%v), want pass 8 of 8 in 8 tests", r, err)
	}
	wf, err := os.ReadFile(filepath.Join("..", "..", "lms", "classroom", "cnpa-autograding.yml"))
	if err != nil || !bytes.Contains(wf, []byte("-o classroom class grade")) || !bytes.Contains(wf, []byte("CNPA_RESULTS")) {
		t.Errorf("the workflow to copy does not run cnpa -o classroom or pass CNPA_RESULTS (%v)", err)
	}
	two := goodSubmission(t, dir, "bob", 2, nil)
	code, _, errOut = cnpa(t, "-o", "gradescope", "class", "grade", sub, two)
	if code != 2 || !strings.Contains(errOut, "give exactly one file, not 2") {
		t.Errorf("two submissions: exit %d, %s", code, errOut)
	}
}

// TestLMSRoster: Canvas and Moodle from a CSV roster, and each roster
// that lacks what a format needs is exit 2 naming the column, with
// nothing on stdout.
func TestLMSRoster(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	subs := filepath.Join(dir, "subs")
	os.Mkdir(subs, 0o755)
	goodSubmission(t, subs, "ada", 1, nil)
	goodSubmission(t, subs, "bob", 2, nil)
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	full := write("roster.csv", "learner,Student,ID,SIS User ID,SIS Login ID,Section,Email address\n"+
		"ada,\"Lovelace, Ada\",101,S1,ada,A,ada@example.org\nbob,Bob,102,S2,bob,A,bob@example.org\n")
	names := write("roster.txt", "ada\nbob\n")
	noEmail := write("noemail.csv", "learner,Student,ID,SIS User ID,SIS Login ID,Section\nada,Ada,1,,,A\nbob,Bob,2,,,A\n")
	policy := write("policy.toml", "assignment = \"Lab (77)\"\nstep_points = 5\n")

	code, out, errOut := cnpa(t, "-o", "canvas", "class", "grade", "--roster", full, "--policy", policy, subs)
	if want := "Student,ID,SIS User ID,SIS Login ID,Section,Lab (77)\n\"    Points Possible\",,,,,40\n\"Lovelace, Ada\",101,S1,ada,A,40\nBob,102,S2,bob,A,40\n"; code != 0 || out != want {
		t.Errorf("canvas: exit %d\n%s%s\nwant\n%s", code, out, errOut, want)
	}
	code, out, errOut = cnpa(t, "-o", "moodle", "class", "grade", "--roster", full, subs)
	if want := "Email address,cnpa lab\nada@example.org,8\nbob@example.org,8\n"; code != 0 || out != want {
		t.Errorf("moodle: exit %d\n%s%s\nwant\n%s", code, out, errOut, want)
	}
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"-o", "canvas", "class", "grade", subs}, "-o canvas needs --roster"},
		{[]string{"-o", "canvas", "class", "grade", "--roster", names, subs}, `roster ` + names + `: -o canvas needs the column(s) "Student", "ID", "SIS User ID", "SIS Login ID", "Section"`},
		{[]string{"-o", "moodle", "class", "grade", "--roster", names, subs}, `roster ` + names + `: -o moodle needs the column "Email address" or "ID number"`},
		{[]string{"-o", "moodle", "class", "grade", "--roster", noEmail, subs}, `-o moodle needs the column "Email address" or "ID number"`},
		{[]string{"-o", "moodle", "class", "grade", "--roster", write("nolearner.csv", "Student,Email address\nAda,a@x\n"), subs}, `no "learner" column`},
		{[]string{"-o", "moodle", "class", "grade", "--roster", write("extra.csv", "learner,Email\nada,a@x\n"), subs}, `column "Email" is not one cnpa reads`},
		{[]string{"class", "grade", "--metadata", write("md.json", "{}"), subs}, "give it with -o gradescope"},
		{[]string{"class", "grade", "--policy", write("bad.toml", "[checks]\n\"step5.nope\" = 1\n"), subs}, `checks."step5.nope": is not a check of the lab`},
	} {
		code, out, errOut := cnpa(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.says) || out != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want 2 and %q", tc.args, code, out, errOut, tc.says)
		}
	}
	// A learner the roster does not name never withholds the others'
	// grades (R4-7): their rows are written, the one left out is named on
	// stderr, and the exit is 1.
	short := write("short.csv", "learner,Email address\nada,a@x\n")
	for _, f := range []string{"moodle", "canvas"} {
		roster := short
		if f == "canvas" {
			roster = write("short-canvas.csv", "learner,Student,ID,SIS User ID,SIS Login ID,Section\nada,Ada,101,,,A\n")
		}
		code, out, errOut = cnpa(t, "-o", f, "class", "grade", "--roster", roster, subs)
		if code != 1 || !strings.Contains(out, ",8\n") || strings.Contains(out, "bob") || !strings.Contains(errOut, "no line for learner bob") ||
			!strings.Contains(errOut, "1 row(s) left out of the file") {
			t.Errorf("-o %s, bob not on the roster: exit %d\n%s%s\nwant 1, ada's row written, bob named on stderr", f, code, out, errOut)
		}
	}
}

// TestExamMode: the instructor's policy.toml in the evidence dir with
// exam = true makes scaffold, explain and the step driver refuse, in
// English and Japanese; class grade shows a submission taken in exam
// mode, and flags one that was not when the policy says exam.
func TestExamMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	lab := filepath.Join(dir, "cnpa-op")
	os.Mkdir(lab, 0o755)
	policy := filepath.Join(lab, gradebook.PolicyName)
	os.WriteFile(policy, []byte("exam = true\n"), 0o644)
	for _, args := range [][]string{{"scaffold", "reconcile.sh"}, {"explain", "3"}, {"step", "1"}} {
		for lang, says := range map[string]string{"en": "exam mode: cnpa " + args[0] + " is not allowed (policy.toml says exam = true)", "ja": "試験モード: cnpa " + args[0] + "は使えません（policy.tomlが exam = true）"} {
			code, out, errOut := cnpaEnv(t, []string{"CNPA_DIR=" + lab, "CNPA_LANG=" + lang}, args...)
			if code != 2 || !strings.Contains(errOut, says) || out != "" {
				t.Errorf("%s %q: exit %d, stdout %q, stderr %q; want 2 and %q", lang, args, code, out, errOut, says)
			}
		}
	}
	// Without exam mode, explain works as ever.
	os.WriteFile(policy, []byte("exam = false\n"), 0o644)
	if code, out, errOut := cnpaEnv(t, []string{"CNPA_DIR=" + lab}, "explain", "3"); code != 0 || out == "" {
		t.Errorf("explain outside exam mode: exit %d: %s", code, errOut)
	}
	// A broken policy never turns exam mode off.
	os.WriteFile(policy, []byte("exam = tru\n"), 0o644)
	if code, _, errOut := cnpaEnv(t, []string{"CNPA_DIR=" + lab}, "explain", "3"); code != 2 || !strings.Contains(errOut, policy) {
		t.Errorf("explain with a broken policy: exit %d: %s", code, errOut)
	}

	subs := filepath.Join(dir, "subs")
	os.Mkdir(subs, 0o755)
	goodSubmission(t, subs, "ada", 1, func(c *submission.Content) { c.Exam = true })
	goodSubmission(t, subs, "bob", 2, nil)
	exam := filepath.Join(dir, "exam.toml")
	os.WriteFile(exam, []byte("exam = true\n"), 0o644)
	code, out, errOut := cnpa(t, "class", "grade", "--policy", exam, subs)
	if code != 0 || !strings.Contains(out, "(taken in exam mode)") || !strings.Contains(out, "not-in-exam-mode") {
		t.Errorf("class grade in exam mode: exit %d\n%s%s", code, out, errOut)
	}
	code, out, _ = cnpa(t, "-o", "json", "class", "grade", subs)
	if code != 0 || strings.Count(out, `"exam": true`) != 1 || strings.Contains(out, "not-in-exam-mode") {
		t.Errorf("class grade -o json without a policy: exit %d\n%s", code, out)
	}
	code, out, _ = cnpa(t, "-o", "gradescope", "class", "grade", filepath.Join(subs, "ada.json"))
	if code != 0 || !strings.Contains(out, "taken in exam mode") {
		t.Errorf("gradescope of an exam submission: exit %d\n%s", code, out)
	}
}

// stressAll is a stress report of every default fault, each passed, as a
// learner writes .cnpa/stress.json by hand; injected, each fault shows
// one of its kind (what the proxy counts).
func stressAll(injected bool, at time.Time) *judge.StressReport {
	rep := &judge.StressReport{At: at, Engine: "own"}
	for _, name := range judge.StressFaults {
		f := judge.StressFault{Name: name, Status: judge.Pass, Seconds: 1}
		if injected {
			kind := name
			if name == "kill9" {
				kind = "kill"
			}
			f.Injected = map[string]int64{kind: 3}
		}
		rep.Faults = append(rep.Faults, f)
	}
	rep.Count()
	return rep
}

// TestStressCannotRaiseAGradeSilently (R4-3): stress results are the
// learner's own report, rehashed by `cnpa submit` whatever they hold. A
// policy counts them only with self_reported = true. A hand-written
// stress.json that passes every fault with nothing injected, or dated
// after the submission, counts nothing and is flagged tampered (to the
// instructor); one that keeps to those counts, and every output says the
// points are self-reported: the learner's Gradescope output, the
// instructor's stderr with Canvas and Gradescope.
func TestStressCannotRaiseAGradeSilently(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	subs := filepath.Join(dir, "subs")
	os.Mkdir(subs, 0o755)
	submitted := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	goodSubmission(t, subs, "honest", 1, nil)
	goodSubmission(t, subs, "mallory", 2, func(c *submission.Content) { c.Stress = stressAll(false, submitted.Add(-time.Hour)) })
	goodSubmission(t, subs, "later", 3, func(c *submission.Content) { c.Stress = stressAll(true, submitted.Add(time.Hour)) })
	goodSubmission(t, subs, "careful", 4, func(c *submission.Content) { c.Stress = stressAll(true, submitted.Add(-time.Hour)) })
	policy := filepath.Join(dir, "policy.toml")
	os.WriteFile(policy, []byte("[stress]\npoints_per_fault = 1\n"), 0o644)
	if code, _, errOut := cnpa(t, "-o", "gradescope", "class", "grade", "--policy", policy, filepath.Join(subs, "mallory.json")); code != 2 ||
		!strings.Contains(errOut, "add self_reported = true under [stress]") {
		t.Errorf("points_per_fault without self_reported: exit %d, %s", code, errOut)
	}
	os.WriteFile(policy, []byte("[stress]\npoints_per_fault = 1\nself_reported = true\n"), 0o644)
	all := float64(8 + len(judge.StressFaults)) // the 8 steps and a point a fault
	for _, tc := range []struct {
		learner string
		score   float64
		flag    string
	}{{"honest", 8, ""}, {"mallory", 8, "mallory: tampered"}, {"later", 8, "later: tampered"}, {"careful", all, ""}} {
		code, out, errOut := cnpa(t, "-o", "gradescope", "class", "grade", "--policy", policy, filepath.Join(subs, tc.learner+".json"))
		var got gradebook.GradescopeResults
		if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
			t.Fatalf("%s: exit %d (%v)\n%s%s", tc.learner, code, err, out, errOut)
		}
		if got.Score != tc.score || got.Score > 8 != strings.Contains(errOut, fmt.Sprintf("%s: %d of %v points are `cnpa stress` results as the learner reported them: not verified", tc.learner, len(judge.StressFaults), all)) {
			t.Errorf("%s: score %v, want %v; stderr (the instructor's):\n%s", tc.learner, got.Score, tc.score, errOut)
		}
		if !strings.Contains(got.Output, "`cnpa stress` results as the learner's run reported them: cnpa cannot verify them") {
			t.Errorf("%s: the learner's output does not say stress is self-reported:\n%s", tc.learner, got.Output)
		}
		if tc.flag != "" && (!strings.Contains(errOut, "⚑ "+tc.flag) || strings.Contains(out, "tampered")) {
			t.Errorf("%s: want %q on stderr only\nstdout %s\nstderr %s", tc.learner, tc.flag, out, errOut)
		}
	}
	code, out, errOut := cnpa(t, "class", "grade", "--policy", policy, subs)
	if code != 0 || !strings.Contains(out, "stress.json: kill9 passed with no kill injected") || !strings.Contains(out, "stress.json: the stress run (2026-12-01T13:00:00Z) is after the submission (2026-12-01T12:00:00Z)") {
		t.Errorf("the text gradebook does not say why: exit %d\n%s%s", code, out, errOut)
	}
}

// TestFlagsReachTheInstructorOnly (R4-4): two learners with one uid
// (copied), a policy in exam mode neither took the exam in, and another
// cnpa version: in Canvas and Moodle the flags are on stderr, never in
// the file the LMS imports (which would show them to no one); in
// Gradescope they are on stderr, which run_autograder leaves to the
// stdout capture only instructors see, and not in results.json, which
// the learner reads; in Classroom, whose log the learner reads, they are
// nowhere.
func TestFlagsReachTheInstructorOnly(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	subs := filepath.Join(dir, "subs")
	os.Mkdir(subs, 0o755)
	goodSubmission(t, subs, "ada", 1, nil)
	goodSubmission(t, subs, "bob", 1, nil)
	roster := filepath.Join(dir, "roster.csv")
	os.WriteFile(roster, []byte("learner,Student,ID,SIS User ID,SIS Login ID,Section,Email address\nada,Ada,101,,,A,ada@x.org\nbob,Bob,102,,,A,bob@x.org\n"), 0o644)
	policy := filepath.Join(dir, "policy.toml")
	os.WriteFile(policy, []byte("exam = true\n"), 0o644)
	flags := []string{"shares-uids-with:bob", "not-in-exam-mode", "cnpa-version:test"}
	for _, f := range []string{"canvas", "moodle"} {
		code, out, errOut := cnpa(t, "-o", f, "class", "grade", "--roster", roster, "--policy", policy, subs)
		if code != 0 {
			t.Fatalf("-o %s: exit %d\n%s", f, code, errOut)
		}
		for _, flag := range flags {
			if !strings.Contains(errOut, flag) || strings.Contains(out, flag) {
				t.Errorf("-o %s: flag %s not on stderr alone\nstdout:\n%s\nstderr:\n%s", f, flag, out, errOut)
			}
		}
		if !strings.Contains(errOut, "each file's SHA-256 shows it is as it was hashed; the learner makes that hash") {
			t.Errorf("-o %s: stderr does not say what the hash proves:\n%s", f, errOut)
		}
	}
	for _, f := range []string{"gradescope", "classroom"} {
		code, out, errOut := cnpa(t, "-o", f, "class", "grade", "--policy", policy, filepath.Join(subs, "ada.json"))
		if code != 0 || !strings.Contains(out, "its SHA-256 shows the file is whole, not who made it") {
			t.Fatalf("-o %s: exit %d, the learner's output does not say what the hash proves\n%s%s", f, code, out, errOut)
		}
		for _, flag := range flags[1:] {
			if strings.Contains(out, flag) || strings.Contains(out, "flags") || (f == "gradescope") != strings.Contains(errOut, flag) {
				t.Errorf("-o %s: flag %s\nstdout (the learner's):\n%s\nstderr:\n%s", f, flag, out, errOut)
			}
		}
	}
	// run_autograder: stderr is Gradescope's stdout capture.
	root := t.TempDir()
	for _, d := range []string{"source", "submission", "results"} {
		os.MkdirAll(filepath.Join(root, d), 0o755)
	}
	data, _ := os.ReadFile(filepath.Join(subs, "ada.json"))
	os.WriteFile(filepath.Join(root, "submission", "submission.json"), data, 0o644)
	os.WriteFile(filepath.Join(root, "source", "policy.toml"), []byte("exam = true\n"), 0o644)
	script, _ := filepath.Abs(filepath.Join("..", "..", "lms", "gradescope", "run_autograder"))
	cmd := exec.Command("bash", script)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + root, "CNPA_AUTOGRADER_ROOT=" + root, "CNPA=" + cnpaShim(t)}
	capture, err := cmd.CombinedOutput()
	results, _ := os.ReadFile(filepath.Join(root, "results", "results.json"))
	if err != nil || !strings.Contains(string(capture), "⚑ ada: not-in-exam-mode") || strings.Contains(string(results), "not-in-exam-mode") {
		t.Errorf("run_autograder: %v\nstdout capture (instructors):\n%s\nresults.json (the learner's):\n%s", err, capture, results)
	}
}

package gradebook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schema compiles testdata/name: the published format as JSON Schema.
func schema(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
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

// valid checks what w wrote against s.
func valid(t *testing.T, s *jsonschema.Schema, data []byte) {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	if err := s.Validate(doc); err != nil {
		t.Errorf("does not meet %s:\n%v\n%s", s.Location, err, data)
	}
}

var ids = []string{"step1.file", "step1.uid", "step2.file", "step5.drift_reverted_live", "step8.file", "stress.kill9"}

// result is a learner who passes steps 1 and 2 and fails the rest.
func result() *Result {
	r := &Result{Learner: "ada", Graded: "offline", Verified: true, StepPassed: []bool{true, true, false, false, false, false, false, false},
		SubmittedAt: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)}
	r.Checks = []Check{
		{ID: "step1.file", Step: 1, Title: "before.json exists", Status: StatusPass},
		{ID: "step1.uid", Step: 1, Title: "uid", Status: StatusNote},
		{ID: "step2.file", Step: 2, Title: "generation.json exists", Status: StatusPass},
		{ID: "step5.drift_reverted_live", Step: 5, Title: "drift reverted", Status: StatusFail, Expected: "6", Actual: "99", Hint: "revert it"},
		{ID: "step8.file", Step: 8, Title: "report.json exists", Status: StatusSkip, Expected: "a file", Actual: "not checked"},
	}
	return r
}

func policy(t *testing.T, text string) *Policy {
	t.Helper()
	p, err := ParsePolicy("policy.toml", []byte(text), 8, ids)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestNoPolicyIsTodaysGrade: without a policy every format scores a
// point per step passed whole, the gradebook's steps_passed of 8.
func TestNoPolicyIsTodaysGrade(t *testing.T) {
	s := ScoreOf(result(), nil)
	if s.Total != 2 || s.Max != 8 || len(s.Items) != 8 {
		t.Errorf("got %v of %v in %d items, want 2 of 8 in 8", s.Total, s.Max, len(s.Items))
	}
	gs := Gradescope(result(), nil, time.Second)
	if gs.Score != 2 || len(gs.Tests) != 8 || gs.Tests[4].Visibility != "visible" || !strings.Contains(gs.Tests[4].Output, "expected 6, found 99") {
		t.Errorf("gradescope: %+v", gs)
	}
	cr := Classroom(result(), nil, time.Now())
	var sum float64
	for _, x := range cr.Tests {
		sum += x.Score
	}
	if sum != 2 || cr.MaxScore != 8 || cr.Status != "fail" {
		t.Errorf("classroom: tests sum %v of %v, status %s; want 2 of 8, fail", sum, cr.MaxScore, cr.Status)
	}
	un := result()
	un.Verified = false
	if s := ScoreOf(un, nil); s.Total != 0 || s.Max != 8 {
		t.Errorf("unverified: got %v of %v, want 0 of 8", s.Total, s.Max)
	}
}

// TestPolicyPointsVisibilityLate: the same policy gives the same score
// in every format: points per step and per check, a check hidden before
// the due date, two days late at 10% a day.
func TestPolicyPointsVisibilityLate(t *testing.T) {
	p := policy(t, `
assignment = "Lab 3 (1234)"
due = 2026-11-29T12:00:00Z
step_points = 2
[steps]
5 = 4
[checks]
"step1.file" = 1
"step5.drift_reverted_live" = 3
[visibility.checks."step5.drift_reverted_live"]
before_due = "hidden"
after_due = "visible"
[late]
percent_per_day = 10
max_days = 5
`)
	r := result()
	s := ScoreOf(r, p)
	// steps 1, 2 pass: 2+2; check step1.file: 1; max 2*7+4 + 1+3 = 22.
	if s.Raw != 5 || s.Max != 22 || s.DaysLate != 2 || s.Penalty != 1 || s.Total != 4 {
		t.Errorf("got raw %v max %v late %d penalty %v total %v; want 5 22 2 1 4", s.Raw, s.Max, s.DaysLate, s.Penalty, s.Total)
	}
	gs := Gradescope(r, p, 0)
	if gs.Score != 4 {
		t.Errorf("gradescope score %v, want 4", gs.Score)
	}
	vis := map[string]string{}
	for _, x := range gs.Tests {
		vis[x.Name] = x.Visibility
	}
	if vis["step5.drift_reverted_live: drift reverted"] != "after_due_date" || vis["Step 5"] != "after_due_date" || vis["Step 1"] != "visible" {
		t.Errorf("visibility: %v", vis)
	}
	before := Classroom(r, p, time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC))
	after := Classroom(r, p, time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC))
	var sum float64
	for _, x := range before.Tests {
		sum += x.Score
		if x.Name == "Step 5" && (strings.Contains(x.Message, "99") || !strings.Contains(x.Message, "hidden until the due date")) {
			t.Errorf("before the due date the hidden check shows: %q", x.Message)
		}
	}
	for _, x := range after.Tests {
		if x.Name == "Step 5" && !strings.Contains(x.Message, "expected 6, found 99") {
			t.Errorf("after the due date the check is still hidden: %q", x.Message)
		}
	}
	if sum != 4 || before.MaxScore != 22 {
		t.Errorf("classroom: tests sum %v of %v, want 4 of 22", sum, before.MaxScore)
	}
	roster := &Roster{Path: "r.csv", Columns: append(append([]string{}, CanvasColumns...), ColEmail),
		Identity: map[string]map[string]string{"ada": {ColStudent: "Ada", ColID: "7", ColSISLoginID: "ada", ColEmail: "ada@example.org"}}}
	var canvas, moodle bytes.Buffer
	if _, err := Canvas(&canvas, []*Result{r}, p, roster); err != nil {
		t.Fatal(err)
	}
	if _, err := Moodle(&moodle, []*Result{r}, p, roster); err != nil {
		t.Fatal(err)
	}
	if want := "Student,ID,SIS User ID,SIS Login ID,Section,Lab 3 (1234)\n\"    Points Possible\",,,,,22\nAda,7,,ada,,4\n"; canvas.String() != want {
		t.Errorf("canvas:\n%s\nwant\n%s", canvas.String(), want)
	}
	if want := "Email address,Lab 3 (1234)\nada@example.org,4\n"; moodle.String() != want {
		t.Errorf("moodle:\n%s\nwant\n%s", moodle.String(), want)
	}
	p.Late.MaxDays = 1
	if s := ScoreOf(r, p); s.Total != 0 {
		t.Errorf("past max_days: got %v, want 0", s.Total)
	}
}

// TestFormatsMeetTheirSchemas: results.json and the Classroom result,
// of a passing, a failing, a late and an unreadable learner, meet the
// published formats as JSON Schema (testdata).
func TestFormatsMeetTheirSchemas(t *testing.T) {
	gs, cr := schema(t, "gradescope-results.schema.json"), schema(t, "classroom-result.schema.json")
	late := policy(t, "due = 2026-11-30T00:00:00Z\n[late]\npercent_per_day = 25\n[checks]\n\"step1.file\" = 2\n[visibility]\nbefore_due = \"hidden\"\n")
	pass := result()
	for i := range pass.StepPassed {
		pass.StepPassed[i] = true
	}
	pass.Checks = pass.Checks[:3]
	pass.Exam = true
	bad := &Result{Learner: "x.json", Graded: "unreadable", Verified: true, StepPassed: make([]bool, 8), Flags: []string{"unreadable"}}
	for _, tc := range []struct {
		name string
		r    *Result
		p    *Policy
	}{{"failing", result(), nil}, {"passing", pass, nil}, {"late", result(), late}, {"unreadable", bad, nil}} {
		t.Run(tc.name, func(t *testing.T) {
			var a, b bytes.Buffer
			if err := WriteGradescope(&a, Gradescope(tc.r, tc.p, 1500*time.Millisecond)); err != nil {
				t.Fatal(err)
			}
			if err := WriteClassroom(&b, Classroom(tc.r, tc.p, time.Now())); err != nil {
				t.Fatal(err)
			}
			valid(t, gs, a.Bytes())
			valid(t, cr, b.Bytes())
		})
	}
	// The schemas are strict: a field the spec does not name fails.
	var out map[string]any
	json.Unmarshal([]byte(`{"score": 1, "tests": [{"name": "x", "points": 1}]}`), &out)
	if err := gs.Validate(out); err == nil {
		t.Error("the Gradescope schema took a test field the spec does not name")
	}
	json.Unmarshal([]byte(`{"version": 1, "status": "passed", "max_score": 1, "tests": []}`), &out)
	if err := cr.Validate(out); err == nil {
		t.Error(`the Classroom schema took status "passed" (the grader writes pass)`)
	}
}

// TestBadPolicy: every bad key is named, with its fix, all at once.
func TestBadPolicy(t *testing.T) {
	for _, tc := range []struct {
		text string
		says []string
	}{
		{"step_point = 1\n", []string{"policy.toml: step_point: not a key of a policy"}},
		{"[checks]\n\"step9.nope\" = 1\n\"step1.file\" = -2\n", []string{`checks."step9.nope": is not a check of the lab`, `checks."step1.file": is negative`}},
		{"[steps]\n9 = 1\n3 = -1\n", []string{"steps.9: is not a step: give a step number 1 to 8", "steps.3: is negative"}},
		{"step_points = -1\n", []string{"step_points: is negative"}},
		{"[visibility]\nbefore_due = \"secret\"\n", []string{`visibility.before_due: give "visible" or "hidden"`}},
		{"[visibility]\nafter_due = \"hidden\"\n", []string{"visibility.after_due: a check visible before the due date cannot be hidden after it"}},
		{"[late]\npercent_per_day = 10\n", []string{"late: late rules need a due date"}},
		{"[late]\npercent_per_day = 110\ndue = 2026-01-01T00:00:00Z\n", []string{"late.due: not a key of a policy", "late.percent_per_day: give a percentage"}},
		{"exam = yes\n", []string{"policy.toml: not TOML"}},
		// R4-8: non-finite and absurd numbers.
		{"step_points = nan\n", []string{"step_points: give a number of points from 0 to 1000000"}},
		{"step_points = inf\n[steps]\n2 = -inf\n", []string{"step_points: give a number of points", "steps.2: give a number of points"}},
		{"step_points = 1e308\n", []string{"step_points: give a number of points from 0 to 1000000"}},
		{"due = 2026-01-01T00:00:00Z\n[late]\npercent_per_day = nan\nmax_days = 100000\n", []string{"late.percent_per_day: give a percentage", "late.max_days: give at most 3650 days"}},
		{"[checks]\n\"step1.file\" = nan\n", []string{`checks."step1.file": give a number of points`}},
		{"[stress]\npoints_per_fault = nan\nself_reported = true\n", []string{"stress.points_per_fault: give a number of points"}},
		// R4-3: stress results count only when the instructor says they
		// may, knowing they are the learner's own report.
		{"[stress]\npoints_per_fault = 1\n", []string{"stress.points_per_fault: stress results are the learner's own report, which cnpa cannot verify", "add self_reported = true under [stress]"}},
		// [checks] "stress.*" is refused, never accepted and ignored.
		{"[checks]\n\"stress.kill9\" = 1\n", []string{`checks."stress.kill9": the stress faults get their points from [stress] points_per_fault`}},
		{"assignment = \"=HYPERLINK(1)\"\n", []string{"assignment: starts with =, +, - or @"}},
		{"x = " + strings.Repeat("{a=", 17) + "1" + strings.Repeat("}", 17) + "\n", []string{"nests more than 16 levels deep"}},
		{"[a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q]\n", []string{"nests more than 16 levels deep"}},
	} {
		_, err := ParsePolicy("policy.toml", []byte(tc.text), 8, ids)
		if err == nil {
			t.Errorf("%q: no error", tc.text)
			continue
		}
		for _, s := range tc.says {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%q: got %q, want it to say %q", tc.text, err, s)
			}
		}
	}
}

// TestRosterWithoutTheColumn: a roster without the column a format
// needs is an error naming it, and nothing is written.
func TestRosterWithoutTheColumn(t *testing.T) {
	names := &Roster{Path: "r.csv", Columns: []string{ColStudent}, Identity: map[string]map[string]string{"ada": {ColStudent: "Ada"}}}
	for _, tc := range []struct {
		write func(*bytes.Buffer) error
		says  string
	}{
		{func(b *bytes.Buffer) error { return errOf(Canvas(b, []*Result{result()}, nil, names)) }, `-o canvas needs the column(s) "ID", "SIS User ID", "SIS Login ID", "Section"`},
		{func(b *bytes.Buffer) error { return errOf(Moodle(b, []*Result{result()}, nil, names)) }, `-o moodle needs the column "Email address" or "ID number"`},
		{func(b *bytes.Buffer) error { return errOf(Canvas(b, []*Result{result()}, nil, nil)) }, `-o canvas needs the column(s) "Student"`},
		{func(b *bytes.Buffer) error {
			r := &Roster{Path: "r.csv", Columns: CanvasColumns, Identity: map[string]map[string]string{"ada": {ColSection: "A"}}}
			return errOf(Canvas(b, []*Result{result()}, nil, r))
		}, `learner ada has no "Student", "ID", "SIS User ID" or "SIS Login ID"`},
		{func(b *bytes.Buffer) error {
			r := &Roster{Path: "r.csv", Columns: []string{ColEmail}, Identity: map[string]map[string]string{}}
			return errOf(Moodle(b, []*Result{result()}, nil, r))
		}, "no line for learner ada"},
	} {
		var b bytes.Buffer
		err := tc.write(&b)
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("got %v, want it to say %q", err, tc.says)
		}
		if b.Len() != 0 {
			t.Errorf("half written: %q", b.String())
		}
	}
}

// errOf is the error of a writer that also returns its Report.
func errOf(_ *Report, err error) error { return err }

// TestDeepPolicyIsCheap: a policy nested 5,000 deep (20 KB; the review
// measured 1.27 GB and 4.3 s through the TOML decoder) is refused before
// decoding, in little memory; 30 unknown keys are named 20 and "10
// more"; a policy's own shapes (strings holding dots and brackets, a
// multi-line string, comments) are not taken for nesting.
func TestDeepPolicyIsCheap(t *testing.T) {
	doc := []byte("x = " + strings.Repeat("{a=", 5000) + "1" + strings.Repeat("}", 5000) + "\n")
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := ParsePolicy("deep.toml", doc, 8, ids)
	runtime.ReadMemStats(&after)
	took := after.TotalAlloc - before.TotalAlloc
	t.Logf("5,000 levels (%d bytes): %d bytes allocated", len(doc), took)
	if err == nil || !strings.Contains(err.Error(), "nests more than 16 levels deep") {
		t.Errorf("got %v, want it refused as too deep", err)
	}
	if took > 1<<20 {
		t.Errorf("refusing it took %d bytes, want under 1 MiB", took)
	}
	var many strings.Builder
	for i := range 30 {
		fmt.Fprintf(&many, "k%d = 1\n", i)
	}
	_, err = ParsePolicy("many.toml", []byte(many.String()), 8, ids)
	if err == nil || strings.Count(err.Error(), "not a key of a policy") != 20 || !strings.Contains(err.Error(), "and 10 more keys cnpa does not read") {
		t.Errorf("30 unknown keys: %v", err)
	}
	ok := "due = 2026-12-04T17:00:00.5Z\n# a [comment] with . dots {\nassignment = \"Lab [3]. {a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q}\" # .\n" +
		"[visibility.checks.\"step1.file\"]\nbefore_due = 'hidden'\nafter_due = \"visible\"\n" +
		"[late]\npercent_per_day = 1.5\n"
	if _, err := ParsePolicy("ok.toml", []byte(ok), 8, ids); err != nil {
		t.Errorf("a policy of ordinary shape: %v", err)
	}
}

// TestClassroomPointsSumExactly: GitHub Classroom's reporter adds the
// tests' scores as JavaScript numbers; for 0.1 points a step, three
// steps passed would read "Points 0.30000000000000004/0.8". The sum in
// the reporter's order is the total cnpa prints, for every count of
// steps passed and a late penalty.
func TestClassroomPointsSumExactly(t *testing.T) {
	for _, text := range []string{"step_points = 0.1\n", "step_points = 0.3\n[checks]\n\"step1.file\" = 0.7\n",
		"due = 2026-11-30T00:00:00Z\nstep_points = 0.1\n[late]\npercent_per_day = 7\n"} {
		p := policy(t, text)
		for n := 0; n <= 8; n++ {
			r := result()
			for i := range r.StepPassed {
				r.StepPassed[i] = i < n
			}
			cr := Classroom(r, p, time.Now())
			var sum float64
			for _, x := range cr.Tests {
				sum += x.Score
			}
			want := fmtPoints(ScoreOf(r, p).Total)
			if got := strconv.FormatFloat(sum, 'f', -1, 64); got != want || fmtPoints(cr.MaxScore) != strconv.FormatFloat(cr.MaxScore, 'f', -1, 64) {
				t.Errorf("%q, %d steps: the reporter's sum prints %s of %v, want %s", text, n, got, cr.MaxScore, want)
			}
		}
	}
}

package gradebook

import (
	"bytes"
	"encoding/csv"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// canvasStudent is a student of the course Canvas imports into.
type canvasStudent struct {
	id                           int
	name, sortable, sis, loginID string
}

// canvasImported is what Canvas's importer made of a file: each matched
// student's grade by id, the rows it could not match (Canvas asks the
// instructor to pick a student for each), and the assignment column's
// title, id (0: a new assignment) and points possible.
type canvasImported struct {
	grades    map[int]string
	unmatched []string
	title     string
	id        int
	possible  string
}

// canvasTitleAndID is Assignment.title_and_id: "Lab 3 (1234)" is the
// assignment 1234.
var canvasTitleAndID = regexp.MustCompile(`\A(.*)\s+\((\d+)\)\z`)

// canvasNonAssignment is GradebookImporter's NON_ASSIGNMENT_COLUMN_HEADERS,
// matched anywhere in a header (grep_v of their union).
var canvasNonAssignment = regexp.MustCompile("Current Score|Current Points|Current Grade|Final Score|Final Points|Final Grade|Override Score|Override Grade|Override Status")

// rubyToI is Ruby's String#to_i: the leading digits, 0 for none.
func rubyToI(s string) int {
	s = strings.TrimLeft(s, " \t\n")
	end := 0
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, _ := strconv.Atoi(s[:end])
	return n
}

// canvasImport is Canvas's gradebook CSV import, ported from
// instructure/canvas-lms app/models/gradebook_importer.rb (the code index
// holds it; the review re-implemented the same in Python):
//   - header?: row 0 includes "Student", row 1 "ID"; update_column_count:
//     "SIS User ID" and "SIS Login ID" at 2 and 3 (or "SIS Login ID"
//     alone at 2) add columns; the last student column must include
//     "Section";
//   - strip_non_assignment_columns, then parse_assignments: an existing
//     assignment by the id in "Title (id)", else by its title, else a
//     new one;
//   - check_for_non_student_row: row 0 including "Points Possible" sets
//     the assignments' points_possible (process_pp); a row of nothing
//     but blanks or "Muted" is skipped;
//   - process_student: the student of the ID column's to_i, else the
//     pseudonym of the SIS User ID, else of the SIS Login ID, else the
//     student whose name or sortable name is row 0, all compared as
//     written; else a new (unmatched) student;
//   - csv_stream: comma (cnpa's files have no semicolons), a cell that
//     is a plain number with a decimal comma normalised.
func canvasImport(t *testing.T, file string, students []canvasStudent, assignments map[int]string) canvasImported {
	t.Helper()
	cr := csv.NewReader(strings.NewReader(file))
	cr.FieldsPerRecord = -1
	rows, err := cr.ReadAll()
	if err != nil {
		t.Fatalf("Canvas cannot parse the file: %v", err)
	}
	head := rows[0]
	if !(len(head) > 3 && strings.Contains(head[0], "Student") && strings.Contains(head[1], "ID")) {
		t.Fatalf("Canvas: Invalid header row %q", head)
	}
	studentCols, sisCol, loginCol := 3, -1, -1
	switch {
	case regexp.MustCompile(`SIS\s+Login\s+ID`).MatchString(head[2]):
		loginCol, studentCols = 2, 4
	case regexp.MustCompile(`SIS\s+User\s+ID`).MatchString(head[2]) && regexp.MustCompile(`SIS\s+Login\s+ID`).MatchString(head[3]):
		sisCol, loginCol, studentCols = 2, 3, 5
	}
	if !strings.Contains(head[studentCols-1], "Section") {
		t.Fatalf("Canvas: Invalid header row %q (no Section as the last student column)", head)
	}
	var out canvasImported
	var col int
	for i, h := range head[studentCols:] {
		if canvasNonAssignment.MatchString(h) {
			continue
		}
		if out.title != "" {
			t.Fatalf("Canvas: more than one assignment column: %q", head)
		}
		out.title, col = h, studentCols+i
		if m := canvasTitleAndID.FindStringSubmatch(h); m != nil {
			if _, ok := assignments[rubyToI(m[2])]; ok {
				out.id = rubyToI(m[2])
			}
		}
		for id, title := range assignments {
			if out.id == 0 && title == h {
				out.id = id
			}
		}
	}
	out.grades = map[int]string{}
	for _, row := range rows[1:] {
		if strings.Contains(row[0], "Points Possible") {
			out.possible = row[col]
			continue
		}
		blank := true
		for _, c := range row {
			blank = blank && regexp.MustCompile(`(?i)^\s*(Muted|Manual Posting.*)?\s*$`).MatchString(c)
		}
		if blank {
			continue
		}
		var who *canvasStudent
		if row[1] != "" {
			for i := range students {
				if students[i].id == rubyToI(row[1]) {
					who = &students[i]
				}
			}
		}
		for i := range students {
			if who == nil && sisCol >= 0 && row[sisCol] != "" && students[i].sis == row[sisCol] {
				who = &students[i]
			}
		}
		for i := range students {
			if who == nil && loginCol >= 0 && row[loginCol] != "" && students[i].loginID == row[loginCol] {
				who = &students[i]
			}
		}
		for i := range students {
			if who == nil && row[0] != "" && (students[i].name == row[0] || students[i].sortable == row[0]) {
				who = &students[i]
			}
		}
		if who == nil {
			out.unmatched = append(out.unmatched, row[0])
			continue
		}
		g := row[col]
		if regexp.MustCompile(`^-?[0-9.,]+%?$`).MatchString(g) {
			parts := regexp.MustCompile(`[,.]`).Split(g, -1)
			if len(parts) > 1 {
				g = strings.Join(parts[:len(parts)-1], "") + "." + parts[len(parts)-1]
			}
		}
		out.grades[who.id] = g
	}
	return out
}

// canvasClass is a course of five and their roster, every identity
// column Canvas matches by used by someone.
func canvasClass() ([]canvasStudent, *Roster) {
	students := []canvasStudent{
		{101, "Ada Lovelace", "Lovelace, Ada", "S1", "ada"},
		{102, "Ana Lopez", "=Lopez, Ana", "S2", "ana"},
		{103, "Ken Kimura", "+Kimura, Ken", "", "ken"},
		{104, "Seán O'Brien", "O'Brien, Seán", "-S4", "sean"},
		{105, "Yui Sato", "佐藤, 結衣", "S5", "yui"},
	}
	roster := &Roster{Path: "roster.csv", Columns: CanvasColumns, Identity: map[string]map[string]string{
		// by ID
		"ada": {ColStudent: "Lovelace, Ada", ColID: "101", ColSection: "Lab A"},
		// a name a spreadsheet takes for a formula, and an ID
		"ana": {ColStudent: "=Lopez, Ana", ColID: "102", ColSection: "@Lab B"},
		// a name a spreadsheet takes for a formula, and nothing else
		"ken": {ColStudent: "+Kimura, Ken", ColSection: "Lab A"},
		// an SIS User ID starting with -, and the name
		"sean": {ColStudent: "O'Brien, Seán", ColSISUserID: "-S4", ColSection: "Lab A"},
		// the SIS Login ID alone, which Canvas matches by
		"yui": {ColSISLoginID: "yui", ColSection: "演習A"},
	}}
	return students, roster
}

// TestCanvasImportMatchesEveryRow: the file goes through the port of
// Canvas's importer. Every learner is matched to themselves with
// cnpa's total, identity cells are never prefixed (so never unmatched
// for it): one a spreadsheet takes for a formula is left empty when
// another identity matches the row, said to the instructor, and the row
// is left out, named with the fix, when none does (the others written).
// A learner identified by the SIS Login ID alone is matched.
func TestCanvasImportMatchesEveryRow(t *testing.T) {
	students, roster := canvasClass()
	p := policy(t, "assignment = \"Lab 3 (1234)\"\nstep_points = 1\n[steps]\n5 = 3\n[checks]\n\"step1.file\" = 2\n")
	var rows []*Result
	for _, name := range []string{"ada", "ana", "ken", "sean", "yui"} {
		r := result()
		r.Learner = name
		rows = append(rows, r)
	}
	var b bytes.Buffer
	rep, err := Canvas(&b, rows, p, roster)
	if err != nil {
		t.Fatal(err)
	}
	got := canvasImport(t, b.String(), students, map[int]string{1234: "Lab 3"})
	want := fmtPoints(ScoreOf(rows[0], p).Total)
	if got.id != 1234 || got.possible != "12" || len(got.unmatched) != 0 || len(got.grades) != 4 {
		t.Errorf("imported %+v, want assignment 1234 of 12, 4 matched, none unmatched\n%s", got, b.String())
	}
	for _, id := range []int{101, 102, 104, 105} {
		if got.grades[id] != want {
			t.Errorf("student %d: grade %q, want %q", id, got.grades[id], want)
		}
	}
	if regexp.MustCompile(`(?m)(^|,)"?'`).MatchString(b.String()) {
		t.Errorf("a cell is prefixed:\n%s", b.String())
	}
	notes := strings.Join(rep.Notes, "\n")
	for _, says := range []string{`ana: "Student" "=Lopez, Ana" left empty`, `ana: "Section" "@Lab B" left empty`, `sean: "SIS User ID" "-S4" left empty`} {
		if !strings.Contains(notes, says) {
			t.Errorf("notes %q do not say %q", notes, says)
		}
	}
	if len(rep.Left) != 1 || !strings.Contains(rep.Left[0].Error(), `learner ken: "Student" is "+Kimura, Ken"`) || !strings.Contains(rep.Left[0].Error(), `fill this learner's "ID"`) {
		t.Errorf("left %v, want ken, named with the fix", rep.Left)
	}
}

// TestCanvasPointsPossibleIsTheMaximum: the learner sorted last has no
// submission (and so no checks): Points Possible is still the
// assignment's maximum, and a new assignment is made worth it (the
// review: "10" for 12). Fractional points print as 0.8, not
// 0.7999999999999999.
func TestCanvasPointsPossibleIsTheMaximum(t *testing.T) {
	students, roster := canvasClass()
	p := policy(t, "step_points = 1\n[steps]\n5 = 3\n[checks]\n\"step5.drift_reverted_live\" = 2\n")
	full := result()
	full.Learner = "ada"
	missing := &Result{Learner: "yui", Graded: "missing", StepPassed: make([]bool, 8)}
	var b bytes.Buffer
	if _, err := Canvas(&b, []*Result{full, missing}, p, roster); err != nil {
		t.Fatal(err)
	}
	got := canvasImport(t, b.String(), students, nil)
	if got.id != 0 || got.title != "cnpa lab" || got.possible != "12" || got.grades[101] != "2" || got.grades[105] != "0" {
		t.Errorf("imported %+v, want a new assignment \"cnpa lab\" of 12, ada 2, yui 0\n%s", got, b.String())
	}
	if s := ScoreOf(missing, p); s.Max != 12 || s.Total != 0 {
		t.Errorf("the missing row scores %v of %v, want 0 of 12", s.Total, s.Max)
	}

	tenth := policy(t, "step_points = 0.1\n")
	b.Reset()
	if _, err := Canvas(&b, []*Result{full}, tenth, roster); err != nil {
		t.Fatal(err)
	}
	if got := canvasImport(t, b.String(), students, nil); got.possible != "0.8" || got.grades[101] != "0.2" {
		t.Errorf("step_points 0.1: imported %+v\n%s", got, b.String())
	}
	gs := Gradescope(full, tenth, time.Second)
	var out bytes.Buffer
	WriteGradescope(&out, gs)
	WriteClassroom(&out, Classroom(full, tenth, time.Now()))
	if strings.Contains(out.String(), "99999") || strings.Contains(out.String(), "00000") || !strings.Contains(out.String(), "0.2 of 0.8 points") {
		t.Errorf("fractional points print with float noise:\n%s", out.String())
	}
}

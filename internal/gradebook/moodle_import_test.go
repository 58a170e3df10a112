package gradebook

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// moodleUser is a user of the course Moodle imports into.
type moodleUser struct {
	id              int
	email, idnumber string
}

// moodleImport is Moodle's CSV grade import, ported from its code as the
// review read it (moodle/moodle):
//   - lib/csvlib.class.php, csv_import_reader::load_csv_content: BOM
//     trimmed, \r\n? to \n, trim, fgetcsv; every row must have the
//     header's column count (csvweirdcolumns);
//   - grade/import/csv/classes/load_data.php, prepare_import_grade_data:
//     $this->studentid = null once, before the loop over the lines; a
//     line of one cell or none skipped; each cell trim()med;
//     map_user_data_with_value: for the "Map from" column, only
//     `if (!empty($value))` is the user looked up (check_user_exists:
//     get_record on the field, exact; none is usermappingerror, the
//     whole import aborted), so an empty cell, or "0" (PHP's empty),
//     keeps the previous line's learner; after the line, no learner
//     yet is usermappingerrorusernotfound;
//   - update_grade_item: "" or "-" is no grade, else unformat_float
//     (badgrade when not a number); insert_grade_record refuses a grade
//     above the grade item's maximum of 100 (gradevaluetoobig);
//   - grade/import/lib.php, grade_import_commit: the buffered grades
//     applied in turn, a later one for the same user winning.
//
// mapfrom is the header of the column mapped to mapto ("useremail" or
// "useridnumber"), item the header of the column mapped to the grade
// item. It returns each user's grade, and the error that aborted the
// import ("" when none).
func moodleImport(t *testing.T, file string, users []moodleUser, mapfrom, mapto, item string) (map[int]float64, string) {
	t.Helper()
	text := strings.TrimPrefix(file, "\xef\xbb\xbf")
	text = strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(text)
	text = strings.TrimSpace(text)
	cr := csv.NewReader(strings.NewReader(text))
	cr.FieldsPerRecord = -1
	lines, err := cr.ReadAll()
	if err != nil {
		return nil, "csv: " + err.Error()
	}
	header := lines[0]
	for _, l := range lines[1:] {
		if len(l) != len(header) {
			return nil, "csvweirdcolumns"
		}
	}
	from, to := slices.Index(header, mapfrom), slices.Index(header, item)
	if from < 0 || to < 0 {
		return nil, fmt.Sprintf("no column %q or %q to map in %q", mapfrom, item, header)
	}
	field := map[string]func(moodleUser) string{
		"useremail":    func(u moodleUser) string { return u.email },
		"useridnumber": func(u moodleUser) string { return u.idnumber },
	}[mapto]
	grades := map[int]float64{}
	studentid := 0
	for n, line := range lines[1:] {
		if len(line) <= 1 {
			continue
		}
		var newgrade *float64
		for key, value := range line {
			value = strings.Trim(value, " \t\n\r\x00\x0b")
			switch key {
			case from:
				if value != "" && value != "0" {
					studentid = 0
					for _, u := range users {
						if field(u) == value {
							studentid = u.id
						}
					}
					if studentid == 0 {
						return grades, fmt.Sprintf("line %d: usermappingerror: %q", n+2, value)
					}
				}
			case to:
				if value == "" || value == "-" {
					continue
				}
				v, err := strconv.ParseFloat(value, 64)
				if err != nil {
					return grades, fmt.Sprintf("line %d: badgrade %q", n+2, value)
				}
				if v > 100 {
					return grades, fmt.Sprintf("line %d: gradevaluetoobig", n+2)
				}
				newgrade = &v
			}
		}
		if studentid == 0 {
			return grades, fmt.Sprintf("line %d: usermappingerrorusernotfound", n+2)
		}
		if newgrade != nil {
			grades[studentid] = *newgrade
		}
	}
	return grades, ""
}

// moodleClass is four learners, the third without an email address.
func moodleClass() ([]*Result, *Roster, []moodleUser) {
	var rows []*Result
	for i, name := range []string{"ada", "bob", "cy", "dee"} {
		r := result()
		r.Learner = name
		for j := range r.StepPassed {
			r.StepPassed[j] = j <= i*2
		}
		rows = append(rows, r)
	}
	roster := &Roster{Path: "roster.csv", Columns: []string{ColEmail, ColIDNumber}, Identity: map[string]map[string]string{
		"ada": {ColEmail: "ada@example.org", ColIDNumber: "2026001"},
		"bob": {ColEmail: "bob@example.org", ColIDNumber: "2026002"},
		"cy":  {ColEmail: "", ColIDNumber: "2026003"},
		"dee": {ColEmail: "dee@example.org", ColIDNumber: "2026004"},
	}}
	users := []moodleUser{{11, "ada@example.org", "2026001"}, {12, "bob@example.org", "2026002"}, {13, "", "2026003"}, {14, "dee@example.org", "2026004"}}
	return rows, roster, users
}

// TestMoodleImportNeverMisgrades: a learner with no email address, in a
// roster that also has "ID number", used to be written as ",2026003,…",
// and Moodle, mapped by "Email address", gave that grade to the learner
// on the line above (the review's finding, reproduced by the port on the
// old file). Now only the column every learner fills is written, the
// column left out is said to the instructor, and the import gives every
// learner their own grade.
func TestMoodleImportNeverMisgrades(t *testing.T) {
	rows, roster, users := moodleClass()
	want := map[int]float64{}
	for i, r := range rows {
		want[users[i].id] = ScoreOf(r, nil).Total
	}

	// The port against the file cnpa used to write.
	old := "Email address,ID number,cnpa lab\nada@example.org,2026001,1\nbob@example.org,2026002,3\n,2026003,5\ndee@example.org,2026004,7\n"
	got, abort := moodleImport(t, old, users, ColEmail, "useremail", "cnpa lab")
	if abort != "" || got[12] != 5 || len(got) != 3 {
		t.Fatalf("the port does not reproduce the review's finding (bob given cy's 5, cy nothing): %v %s", got, abort)
	}

	var b bytes.Buffer
	rep, err := Moodle(&b, rows, nil, roster)
	if err != nil {
		t.Fatal(err)
	}
	if head := strings.SplitN(b.String(), "\n", 2)[0]; head != "ID number,cnpa lab" {
		t.Errorf("header %q, want only the column every learner fills: \"ID number,cnpa lab\"", head)
	}
	if len(rep.Left) != 0 || !strings.Contains(strings.Join(rep.Notes, "\n"), `column "Email address" left out: it is empty for cy`) {
		t.Errorf("report: left %v, notes %q; want nothing left and the email column's absence said", rep.Left, rep.Notes)
	}
	got, abort = moodleImport(t, b.String(), users, ColIDNumber, "useridnumber", "cnpa lab")
	if abort != "" || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("imported by ID number: %v %s, want %v\n%s", got, abort, want, b.String())
	}
	if _, abort := moodleImport(t, b.String(), users, ColEmail, "useremail", "cnpa lab"); !strings.Contains(abort, `no column "Email address"`) {
		t.Errorf("the file still offers \"Email address\" to map: %s", abort)
	}

	// Every learner with both: both are written, and either mapping
	// gives every learner their own grade.
	roster.Identity["cy"][ColEmail] = "cy@example.org"
	users[2].email = "cy@example.org"
	b.Reset()
	if _, err := Moodle(&b, rows, nil, roster); err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct{ from, to string }{{ColEmail, "useremail"}, {ColIDNumber, "useridnumber"}} {
		got, abort := moodleImport(t, b.String(), users, m.from, m.to, "cnpa lab")
		if abort != "" || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("imported by %s: %v %s, want %v\n%s", m.from, got, abort, want, b.String())
		}
	}
}

// TestMoodleNoColumnEveryoneFills: when no column is filled for every
// learner, the one most fill is written, the others' rows are left out
// and named with the fix (R4-7: the rest are written), and no grade
// lands on another learner. An identifier Moodle would not match as
// written (starting with - or =) is never prefixed: it is a row left out,
// or the other column is used.
func TestMoodleNoColumnEveryoneFills(t *testing.T) {
	rows, roster, users := moodleClass()
	roster.Identity["ada"][ColIDNumber] = "0" // PHP's empty("0") is true
	roster.Identity["dee"][ColIDNumber] = "-0042"
	users[3].idnumber = "-0042"
	var b bytes.Buffer
	rep, err := Moodle(&b, rows, nil, roster)
	if err != nil {
		t.Fatal(err)
	}
	if head := strings.SplitN(b.String(), "\n", 2)[0]; head != "Email address,cnpa lab" {
		t.Errorf("header %q, want the column most learners fill", head)
	}
	if len(rep.Left) != 1 || !strings.Contains(rep.Left[0].Error(), `learner cy has no "Email address": fill it in`) {
		t.Errorf("left %v, want cy, with the fix", rep.Left)
	}
	got, abort := moodleImport(t, b.String(), users, ColEmail, "useremail", "cnpa lab")
	if abort != "" || len(got) != 3 || got[11] != ScoreOf(rows[0], nil).Total || got[14] != ScoreOf(rows[3], nil).Total {
		t.Errorf("imported: %v %s\n%s", got, abort, b.String())
	}

	// Only "ID number", and dee's starts with -: dee is left out, named,
	// with the fix; nobody's cell is prefixed.
	only := &Roster{Path: "ids.csv", Columns: []string{ColIDNumber}, Identity: map[string]map[string]string{
		"ada": {ColIDNumber: "2026001"}, "bob": {ColIDNumber: "2026002"}, "cy": {ColIDNumber: "2026003"}, "dee": {ColIDNumber: "-0042"}}}
	users[0].idnumber = "2026001"
	b.Reset()
	rep, err = Moodle(&b, rows, nil, only)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Left) != 1 || !strings.Contains(rep.Left[0].Error(), `learner dee: "ID number" is "-0042", which starts with =, +, - or @`) ||
		!strings.Contains(rep.Left[0].Error(), "Moodle matches it as written") || strings.Contains(b.String(), "'-") {
		t.Errorf("left %v\n%s\nwant dee named with the fix, and no cell prefixed", rep.Left, b.String())
	}
	if got, abort := moodleImport(t, b.String(), users, ColIDNumber, "useridnumber", "cnpa lab"); abort != "" || len(got) != 3 {
		t.Errorf("imported: %v %s", got, abort)
	}
}

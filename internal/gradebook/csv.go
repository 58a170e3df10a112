package gradebook

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/ui"
)

// The roster's identity columns an LMS matches a row by: Canvas's
// gradebook export's own names, and Moodle's user fields.
const (
	ColStudent    = "Student"
	ColID         = "ID"
	ColSISUserID  = "SIS User ID"
	ColSISLoginID = "SIS Login ID"
	ColSection    = "Section"
	ColEmail      = "Email address"
	ColIDNumber   = "ID number"
)

// IdentityColumns are every identity column a roster may have, in the
// order the CSVs write them.
var IdentityColumns = []string{ColStudent, ColID, ColSISUserID, ColSISLoginID, ColSection, ColEmail, ColIDNumber}

// CanvasColumns are the columns Canvas's import reads before the
// assignments', in its order.
var CanvasColumns = []string{ColStudent, ColID, ColSISUserID, ColSISLoginID, ColSection}

// MoodleColumns are the identifiers Moodle's import maps a row by
// ("Map from"): a roster needs one of them.
var MoodleColumns = []string{ColEmail, ColIDNumber}

// Roster is the learners' identities by learner name: the columns the
// roster's header has, and each learner's values.
type Roster struct {
	// Path is the roster file, for errors.
	Path     string
	Columns  []string
	Identity map[string]map[string]string
}

// has tells whether the roster has column col.
func (r *Roster) has(col string) bool {
	for _, c := range r.Columns {
		if c == col {
			return true
		}
	}
	return false
}

// identity is learner's identity, or an error naming the learner and
// the fix.
func (r *Roster) identity(learner string) (map[string]string, error) {
	id, ok := r.Identity[learner]
	if !ok {
		return nil, i18n.NewError("gradebook.roster.no_learner", i18n.Args{"Path": r.Path, "Learner": learner})
	}
	return id, nil
}

// Report is what a CSV for an LMS cannot carry: the rows it leaves out,
// and the lines for the instructor alone (the file goes to the LMS,
// which shows learners their grade; these go to stderr).
type Report struct {
	// Left are the rows not written, each an error naming the learner
	// and the fix. The others are written: one learner's problem never
	// withholds the class's grades.
	Left []error
	// Notes are for the instructor: flags, points the learner reported
	// themselves, identity cells left empty, columns left out.
	Notes []string
}

// risky tells whether an identity value cannot be written as it is: a
// spreadsheet would take it for a formula (=, +, -, @, tab, CR first),
// or it holds a control character. The LMS matches identity cells as
// written, so they are never prefixed as other cells are (CSVCell).
func risky(v string) bool {
	return v != "" && (strings.ContainsRune("=+-@\t\r", rune(v[0])) || ui.Clean(v) != v)
}

// canvasIDs are the columns Canvas's importer matches a row by, in the
// order it tries them (GradebookImporter#process_student: ID, then SIS
// User ID, SIS Login ID, then the name).
var canvasIDs = []string{ColID, ColSISUserID, ColSISLoginID, ColStudent}

// Canvas writes the CSV that Canvas's gradebook import reads: Student,
// ID, SIS User ID, SIS Login ID, Section, the assignment's column, and a
// "Points Possible" row first, as Canvas's own export has it, holding
// the assignment's maximum (the policy's, the same for every row). Every
// row's identity comes from the roster. A roster without the columns
// Canvas needs is an error and nothing is written; a learner not on it,
// or with no identity Canvas matches by, is left out (Report.Left) and
// every other row written. An identity cell that cannot be written as it
// is (risky) is left empty when another one matches the row, and said
// in Report.Notes; the row is left out when none does.
func Canvas(w io.Writer, rows []*Result, p *Policy, roster *Roster) (*Report, error) {
	if err := needColumns(roster, CanvasColumns, "canvas"); err != nil {
		return nil, err
	}
	rep := &Report{}
	var table [][]string
	for _, r := range rows {
		id, err := roster.identity(r.Learner)
		if err != nil {
			rep.Left = append(rep.Left, err)
			continue
		}
		cell := map[string]string{}
		var matched bool
		var unsafe []string
		for _, c := range CanvasColumns {
			v := id[c]
			if risky(v) {
				unsafe = append(unsafe, c)
				continue
			}
			cell[c] = v
			matched = matched || (v != "" && slices.Contains(canvasIDs, c))
		}
		switch {
		case !matched && len(unsafe) > 0:
			rep.Left = append(rep.Left, riskyError(roster, r.Learner, unsafe[0], id[unsafe[0]], "gradebook.roster.fix_risky_canvas"))
			continue
		case !matched:
			rep.Left = append(rep.Left, i18n.NewError("gradebook.roster.no_canvas_id", i18n.Args{"Path": roster.Path, "Learner": r.Learner}))
			continue
		}
		for _, c := range unsafe {
			rep.Notes = append(rep.Notes, i18n.T("gradebook.note.emptied", i18n.Args{"Learner": ui.Clean(r.Learner), "Column": strconv.Quote(c),
				"Value": strconv.Quote(ui.Clean(id[c]))}))
		}
		table = append(table, []string{cell[ColStudent], cell[ColID], cell[ColSISUserID], cell[ColSISLoginID], cell[ColSection], fmtPoints(ScoreOf(r, p).Total)})
	}
	if len(table) == 0 {
		return nil, errors.Join(rep.Left...)
	}
	head := append(append([]string{}, CanvasColumns...), CSVCell(p.AssignmentName()))
	possible := []string{"    Points Possible", "", "", "", "", fmtPoints(MaxOf(rows, p))}
	rep.Notes = append(rep.Notes, InstructorNotes(rows, p)...)
	return rep, writeCSV(w, append([][]string{head, possible}, table...))
}

// MaxOf is the class's maximum under p: every row's (ScoreOf gives
// every row one), the largest should a row ever differ.
func MaxOf(rows []*Result, p *Policy) float64 {
	var m float64
	for _, r := range rows {
		m = math.Max(m, ScoreOf(r, p).Max)
	}
	return m
}

func riskyError(roster *Roster, learner, col, v, fix string) error {
	return i18n.NewError("gradebook.roster.risky", i18n.Args{"Path": roster.Path, "Learner": ui.Clean(learner), "Column": strconv.Quote(col),
		"Value": strconv.Quote(ui.Clean(v)), "Fix": i18n.T(fix)})
}

// Moodle writes the CSV that Moodle's grade import reads: the roster's
// identifiers that Moodle maps ("Email address", "ID number") and the
// assignment's column. Moodle's importer gives a row whose mapped cell
// is empty to the row above it (load_data.php keeps the last learner
// found), so a column is written only when every row written fills it:
// when none does, the one most rows fill is written, the rows without
// it are left out (Report.Left), and each column left out is said in
// Report.Notes. A roster with neither column is an error, and nothing is
// written.
func Moodle(w io.Writer, rows []*Result, p *Policy, roster *Roster) (*Report, error) {
	var cols []string
	for _, c := range MoodleColumns {
		if roster != nil && roster.has(c) {
			cols = append(cols, c)
		}
	}
	if len(cols) == 0 {
		return nil, i18n.NewError("gradebook.roster.no_column", i18n.Args{"Path": rosterPath(roster), "Format": "moodle",
			"Columns": strings.Join(quoted(MoodleColumns), i18n.T("gradebook.or"))})
	}
	rep := &Report{}
	var on []*Result
	for _, r := range rows {
		if _, err := roster.identity(r.Learner); err != nil {
			rep.Left = append(rep.Left, err)
			continue
		}
		on = append(on, r)
	}
	// fills: Moodle looks a learner up only `if (!empty($value))`, and
	// PHP's empty() is true for "0" too.
	fills := func(r *Result, c string) bool {
		v := roster.Identity[r.Learner][c]
		return v != "" && v != "0" && !risky(v)
	}
	// count is how many rows fill each column; the columns every row
	// fills are written, or else the one most rows fill.
	count := map[string]int{}
	for _, r := range on {
		for _, c := range cols {
			if fills(r, c) {
				count[c]++
			}
		}
	}
	var written []string
	for _, c := range cols {
		if count[c] == len(on) {
			written = append(written, c)
		}
	}
	if len(written) == 0 {
		best := cols[0]
		for _, c := range cols {
			if count[c] > count[best] {
				best = c
			}
		}
		written = []string{best}
	}
	var others []string
	for _, c := range cols {
		if !slices.Contains(written, c) {
			others = append(others, c)
		}
	}
	table := [][]string{append(append([]string{}, written...), CSVCell(p.AssignmentName()))}
	for _, r := range on {
		id := roster.Identity[r.Learner]
		row := []string{}
		for _, c := range written {
			v := id[c]
			switch {
			case v == "" || v == "0":
				rep.Left = append(rep.Left, i18n.NewError("gradebook.roster.empty_cell", i18n.Args{"Path": roster.Path, "Learner": r.Learner,
					"Columns": strconv.Quote(c)}))
			case risky(v):
				rep.Left = append(rep.Left, riskyError(roster, r.Learner, c, v, "gradebook.roster.fix_risky_moodle"))
			}
			row = append(row, v)
		}
		if len(row) == len(written) && fillsAll(r, written, fills) {
			table = append(table, append(row, fmtPoints(ScoreOf(r, p).Total)))
		}
	}
	for _, c := range others {
		var without []string
		for _, r := range on {
			if !fills(r, c) {
				without = append(without, ui.Clean(r.Learner))
			}
		}
		rep.Notes = append(rep.Notes, i18n.T("gradebook.note.column_left_out", i18n.Args{"Column": strconv.Quote(c),
			"Learners": strings.Join(without, ", "), "Written": strings.Join(quoted(written), i18n.T("gradebook.or"))}))
	}
	if len(table) == 1 {
		return nil, errors.Join(rep.Left...)
	}
	rep.Notes = append(rep.Notes, i18n.T("gradebook.note.moodle_max", i18n.Args{"Max": fmtPoints(MaxOf(rows, p)), "Assignment": p.AssignmentName()}))
	rep.Notes = append(rep.Notes, InstructorNotes(rows, p)...)
	return rep, writeCSV(w, table)
}

func fillsAll(r *Result, cols []string, fills func(*Result, string) bool) bool {
	for _, c := range cols {
		if !fills(r, c) {
			return false
		}
	}
	return true
}

func needColumns(roster *Roster, cols []string, format string) error {
	var missing []string
	for _, c := range cols {
		if roster == nil || !roster.has(c) {
			missing = append(missing, c)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return i18n.NewError("gradebook.roster.missing_columns", i18n.Args{"Path": rosterPath(roster), "Format": format,
		"Columns": strings.Join(quoted(missing), ", "), "Header": strings.Join(append([]string{"learner"}, cols...), ",")})
}

func rosterPath(r *Roster) string {
	if r == nil {
		return "--roster"
	}
	return r.Path
}

func quoted(cs []string) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = strconv.Quote(c)
	}
	return out
}

// writeCSV writes the table as it is, all at once: an error leaves w as
// it was. Its cells are identities checked by risky, CSVCell'd headers,
// and points.
func writeCSV(w io.Writer, table [][]string) error {
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	for _, row := range table {
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

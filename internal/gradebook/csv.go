package gradebook

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/labhub/cnpa/internal/i18n"
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

// Canvas writes the CSV that Canvas's gradebook import reads: Student,
// ID, SIS User ID, SIS Login ID, Section, the assignment's column, and a
// "Points Possible" row first, as Canvas's own export has it. Every
// row's identity comes from the roster: one without the columns Canvas
// needs, a learner not on it, or one with none of Student, ID and SIS
// User ID, is an error naming the column or the learner, and nothing is
// written.
func Canvas(w io.Writer, rows []*Result, p *Policy, roster *Roster) error {
	if err := needColumns(roster, CanvasColumns, "canvas"); err != nil {
		return err
	}
	var errs []error
	var table [][]string
	var max float64
	for _, r := range rows {
		id, err := roster.identity(r.Learner)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		// Canvas matches a row by its name, ID or SIS User ID: one will do.
		if id[ColStudent] == "" && id[ColID] == "" && id[ColSISUserID] == "" {
			errs = append(errs, i18n.NewError("gradebook.roster.no_canvas_id", i18n.Args{"Path": roster.Path, "Learner": r.Learner}))
			continue
		}
		s := ScoreOf(r, p)
		max = s.Max
		table = append(table, []string{id[ColStudent], id[ColID], id[ColSISUserID], id[ColSISLoginID], id[ColSection], fmtPoints(s.Total)})
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	head := append(append([]string{}, CanvasColumns...), p.AssignmentName())
	possible := []string{"    Points Possible", "", "", "", "", fmtPoints(max)}
	return writeCSV(w, append([][]string{head, possible}, table...))
}

// Moodle writes the CSV that Moodle's grade import reads: the roster's
// identifiers that Moodle maps (Email address, ID number: whichever the
// roster has) and the assignment's column. A
// roster with neither is an error naming them, and nothing is written.
func Moodle(w io.Writer, rows []*Result, p *Policy, roster *Roster) error {
	var ids []string
	for _, c := range MoodleColumns {
		if roster != nil && roster.has(c) {
			ids = append(ids, c)
		}
	}
	if len(ids) == 0 {
		return i18n.NewError("gradebook.roster.no_column", i18n.Args{"Path": rosterPath(roster), "Format": "moodle",
			"Columns": strings.Join(quoted(MoodleColumns), i18n.T("gradebook.or"))})
	}
	var errs []error
	table := [][]string{append(append([]string{}, ids...), p.AssignmentName())}
	for _, r := range rows {
		id, err := roster.identity(r.Learner)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		row := []string{}
		empty := true
		for _, c := range ids {
			row = append(row, id[c])
			empty = empty && id[c] == ""
		}
		if empty {
			errs = append(errs, i18n.NewError("gradebook.roster.empty_cell", i18n.Args{"Path": roster.Path, "Learner": r.Learner,
				"Columns": strings.Join(quoted(ids), i18n.T("gradebook.or"))}))
			continue
		}
		table = append(table, append(row, fmtPoints(ScoreOf(r, p).Total)))
	}
	if len(errs) > 0 {
		return errors.Join(errs...)
	}
	return writeCSV(w, table)
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

// writeCSV writes the table, every cell neutralised (CSVCell), all at
// once: an error leaves w as it was.
func writeCSV(w io.Writer, table [][]string) error {
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	for _, row := range table {
		for i := range row {
			row[i] = CSVCell(row[i])
		}
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

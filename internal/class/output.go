package class

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/labhub/cnpa/internal/gradebook"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/ui"
)

// CSVHeader is the gradebook's CSV columns. The first eight are the
// contract an LMS import reads; the ones after may grow. The last are
// one per step of the table (step1 … step8).
var CSVHeader = append([]string{"learner", "steps_passed", "checks_passed", "checks_total", "first_failing_step", "diagnosis", "flags", "graded",
	"graded_detail", "cnpa_version", "submitted_at", "cluster"}, stepColumns()...)

// stepColumns are the CSV's columns of the steps, one each, in lab order.
func stepColumns() []string {
	var out []string
	for _, s := range course.Lab() {
		out = append(out, fmt.Sprintf("step%d", s.Number))
	}
	return out
}

// FlagList is the learner's flags as the CSV cell holds them: kind or
// kind:with, separated by "; ".
func (l *Learner) FlagList() string {
	var out []string
	for _, f := range l.Flags {
		out = append(out, f.String())
	}
	return strings.Join(out, "; ")
}

// WriteCSV writes one row per learner under CSVHeader; a file lab's
// step columns are its steps' ids.
func WriteCSV(w io.Writer, gb *Gradebook) error {
	cw := csv.NewWriter(w)
	header := CSVHeader
	if gb.stepIDs != nil {
		header = append(slices.Clone(CSVHeader[:len(CSVHeader)-Steps]), gb.stepIDs...)
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for _, l := range gb.Learners {
		first := ""
		if l.FirstFailingStep > 0 {
			first = strconv.Itoa(l.FirstFailingStep)
		}
		row := []string{l.Name, strconv.Itoa(l.StepsPassed), strconv.Itoa(l.ChecksPassed), strconv.Itoa(l.ChecksTotal), first,
			l.Diagnosis, l.FlagList(), l.Graded, l.GradedDetail, l.CnpaVersion, l.SubmittedAt, l.Cluster}
		for _, ok := range l.StepPassed {
			row = append(row, map[bool]string{true: "pass", false: "fail"}[ok])
		}
		for i := range row {
			row[i] = csvCell(row[i])
		}
		if err := cw.Write(row); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvCell is a value as a gradebook cell: gradebook.CSVCell, the one
// home of the rule, shared with the LMS's CSVs.
func csvCell(v string) string { return gradebook.CSVCell(v) }

// WriteJSON writes the gradebook as indented JSON; its shape is stable.
func WriteJSON(w io.Writer, gb *Gradebook) error { return ui.WriteJSON(w, gb) }

// WriteJUnit writes one testsuite per learner and one testcase per check;
// a learner with no submission is a suite with one failing testcase, and
// an unverified one has a failing "live grading" testcase and its checks
// skipped.
func WriteJUnit(w io.Writer, gb *Gradebook) error {
	doc := judge.JUnitSuites{Name: "cnpa class grade"}
	for _, l := range gb.Learners {
		var cases []judge.JUnitCase
		if l.Graded == GradedMissing {
			cases = append(cases, judge.JUnitCase{Name: "submission", ClassName: "cnpa.class." + l.Name,
				Failure: &judge.JUnitFailure{Type: "missing", Message: i18n.T("class.no_submission"), Text: i18n.T("class.no_submission_roster")}})
		}
		verified := l.Verified()
		if !verified {
			cases = append(cases, judge.JUnitCase{Name: i18n.T("class.junit_live"), ClassName: "cnpa.class." + l.Name,
				Failure: &judge.JUnitFailure{Type: FlagUnverified, Message: l.Graded, Text: l.GradedDetail}})
		}
		for _, c := range l.Checks {
			tc := judge.JUnitOf(c, fmt.Sprintf("cnpa.class.%s.step%d", l.Name, c.Step), true)
			if !verified {
				// The submission's own claim: neither a pass nor a failure.
				tc.Failure, tc.Skipped = nil, &judge.JUnitSkipped{Message: FlagUnverified + ": " + i18n.T("class.as_claimed", i18n.Args{"Status": string(c.Status)})}
			}
			cases = append(cases, tc)
		}
		doc.Add(l.Name, cases)
	}
	return judge.WriteJUnitDoc(w, doc)
}

// WriteText prints the gradebook for people: one line per learner, then
// the pass rate per step, the histogram of diagnoses, and every flag.
func WriteText(p *ui.Printer, gb *Gradebook) {
	if gb.Lab != nil {
		p.Note("%s", i18n.T("class.lab.graded_with", i18n.Args{"Lab": gb.Lab.Name, "Hash": shortHash(gb.Lab.SHA256)}))
	}
	p.Title("%s", i18n.N("plural.class.learners", len(gb.Learners)))
	for _, l := range gb.Learners {
		first := i18n.T("class.all_pass")
		switch {
		case !l.Verified():
			first = FlagUnverified
		case l.FirstFailingStep > 0:
			first = i18n.T("class.first_failing", i18n.Args{"N": l.FirstFailingStep})
		}
		// Every value a learner or their server wrote (a name, a title
		// turned diagnosis, an error's message) goes through ui.Clean: data
		// on the instructor's terminal, never a command.
		line := fmt.Sprintf("  %s %s %s  %s  %-11s %s", p.Mark(l.FirstFailingStep == 0 && len(l.Flags) == 0), ui.Pad(ui.Clean(l.Name), 16),
			i18n.T("class.line.steps", i18n.Args{"Passed": l.StepsPassed, "Steps": gb.Steps()}),
			i18n.T("class.line.checks", i18n.Args{"Passed": fmt.Sprintf("%3d", l.ChecksPassed), "Total": fmt.Sprintf("%-3d", l.ChecksTotal)}),
			l.Graded, first)
		if l.Diagnosis != "" {
			line += ": " + ui.Clean(gb.SayDiagnosis(l.Diagnosis))
		}
		if l.Exam {
			line += " (" + i18n.T("gradebook.exam") + ")"
		}
		p.Line("%s", line)
		if l.GradedDetail != "" && l.Graded != GradedMissing {
			p.Note("      %s", ui.Clean(l.GradedDetail))
		}
		for _, f := range l.Flags {
			p.Warn("      ⚑ %s: %s", ui.Clean(f.String()), ui.Clean(f.Detail))
		}
	}
	p.Line("")
	p.Title("%s", i18n.T("class.pass_rate"))
	var rates []string
	for i, r := range gb.StepPassRate {
		rates = append(rates, fmt.Sprintf("%d: %.0f%%", i+1, 100*r))
	}
	p.Line("  %s", strings.Join(rates, "  "))
	if len(gb.Diagnoses) > 0 {
		p.Line("")
		p.Title("%s", i18n.T("class.diagnoses"))
		for _, d := range gb.Diagnoses {
			p.Line("  %s: %s (%s)", i18n.N("plural.class.learners", len(d.Learners)), ui.Clean(gb.SayDiagnosis(d.Diagnosis)), ui.Clean(strings.Join(d.Learners, ", ")))
		}
	}
	// What an offline row proves, and what its hash does not.
	for _, l := range gb.Learners {
		if l.Graded == GradedOffline {
			p.Line("")
			if gb.Lab != nil {
				p.Note("%s", i18n.T("class.lab.note_hash"))
			} else {
				p.Note("%s", i18n.T("gradebook.note.hash"))
			}
			break
		}
	}
}

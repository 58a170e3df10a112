package judge

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/ui"
)

// WriteText prints the report for people: grouped by step, ✓ or ✗ and the
// id with what was found; for a failure also what was expected and the
// hint; then the summary line "N passed, M failed". The words are the
// chosen language's; ids, values and commands are as they are.
func WriteText(p *ui.Printer, r *Report) {
	found, expected, note := i18n.T("check.label.found"), i18n.T("check.label.expected"), i18n.T("check.label.note")
	step := 0
	for _, c := range r.Checks {
		if c.Step != step {
			if step != 0 {
				p.Line("")
			}
			step = c.Step
			title := ""
			if heading, ok := lab.Heading(step); ok {
				title = " — " + heading
			}
			p.Title("%s%s", i18n.T("check.step", i18n.Args{"N": step}), title)
		}
		switch c.Status {
		case Pass:
			p.Line("%s", row(p.Mark(true), c.ID, c.Actual))
			if c.Note != "" {
				p.Note("%s", prose("      "+note+" ", c.Note))
			}
		case Fail:
			p.Line("%s", row(p.Mark(false), c.ID, c.Title))
			p.Line("%s", prose("      "+found+" ", c.Actual))
			p.Line("%s", prose("      "+expected+" ", c.Expected))
			if c.Hint != "" {
				p.Warn("%s", prose("      → ", c.Hint))
			}
		case Note:
			p.Line("%s", row(p.Accent("i"), c.ID, c.Title))
			p.Line("%s", prose("      "+found+" ", c.Actual))
			p.Note("%s", prose("      "+note+" ", c.Note))
		case Skip:
			p.Note("%s", row("-", c.ID, c.Actual))
		}
	}
	if len(r.Checks) > 0 {
		p.Line("")
	}
	summary := i18n.T("check.summary", i18n.Args{"Passed": r.Passed, "Failed": r.Failed})
	if r.Skipped > 0 {
		summary += i18n.T("check.summary_skipped", i18n.Args{"Skipped": r.Skipped})
	}
	if r.Notes > 0 {
		summary += i18n.N("plural.check.summary_notes", r.Notes)
	}
	p.Title("%s", summary)
	switch {
	case r.StressPoints > 0:
		p.Line("")
		p.Title("%s", i18n.T("stress.check_heading_counted", i18n.Args{"Points": strconv.FormatFloat(r.StressPoints, 'f', -1, 64)}))
		if r.Stress == nil {
			p.Line("  %s", i18n.T("stress.check_none"))
			break
		}
		WriteStressText(p, r.Stress)
	case r.Stress != nil:
		p.Line("")
		p.Title("%s", i18n.T("stress.check_heading"))
		WriteStressText(p, r.Stress)
	}
}

// prose is a hint, a note or a value after its label, wrapped to 80
// display columns in every language, the next lines under the text
// (issue 57: a quoted log line made a row of 572 columns).
func prose(label, text string) string {
	return ui.Indent(label, strings.Repeat(" ", ui.Width(label)), text, ui.Cols)
}

// idColumn is the column a check's id is padded to.
const idColumn = 36

// row is a check's line: its mark, its id in its column, then text,
// wrapped to 80 columns under itself; an id wider than its column puts
// the text on the lines below.
func row(mark, id, text string) string {
	if ui.Width(id) > idColumn {
		return "  " + mark + " " + id + "\n" + prose(strings.Repeat(" ", 6), text)
	}
	head := "  " + mark + " " + ui.Pad(id, idColumn) + " "
	plain := 4 + idColumn + 1 // the mark is one column, whatever its colour
	lines := strings.Split(ui.Wrap(text, ui.Cols-plain), "\n")
	for _, l := range lines {
		if ui.Width(l) > ui.Cols-plain {
			// A piece wider than the column (a label, a path): the
			// text goes under the id, where a line has room for it.
			return "  " + mark + " " + id + "\n" + prose(strings.Repeat(" ", 6), text)
		}
	}
	for i := 1; i < len(lines); i++ {
		lines[i] = strings.Repeat(" ", plain) + lines[i]
	}
	return head + strings.Join(lines, "\n")
}

// WriteJSON writes the report as indented JSON; its shape is stable.
func WriteJSON(w io.Writer, r *Report) error {
	return ui.WriteJSON(w, r)
}

// JUnit types: the subset of the JUnit XML format CI systems read.
type (
	// JUnitSuites is the document root.
	JUnitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Suites   []JUnitSuite `xml:"testsuite"`
	}
	// JUnitSuite is one lab step (`cnpa check`) or one learner (`cnpa
	// class grade`).
	JUnitSuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Skipped  int         `xml:"skipped,attr"`
		Cases    []JUnitCase `xml:"testcase"`
	}
	// JUnitCase is one check.
	JUnitCase struct {
		Name      string        `xml:"name,attr"`
		ClassName string        `xml:"classname,attr"`
		Failure   *JUnitFailure `xml:"failure,omitempty"`
		Skipped   *JUnitSkipped `xml:"skipped,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	// JUnitFailure carries expected, found and the hint.
	JUnitFailure struct {
		Message string `xml:"message,attr"`
		Type    string `xml:"type,attr"`
		Text    string `xml:",chardata"`
	}
	// JUnitSkipped says why a check did not run.
	JUnitSkipped struct {
		Message string `xml:"message,attr"`
	}
)

// JUnitOf is one check as a testcase of class className. withDiagnosis
// adds the check's diagnosis to a failure's text, and says when the check
// is as the learner's run reported it (`cnpa class grade`).
func JUnitOf(c Check, className string, withDiagnosis bool) JUnitCase {
	tc := JUnitCase{Name: c.ID, ClassName: className, SystemOut: c.Title + ": " + c.Actual}
	if withDiagnosis && c.AsReported {
		tc.SystemOut += i18n.T("check.junit.as_reported")
	}
	switch c.Status {
	case Fail:
		text := i18n.T("check.junit.failure", i18n.Args{"Found": c.Actual, "Expected": c.Expected, "Hint": c.Hint})
		if withDiagnosis {
			// The diagnosis is the mistake's name, an id as the JSON has it.
			text += "\n" + i18n.T("check.junit.diagnosis", i18n.Args{"Name": c.Diagnosis.Name})
		}
		tc.Failure = &JUnitFailure{Type: "fail", Message: c.Title, Text: text}
	case Skip:
		tc.Skipped = &JUnitSkipped{Message: c.Actual}
	case Note:
		// A passing testcase: the lab text does not ask for it.
		tc.SystemOut += "\n" + i18n.T("check.label.note") + " " + c.Note
	}
	return tc
}

// Add appends a suite of testcases, counting them into the suite and the
// document.
func (doc *JUnitSuites) Add(name string, cases []JUnitCase) {
	s := JUnitSuite{Name: name, Cases: cases}
	for _, c := range cases {
		s.Tests++
		if c.Failure != nil {
			s.Failures++
		}
		if c.Skipped != nil {
			s.Skipped++
		}
	}
	doc.Tests += s.Tests
	doc.Failures += s.Failures
	doc.Skipped += s.Skipped
	doc.Suites = append(doc.Suites, s)
}

// ToJUnit turns the report into one testsuite per step and one testcase
// per check.
func ToJUnit(r *Report) JUnitSuites {
	doc := JUnitSuites{Name: "cnpa check"}
	var steps []int
	byStep := map[int][]JUnitCase{}
	for _, c := range r.Checks {
		if _, ok := byStep[c.Step]; !ok {
			steps = append(steps, c.Step)
		}
		byStep[c.Step] = append(byStep[c.Step], JUnitOf(c, fmt.Sprintf("cnpa.step%d", c.Step), false))
	}
	for _, n := range steps {
		doc.Add(fmt.Sprintf("step%d", n), byStep[n])
	}
	return doc
}

// WriteJUnit writes the report as JUnit XML.
func WriteJUnit(w io.Writer, r *Report) error { return WriteJUnitDoc(w, ToJUnit(r)) }

// WriteJUnitDoc writes a JUnit document: `cnpa check`'s and `cnpa class
// grade`'s.
func WriteJUnitDoc(w io.Writer, doc JUnitSuites) error {
	data, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

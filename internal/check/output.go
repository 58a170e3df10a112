package check

import (
	"encoding/xml"
	"fmt"
	"io"

	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/ui"
)

// WriteText prints the report for people: grouped by step, ✓ or ✗ and the
// id with what was found; for a failure also what was expected and the
// hint; then the summary line "N passed, M failed".
func WriteText(p *ui.Printer, r *Report) {
	step := 0
	for _, c := range r.Checks {
		if c.Step != step {
			if step != 0 {
				p.Line("")
			}
			step = c.Step
			title := ""
			if s, err := lab.Get(step); err == nil {
				title = " — " + s.Title
			}
			p.Title("Step %d%s", step, title)
		}
		switch c.Status {
		case Pass:
			p.Line("  %s %-36s %s", p.Mark(true), c.ID, c.Actual)
			if c.Note != "" {
				p.Note("      note: %s", c.Note)
			}
		case Fail:
			p.Line("  %s %-36s %s", p.Mark(false), c.ID, c.Title)
			p.Line("      found:    %s", c.Actual)
			p.Line("      expected: %s", c.Expected)
			if c.Hint != "" {
				p.Warn("      → %s", c.Hint)
			}
		case Note:
			p.Line("  %s %-36s %s", p.Accent("i"), c.ID, c.Title)
			p.Line("      found:    %s", c.Actual)
			p.Note("      note: %s", c.Note)
		case Skip:
			p.Note("  - %-36s %s", c.ID, c.Actual)
		}
	}
	if len(r.Checks) > 0 {
		p.Line("")
	}
	summary := fmt.Sprintf("%d passed, %d failed", r.Passed, r.Failed)
	if r.Skipped > 0 {
		summary += fmt.Sprintf(", %d not checked", r.Skipped)
	}
	if r.Notes > 0 {
		summary += fmt.Sprintf(", %s (not failures: LAB.md does not ask for them)", plural(r.Notes, "note"))
	}
	p.Title("%s", summary)
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
	// JUnitSuite is one lab step.
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

// ToJUnit turns the report into one testsuite per step and one testcase
// per check.
func ToJUnit(r *Report) JUnitSuites {
	doc := JUnitSuites{Name: "cnpa check", Tests: len(r.Checks), Failures: r.Failed, Skipped: r.Skipped}
	index := map[int]int{}
	for _, c := range r.Checks {
		i, ok := index[c.Step]
		if !ok {
			i = len(doc.Suites)
			index[c.Step] = i
			doc.Suites = append(doc.Suites, JUnitSuite{Name: fmt.Sprintf("step%d", c.Step)})
		}
		s := &doc.Suites[i]
		tc := JUnitCase{Name: c.ID, ClassName: fmt.Sprintf("cnpa.step%d", c.Step), SystemOut: c.Title + ": " + c.Actual}
		s.Tests++
		switch c.Status {
		case Fail:
			s.Failures++
			tc.Failure = &JUnitFailure{Type: "fail", Message: c.Title,
				Text: fmt.Sprintf("found:    %s\nexpected: %s\nhint:     %s", c.Actual, c.Expected, c.Hint)}
		case Skip:
			s.Skipped++
			tc.Skipped = &JUnitSkipped{Message: c.Actual}
		case Note:
			// A passing testcase: LAB.md does not ask for it.
			tc.SystemOut += "\nnote: " + c.Note
		}
		s.Cases = append(s.Cases, tc)
	}
	return doc
}

// WriteJUnit writes the report as JUnit XML.
func WriteJUnit(w io.Writer, r *Report) error {
	data, err := xml.MarshalIndent(ToJUnit(r), "", "  ")
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}

// plural is "1 note", "2 notes".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

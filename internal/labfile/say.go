package labfile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/labhub/cnpa/internal/atomicfile"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/ui"
)

// Words are said in the learner's language when the lab speaks it, else
// in the lab's first: the language is a value each call is given.

// Speaks is the language of the lab's words for a reader of lang.
func (l *Lab) Speaks(lang i18n.Lang) string {
	if contains(l.Languages, string(lang)) {
		return string(lang)
	}
	return l.Languages[0]
}

// Word is the lab's text id in lang.
func (l *Lab) Word(lang i18n.Lang, id string) string {
	return strings.TrimSpace(l.Words[l.Speaks(lang)][id])
}

// Title is the lab's title in lang.
func (l *Lab) Title(lang i18n.Lang) string { return l.Metadata.Title[l.Speaks(lang)] }

// Hints counts, per check, the gradings it failed in an evidence dir: a
// failing check's first hint is a nudge, and each later failure shows
// one more, the answer last.
type Hints map[string]int

// hintsFile is where Hints are kept in the evidence dir.
func hintsFile(dir, lab string) string {
	return filepath.Join(dir, ".cnpa", "hints-"+lab+".json")
}

// LoadHints reads the hints shown so far in dir; none when there are none
// or the file is unreadable (a count lost costs a nudge shown again).
func LoadHints(dir, lab string) Hints {
	h := Hints{}
	if data, err := os.ReadFile(hintsFile(dir, lab)); err == nil {
		_ = json.Unmarshal(data, &h)
	}
	return h
}

// Count counts rep's failures in h and keeps it in dir.
func (h Hints) Count(dir, lab string, rep *Report) error {
	for _, s := range rep.Steps {
		for _, c := range s.Checks {
			if c.Status == Fail && len(c.Hints) > 0 {
				h[c.Check]++
			}
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, ".cnpa"), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteJSON(hintsFile(dir, lab), h)
}

// WriteText prints rep for a reader of lang: each step's heading (unless
// bare: `cnpa step` has said it), each check's mark and title, and for one that fails what was found, what was
// expected, the mistake it likely shows and its hints as far as h has
// reached (one, at least).
func (l *Lab) WriteText(p *ui.Printer, lang i18n.Lang, rep *Report, h Hints, bare bool) {
	var passed, failed, skipped int
	for _, s := range rep.Steps {
		if !bare {
			p.Title("%s", l.Heading(lang, s.Step))
		}
		for _, c := range s.Checks {
			title := l.Word(lang, c.Check)
			switch c.Status {
			case Pass:
				passed++
				p.Line("  %s %s", p.Mark(true), title)
				continue
			case Skip:
				skipped++
				p.Line("  %s %s", p.Faint("–"), title)
			default:
				failed++
				p.Line("  %s %s", p.Mark(false), title)
			}
			if c.Reason != "" {
				p.Line("%s", ui.Indent("      ", "      ", lang.T(c.Reason, c.Args), ui.Cols))
			}
			if c.Status == Skip {
				continue
			}
			if c.Reason == "" || c.Reason == "labfile.reason.eval" {
				p.Line("      %s %s", lang.T("check.label.found"), ui.Clean(c.Got))
				p.Line("      %s %s", lang.T("check.label.expected"), ui.Clean(c.Want))
			}
			if c.Mistake != "" {
				p.Line("%s", ui.Indent("      ", "      ", lang.T("labfile.out.mistake", i18n.Args{"Mistake": l.Word(lang, c.Mistake)}), ui.Cols))
			}
			shown := min(max(h[c.Check], 1), len(c.Hints))
			for i, id := range c.Hints[:shown] {
				label := lang.T("labfile.out.hint")
				if i == len(c.Hints)-1 && i > 0 {
					label = lang.T("labfile.out.answer")
				}
				p.Line("%s", ui.Indent("      "+label+" ", strings.Repeat(" ", 7+ui.Width(label)), l.Word(lang, id), ui.Cols))
			}
		}
		p.Line("")
	}
	p.Line("%s", lang.T("labfile.out.summary", i18n.Args{"Passed": passed, "Failed": failed, "Skipped": skipped}))
}

// Heading is step id's heading in lang: its number and title.
func (l *Lab) Heading(lang i18n.Lang, id string) string {
	return lang.T("labfile.out.step", i18n.Args{"N": l.StepIndex(id) + 1, "Title": l.Word(lang, id)})
}

// JSONReport is a report as -o json writes it: ids, statuses and values
// as graded, with the words of the reader's language beside them.
type JSONReport struct {
	Lab   string     `json:"lab"`
	OK    bool       `json:"ok"`
	Steps []JSONStep `json:"steps"`
}

// JSONStep is one step of a JSONReport.
type JSONStep struct {
	Step   string      `json:"step"`
	Title  string      `json:"title"`
	Checks []JSONCheck `json:"checks"`
}

// JSONCheck is one check of a JSONReport.
type JSONCheck struct {
	Result
	Title  string   `json:"title"`
	Said   string   `json:"said,omitempty"`
	Advice []string `json:"advice,omitempty"`
}

// JSON is rep as -o json writes it, worded in lang.
func (l *Lab) JSON(lang i18n.Lang, rep *Report, h Hints) JSONReport {
	out := JSONReport{Lab: rep.Lab, OK: rep.OK()}
	for _, s := range rep.Steps {
		js := JSONStep{Step: s.Step, Title: l.Word(lang, s.Step)}
		for _, c := range s.Checks {
			jc := JSONCheck{Result: c, Title: l.Word(lang, c.Check)}
			if c.Reason != "" {
				jc.Said = lang.T(c.Reason, c.Args)
			}
			if c.Status == Fail {
				for _, id := range c.Hints[:min(max(h[c.Check], 1), len(c.Hints))] {
					jc.Advice = append(jc.Advice, l.Word(lang, id))
				}
			}
			js.Checks = append(js.Checks, jc)
		}
		out.Steps = append(out.Steps, js)
	}
	return out
}

// SayOutcome is one run of a case, as `cnpa lab test` prints it.
func SayOutcome(lang i18n.Lang, o Outcome) string {
	if o.OK {
		return lang.T("labfile.out.case_ok", i18n.Args{"Case": o.Case, "Run": o.Run})
	}
	return lang.T("labfile.out.case_fail", i18n.Args{"Case": o.Case, "Run": o.Run, "Why": lang.T(o.Why, o.Args)})
}

// Range is the step numbers `cnpa step N` takes, as a message says them.
func (l *Lab) Range() string { return fmt.Sprintf("1..%d", len(l.Steps)) }

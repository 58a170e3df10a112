package watch

import (
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/ui"
)

// Columns is the widest line watch prints, in display columns (a wide
// character counts two), in every language.
const Columns = 80

// fit is prefix then body in lines of at most cols display columns, the
// lines after the first starting with indent: body is broken where
// ui.Wrap breaks (spaces, between wide characters), to the width left by
// the wider of prefix and indent, and a run with no break in it (a uid, a
// path) is cut where the width ends. body is cleaned first (ui.CleanLines):
// it may carry the API server's error text or a cluster value, and every
// line of the screen and of the plain output passes here (R4-6).
func fit(prefix, body string, cols int, indent string) []string {
	body = ui.CleanLines(body)
	if ui.Width(prefix+body) <= cols && !strings.Contains(body, "\n") {
		return []string{prefix + body}
	}
	w := cols - max(ui.Width(prefix), ui.Width(indent))
	var lines []string
	for _, l := range strings.Split(ui.Wrap(body, w), "\n") {
		for ui.Width(l) > w {
			head, rest := cut(l, w)
			lines = append(lines, head)
			l = rest
		}
		lines = append(lines, l)
	}
	out := []string{prefix + lines[0]}
	for _, l := range lines[1:] {
		out = append(out, indent+l)
	}
	return out
}

// cut splits l after cols display columns.
func cut(l string, cols int) (string, string) {
	w := 0
	for i, r := range l {
		rw := ui.Width(string(r))
		if w+rw > cols {
			return l[:i], l[i:]
		}
		w += rw
	}
	return l, ""
}

// View is how a model is drawn: where the learner works (the commands of
// a hint use their paths) and the colours.
type View struct {
	Dir   string
	Where lab.Where
	P     *ui.Printer
}

// The marks, plain: each one display column wide. paint colours them
// once a line is fitted, so that colour codes never count as columns.
const (
	markPass = "✓"
	markFail = "✗"
	markTodo = "·"
	markNote = "i"
	markSkip = "-"
)

func stepMark(s StepStatus) string {
	switch s {
	case Passed:
		return markPass
	case Failed:
		return markFail
	}
	return markTodo
}

func checkMark(s judge.Status) string {
	switch s {
	case judge.Pass:
		return markPass
	case judge.Fail:
		return markFail
	case judge.Note:
		return markNote
	}
	return markSkip
}

// paint colours the marks of a fitted line; a step's todo mark is the
// one after its number (a "·" elsewhere separates words).
func (v *View) paint(l string) string {
	l = strings.NewReplacer(markPass, v.P.Mark(true), markFail, v.P.Mark(false)).Replace(l)
	return todoMark.ReplaceAllString(l, "${1}"+v.P.Faint(markTodo))
}

// todoMark is a step's number followed by its todo mark, on the progress
// line and in the list.
var todoMark = regexp.MustCompile(`([1-9]|[>] |^  )` + markTodo)

// progress is the line of the 8 steps: each number with its mark, the
// current one in brackets, and how many pass.
func (v *View) progress(m *Model) string {
	var b strings.Builder
	for _, s := range m.steps {
		open, shut := " ", " "
		if s.Number == m.Current {
			open, shut = "[", "]"
		}
		fmt.Fprintf(&b, "%s%d%s%s", open, s.Number, stepMark(m.Status(s.Number)), shut)
	}
	return i18n.T("watch.progress", i18n.Args{"Steps": b.String(), "Done": m.Done(), "Total": len(m.steps)})
}

// Screen is the whole screen for m, one string a line, each at most
// Columns wide: the heading, the progress, the current step's checks (or
// the list of steps), the hint, the notices and the keys.
func (v *View) Screen(m *Model) []string {
	var out []string
	add := func(prefix, body, indent string) {
		for _, l := range fit(prefix, body, Columns, indent) {
			out = append(out, v.paint(l))
		}
	}
	add("", i18n.T("watch.title", i18n.Args{"Dir": v.Dir}), "  ")
	add("", v.progress(m), "")
	out = append(out, "")
	switch {
	case m.List:
		add("", i18n.T("watch.list.heading"), "")
		for _, s := range m.steps {
			cur := " "
			if s.Number == m.Current {
				cur = ">"
			}
			add(fmt.Sprintf("%s %s %d  ", cur, stepMark(m.Status(s.Number)), s.Number), s.Heading(), "       ")
		}
	default:
		out = append(out, v.stepLines(m)...)
	}
	if m.Hint > 0 && !m.List {
		out = append(out, "")
		out = append(out, v.hintLines(m)...)
	}
	if m.Down != "" || len(m.Notices) > 0 {
		out = append(out, "")
	}
	if m.Down != "" {
		add("! ", i18n.T("watch.down", i18n.Args{"Err": m.Down}), "  ")
	}
	for _, n := range m.Notices {
		add("! ", n, "  ")
	}
	out = append(out, "")
	switch {
	case m.Running != 0:
		add("", i18n.T("watch.running", i18n.Args{"N": m.Running}), "  ")
	case m.Judging != 0:
		add("", i18n.T("watch.judging", i18n.Args{"N": m.Judging}), "")
	}
	add("", i18n.T("watch.keys"), "")
	return out
}

// stepLines are the current step's heading and checks: every check with
// its mark, a failed one with what was found and what was expected.
func (v *View) stepLines(m *Model) []string {
	var out []string
	add := func(prefix, body, indent string) {
		for _, l := range fit(prefix, body, Columns, indent) {
			out = append(out, v.paint(l))
		}
	}
	s, _ := m.steps.Get(m.Current)
	add("", i18n.T("watch.step", i18n.Args{"N": s.Number, "Title": s.Heading()}), "  ")
	checks := m.Checks(m.Current)
	switch {
	case checks == nil:
		add("  ", i18n.T("watch.not_judged"), "  ")
		return out
	case m.Status(m.Current) == Passed:
		add("  ", i18n.T("watch.step_passed", i18n.Args{"N": s.Number}), "  ")
	}
	for _, c := range checks {
		add("  "+checkMark(c.Status)+" ", ui.Clean(c.Title), "    ")
		if c.Status == judge.Fail {
			add("      "+i18n.T("check.label.found")+" ", ui.Clean(c.Actual), "        ")
			add("      "+i18n.T("check.label.expected")+" ", ui.Clean(c.Expected), "        ")
		}
	}
	return out
}

// hintLines are the hint at its level: 1, the nudge (the first failed
// check's hint, or what the step teaches); 2, also the commands that do
// the step by hand (`cnpa explain N`'s).
func (v *View) hintLines(m *Model) []string {
	var out []string
	add := func(prefix, body, indent string) {
		for _, l := range fit(prefix, body, Columns, indent) {
			out = append(out, v.paint(l))
		}
	}
	s, _ := m.steps.Get(m.Current)
	nudge := ""
	for _, c := range m.Checks(m.Current) {
		if c.Status == judge.Fail && c.Hint != "" {
			nudge = c.Hint
			break
		}
	}
	if nudge == "" {
		nudge = strings.Join(strings.Fields(s.Teaching()), " ")
	}
	add(i18n.T("watch.hint.nudge")+" ", ui.Clean(nudge), "  ")
	if m.Hint < 2 {
		add("", i18n.T("watch.hint.more"), "  ")
		return out
	}
	add("", i18n.T("watch.hint.commands"), "  ")
	for _, c := range Commands(m.steps, s.Number, v.Where) {
		add("  $ ", c, "      ")
	}
	return out
}

// Commands are the commands `cnpa explain n` shows to do step n by hand,
// with the learner's paths.
func Commands(steps lab.Table, n int, w lab.Where) []string {
	text, err := steps.ExplainFor(n, w)
	if err != nil {
		return nil
	}
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if c, ok := strings.CutPrefix(l, "  $ "); ok {
			out = append(out, c)
		} else if c, ok := strings.CutPrefix(l, "    "); ok && len(out) > 0 && !strings.HasPrefix(strings.TrimSpace(c), "#") {
			out[len(out)-1] += " " + c // a command shown on two lines
		}
	}
	return out
}

// PlainLines are what plain output says of step n's new report, given the
// model before it is recorded: a summary, then each check that fails or
// whose status changed since the last judgement.
func (v *View) PlainLines(m *Model, n int, rep *judge.Report) []string {
	var out []string
	add := func(prefix, body, indent string) {
		for _, l := range fit(prefix, body, Columns, indent) {
			out = append(out, v.paint(l))
		}
	}
	// The step's counts are of every check shown for it: this report's,
	// and those it does not judge again that the screen keeps (a quick
	// look leaves the probes' verdicts as they were).
	passed, failed := 0, 0
	count := func(st judge.Status) {
		switch st {
		case judge.Pass:
			passed++
		case judge.Fail:
			failed++
		}
	}
	seen := map[string]bool{}
	for _, c := range rep.Checks {
		if c.Step == n {
			seen[c.ID] = true
			count(c.Status)
		}
	}
	for _, c := range m.Checks(n) {
		if !seen[c.ID] {
			count(c.Status)
		}
	}
	add("", i18n.T("watch.plain.summary", i18n.Args{"N": n, "Passed": passed, "Failed": failed}), "  ")
	for _, c := range rep.Checks {
		if c.Step != n {
			continue
		}
		before := m.Previous(n, c.ID)
		switch {
		case c.Status == judge.Fail:
			add("  "+checkMark(c.Status)+" ", c.ID+": "+ui.Clean(c.Title), "    ")
			add("      "+i18n.T("check.label.found")+" ", ui.Clean(c.Actual), "        ")
			add("      "+i18n.T("check.label.expected")+" ", ui.Clean(c.Expected), "        ")
		case before != "" && before != c.Status:
			add("  "+checkMark(c.Status)+" ", c.ID+": "+ui.Clean(c.Title), "    ")
		}
	}
	return out
}

// WriteJSON writes the verdicts, one JSON object a line.
func WriteJSON(w io.Writer, vs []Verdict) error {
	enc := json.NewEncoder(w)
	for _, v := range vs {
		if err := enc.Encode(v); err != nil {
			return err
		}
	}
	return nil
}

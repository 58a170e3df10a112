// Package ui prints for people: colour when the output is a terminal and
// NO_COLOR is unset, one line per fact, observed values beside expected.
package ui

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fatih/color"

	"github.com/labhub/cnpa/internal/i18n"
)

// Printer writes human output.
type Printer struct {
	W     io.Writer
	color bool
	// Terminal is true when W is a terminal: a live wait then rewrites one
	// line with \r instead of printing progress lines.
	Terminal bool
}

// New returns a printer on w. Colour is on when noColor is false, NO_COLOR
// is unset and w is a terminal (fatih/color checks the last two).
func New(w io.Writer, noColor bool) *Printer {
	on := !noColor && !color.NoColor
	if f, ok := w.(*os.File); ok && f != os.Stdout {
		on = false
	}
	tty := false
	if f, ok := w.(*os.File); ok {
		fi, err := f.Stat()
		tty = err == nil && fi.Mode()&os.ModeCharDevice != 0
	}
	return &Printer{W: w, color: on, Terminal: tty}
}

func (p *Printer) paint(c *color.Color, s string) string {
	if !p.color {
		return s
	}
	c.EnableColor()
	return c.Sprint(s)
}

var (
	bold   = color.New(color.Bold)
	green  = color.New(color.FgGreen)
	red    = color.New(color.FgRed)
	yellow = color.New(color.FgYellow)
	faint  = color.New(color.Faint)
	cyan   = color.New(color.FgCyan)
)

// Bold, Faint and Accent paint a part of a line (plain without colour),
// for output that mixes emphasis within one line, such as a timeline.
func (p *Printer) Bold(s string) string { return p.paint(bold, s) }

// Faint: see Bold.
func (p *Printer) Faint(s string) string { return p.paint(faint, s) }

// Accent: see Bold.
func (p *Printer) Accent(s string) string { return p.paint(cyan, s) }

// Title prints a heading.
func (p *Printer) Title(format string, a ...any) {
	fmt.Fprintln(p.W, p.paint(bold, fmt.Sprintf(format, a...)))
}

// Line prints a plain line.
func (p *Printer) Line(format string, a ...any) { fmt.Fprintf(p.W, format+"\n", a...) }

// Note prints a faint explanatory line.
func (p *Printer) Note(format string, a ...any) {
	fmt.Fprintln(p.W, p.paint(faint, fmt.Sprintf(format, a...)))
}

// Warn prints a yellow line.
func (p *Printer) Warn(format string, a ...any) {
	fmt.Fprintln(p.W, p.paint(yellow, fmt.Sprintf(format, a...)))
}

// Mark is ✓ in green or ✗ in red.
func (p *Printer) Mark(ok bool) string {
	if ok {
		return p.paint(green, "✓")
	}
	return p.paint(red, "✗")
}

// Verdict prints one observed value beside its expected value. A row
// wider than Cols hangs its value under itself, at the value's column,
// and a name wider than its column puts the value on the lines below:
// a Japanese check name can be 44 columns.
func (p *Printer) Verdict(ok bool, name string, got, want any) {
	// got is what the cluster said, want may quote it: both are cleaned.
	g := Clean(fmt.Sprint(got))
	exp := ""
	if !ok {
		exp = i18n.T("verdict.expected", i18n.Args{"Want": Clean(fmt.Sprint(want))})
	}
	head := "  " + p.Mark(ok) + " " + Pad(name, verdictName) + " "
	plain := 4 + max(Width(name), verdictName) + 1
	row := plain + Width(g)
	if exp != "" {
		row += 1 + Width(exp)
	}
	if row <= Cols {
		if ok {
			fmt.Fprintf(p.W, "%s%s\n", head, g)
		} else {
			fmt.Fprintf(p.W, "%s%s %s\n", head, g, p.paint(red, exp))
		}
		return
	}
	hang := strings.Repeat(" ", 4+verdictName+1)
	room := Cols - len(hang)
	lines := strings.Split(Wrap(g, room), "\n")
	if exp != "" {
		for _, l := range strings.Split(Wrap(exp, room), "\n") {
			lines = append(lines, p.paint(red, l))
		}
	}
	if Width(name) > verdictName {
		fmt.Fprintf(p.W, "  %s %s\n", p.Mark(ok), name)
	} else {
		fmt.Fprintf(p.W, "%s%s\n", head, lines[0])
		lines = lines[1:]
	}
	for _, l := range lines {
		fmt.Fprintf(p.W, "%s%s\n", hang, l)
	}
}

// verdictName is the column a verdict's name is padded to.
const verdictName = 28

// Status prints "ok"/"fail" lines for doctor-like output: the word, the
// name in its column, the detail wrapped to Cols hanging under itself.
func (p *Printer) Status(ok bool, name, detail string) {
	word := p.paint(green, Pad(i18n.T("ui.status.ok"), statusWord))
	if !ok {
		word = p.paint(red, Pad(i18n.T("ui.status.fail"), statusWord))
	}
	p.statusLine(word, name, Clean(detail))
}

// StatusWarn prints a "warn" line for doctor-like output: something that
// works today but is outside what is supported.
func (p *Printer) StatusWarn(name, detail string) {
	p.statusLine(p.paint(yellow, Pad(i18n.T("ui.status.warn"), statusWord)), name, detail)
}

// statusWord and statusName are the columns of a Status line's word and
// name.
const (
	statusWord = 4
	statusName = 22
)

func (p *Printer) statusLine(word, name, detail string) {
	head := Pad(name, statusName) + " "
	if Width(name) > statusName {
		head = name + " "
	}
	hang := strings.Repeat(" ", statusWord+1+Width(head))
	fmt.Fprintf(p.W, "%s %s\n", word, Indent(head, hang, detail, Cols))
}

// Tail returns the last n lines of s, without its final newline, for
// messages that quote a log.
func Tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// WriteJSON writes v as indented JSON, one document and a newline: the
// machine output (-o json) of every command.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

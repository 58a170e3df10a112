package ui

import (
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/labhub/cnpa/internal/i18n"
)

// Clean makes a value read from the cluster (an Event's message, a name,
// a line of the service's log) safe to print: every control character,
// C0 and C1 and DEL (ESC starts terminal commands: clear the screen,
// retitle the window, move the cursor), every bidirectional override
// (text that reads differently than it is), and every byte that is not
// UTF-8 is written as an escape (\x1b, \n, \u202e, \xff) instead. Anyone
// who can create an Event can choose its message; what reaches the
// learner's terminal is data, never a command. The one sanitiser: every
// value from the cluster that cnpa prints goes through it.
func Clean(s string) string {
	if !needsClean(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80 && unsafe(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafe(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}

// CleanLines is Clean for text of several lines (a log): each line
// cleaned, the line breaks kept.
func CleanLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Clean(l)
	}
	return strings.Join(lines, "\n")
}

// CleanWriter passes what is written to w through CleanLines: for output
// copied from elsewhere (journalctl's) straight to the terminal. A
// multi-byte character cut between two writes is escaped byte by byte:
// safe, if less pretty.
func CleanWriter(w io.Writer) io.Writer { return cleanWriter{w} }

type cleanWriter struct{ w io.Writer }

func (c cleanWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(c.w, CleanLines(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

func needsClean(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r == '\n' || r == '\r' || r == '\t' || unsafe(r) {
			return true
		}
		i += size
	}
	return false
}

// unsafe: control characters (C0, DEL, C1), and the bidirectional
// embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069).
func unsafe(r rune) bool {
	return unicode.IsControl(r) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// Whole keeps a line quoted from the cluster or a log (a refused
// request, a controller's error) whole, for a note or a found line: the
// useful part of an admission error is at its end ("…may not set or
// change the finalizers or annotations: skip a namespace you do not
// own"), so nothing is cut at a width. Only a line longer than max, which
// no kubectl error is, is shortened, and then after its last whole
// sentence, saying how much is left out.
func Whole(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	head := s[:cut]
	if i := strings.LastIndexAny(head, ".;"); i > max/2 {
		head = head[:i+1]
	}
	return i18n.T("ui.more_characters", i18n.Args{"Text": head, "N": len(s) - len(head)})
}

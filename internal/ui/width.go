package ui

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// Display width: how many terminal columns a string takes. Japanese text
// is mostly East Asian wide (two columns a character), so padding by bytes
// or by runes puts the ✓/✗ table and the timelines out of line, and an
// 80-column line of Japanese holds 40 characters, not 80.
//
// Wide and fullwidth characters take two columns; combining marks and
// zero-width characters none; the rest one, ambiguous ones included (✓,
// →, …), as VTE, xterm, iTerm2 and Windows Terminal draw them by default.

// Width is s's display width in a terminal.
func Width(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

func runeWidth(r rune) int {
	switch {
	case r == 0x200b || r == 0x200c || r == 0x200d || r == 0xfeff:
		return 0
	case unicode.In(r, unicode.Mn, unicode.Me):
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// Pad is s followed by spaces to n display columns (s itself when it is
// as wide already): fmt's %-28s for text that may be Japanese.
func Pad(s string, n int) string {
	if w := Width(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// Wrap breaks each line of s that is wider than cols display columns: at
// spaces, and between two wide characters (Japanese has no spaces between
// words), never before a closing mark (、。）」…) or after an opening one
// (「（), and never inside a run of ASCII (a command, a path, a name) or
// a `code span`. A
// line no wider than cols stays as it is. Continuation lines start with
// the line's own leading spaces, two more for a list item ("- ").
func Wrap(s string, cols int) string {
	lines := strings.Split(s, "\n")
	var out []string
	for _, l := range lines {
		out = append(out, wrapLine(l, cols)...)
	}
	return strings.Join(out, "\n")
}

func wrapLine(l string, cols int) []string {
	if Width(l) <= cols {
		return []string{l}
	}
	lead := l[:len(l)-len(strings.TrimLeft(l, " "))]
	first := lead
	if strings.HasPrefix(l[len(lead):], "- ") {
		// a list item's next lines hang under its text
		lead += "  "
	}
	var out []string
	cur, curW := first, Width(first)
	empty := true // cur holds nothing beyond lead
	for _, t := range tokens(l[len(lead):]) {
		tw := Width(t.text)
		sep := ""
		if !empty && t.space {
			sep = " "
		}
		if !empty && curW+len(sep)+tw > cols {
			out = append(out, cur)
			cur, curW, empty = lead, Width(lead), true
			sep = ""
		}
		cur += sep + t.text
		curW += len(sep) + tw
		empty = false
	}
	return append(out, cur)
}

// token is an unbreakable piece of a line; space says spaces came before
// it (kept as one space when it does not start a line).
type token struct {
	text  string
	space bool
}

// tokens splits a line where it may break: at spaces, and around each
// wide character; closing marks stay with what is before them, opening
// marks with what is after.
func tokens(s string) []token {
	var out []token
	var cur strings.Builder
	space, glueNext, inCode := false, false, false
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, token{cur.String(), space})
			cur.Reset()
			space = false
		}
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r == '`' {
			if !inCode && cur.Len() > 0 {
				// a code span starts a token of its own, unless glued
				last, _ := utf8.DecodeLastRuneInString(cur.String())
				if runeWidth(last) == 2 && !opening(last) {
					flush()
				}
			}
			inCode = !inCode
			cur.WriteRune(r)
			glueNext = false
			continue
		}
		if inCode {
			// `a command` is one token: never broken inside
			cur.WriteRune(r)
			continue
		}
		switch {
		case r == ' ':
			flush()
			space, glueNext = true, false
			continue
		case closing(r):
			// stays on the line of what comes before it
			if cur.Len() == 0 && len(out) > 0 && !space {
				last := &out[len(out)-1]
				last.text += string(r)
				continue
			}
			cur.WriteRune(r)
		case glueNext:
			cur.WriteRune(r)
		case runeWidth(r) == 2:
			flush()
			cur.WriteRune(r)
		default:
			// ASCII after a wide character starts a token of its own
			if cur.Len() > 0 {
				last, _ := utf8.DecodeLastRuneInString(cur.String())
				if runeWidth(last) == 2 && !opening(last) {
					flush()
				}
			}
			cur.WriteRune(r)
		}
		glueNext = opening(r)
		if !glueNext && runeWidth(r) == 2 {
			flush()
		}
	}
	flush()
	return out
}

// closing marks never start a line (kinsoku).
func closing(r rune) bool {
	return strings.ContainsRune("、。，．・：；？！）」』】〕〉》ー…ぁぃぅぇぉっゃゅょァィゥェォッャュョ々", r) ||
		strings.ContainsRune(",.:;!?)]}", r)
}

// opening marks never end a line.
func opening(r rune) bool { return strings.ContainsRune("「『（【〔〈《", r) }

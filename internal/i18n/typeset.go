package i18n

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/width"
)

// Typeset is a Japanese message set in one style, whoever wrote it: a
// pair of parentheses in a Japanese sentence is full-width （…）, as the
// glossary asks, however the catalog typed it. A pair is in a sentence
// when a wide character stands just before it, just after it or inside
// it; one among ASCII alone (f(x), `$(cmd)`) stays as it is, and nothing
// inside a `code span` or a {{template action}} is touched: a command is
// said as it is, and a placeholder's value is data.
func Typeset(s string) string {
	if !strings.ContainsAny(s, "()") {
		return s
	}
	rs := []rune(s)
	protected := make([]bool, len(rs))
	for i := 0; i < len(rs); i++ {
		switch {
		case rs[i] == '`':
			j := i + 1
			for j < len(rs) && rs[j] != '`' {
				j++
			}
			for k := i; k <= j && k < len(rs); k++ {
				protected[k] = true
			}
			i = j
		case rs[i] == '{' && i+1 < len(rs) && rs[i+1] == '{':
			j := i + 2
			for j+1 < len(rs) && !(rs[j] == '}' && rs[j+1] == '}') {
				j++
			}
			for k := i; k <= j+1 && k < len(rs); k++ {
				protected[k] = true
			}
			i = j + 1
		}
	}
	japanese := wideIn(rs)
	var stack []int
	for i, r := range rs {
		if protected[i] {
			continue
		}
		switch r {
		case '(':
			stack = append(stack, i)
		case ')':
			if len(stack) == 0 {
				continue
			}
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			// A placeholder beside or inside it stands for words of a
			// Japanese sentence too ("ユーザー{{.User}}（{{.File}}）").
			placeholder := (o > 0 && rs[o-1] == '}') || (o+1 < len(rs) && protected[o+1] && rs[o+1] == '{') ||
				(i+1 < len(rs) && rs[i+1] == '{')
			if wideAt(rs, o-1) || wideAt(rs, i+1) || wideIn(rs[o+1:i]) || japanese && placeholder {
				rs[o], rs[i] = '（', '）'
			}
		}
	}
	return string(rs)
}

// wideAt tells whether rs[i] is a wide (Japanese) character.
func wideAt(rs []rune, i int) bool {
	return i >= 0 && i < len(rs) && wide(rs[i])
}

func wideIn(rs []rune) bool {
	for _, r := range rs {
		if wide(r) {
			return true
		}
	}
	return false
}

func wide(r rune) bool {
	if r < utf8.RuneSelf {
		return false
	}
	k := width.LookupRune(r).Kind()
	return k == width.EastAsianWide || k == width.EastAsianFullwidth
}

// List joins items as a list in the chosen language: "a, b, c" in
// English, "a、b、c" in Japanese (the glossary's 、 for a list).
func List(items []string) string {
	sep := ", "
	if Current() == Japanese {
		sep = "、"
	}
	return strings.Join(items, sep)
}

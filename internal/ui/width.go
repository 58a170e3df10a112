package ui

import (
	"strings"
	"unicode"

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
// spaces, and in Japanese (which has no spaces between words) only
// between two phrases (see tokens): never inside a word (ファ/イル,
// 所/有, 送っ/た, いけま/せん), never before a closing mark (、。）」…) or
// after an opening one (「（), and never inside a run of ASCII (a command,
// a path, a name) or a `code span`. A line no wider than cols stays as it
// is. Continuation lines start with the line's own leading spaces, two
// more for a list item ("- "). A piece wider than a whole line (a long
// command) gets a line of its own.
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

// script is what a character is to line breaking: Japanese is broken
// between phrases (文節), a phrase being a run of kanji or katakana (a
// word) and the kana that follow it (its okurigana and particles:
// 送った, ファイルを, 所有している), and a run of ASCII (a name, a path,
// a number) with the kana after it (reconcile.shを, 3秒).
type script int

const (
	latin     script = iota // ASCII and other narrow characters, not spaces
	kana                    // hiragana: okurigana, particles, endings
	word                    // kanji, katakana (with ー), other wide characters
	openMark                // opening marks: 「（
	closeMark               // closing marks: 、。）」 and the like
)

func scriptOf(r rune) script {
	switch {
	case opening(r):
		return openMark
	case r == 'ー' || r == '々' || unicode.In(r, unicode.Katakana):
		return word
	case unicode.In(r, unicode.Hiragana):
		return kana // small ones (っ, ゃ) too: 送った is one phrase
	case closing(r) && runeWidth(r) == 2:
		return closeMark
	case runeWidth(r) == 2:
		return word
	}
	return latin
}

// breakBetween tells whether a line may break between a and b, two
// characters with no space between them (outside code spans).
func breakBetween(a, b rune) bool {
	sa, sb := scriptOf(a), scriptOf(b)
	switch {
	case sa == openMark || sb == closeMark || closing(b) || strings.ContainsRune("([{<", a) || b == '>':
		return false // kinsoku: nothing after an opening mark, before a closing one (own-<時刻>/ too)
	case sb == kana && strings.ContainsRune("）」』】〕〉》", a):
		return false // a bracket's particle stays with it: （drift.json）を
	case sa == closeMark:
		return true // after 、。）
	case sb == openMark:
		return true
	case sb == kana:
		return false // okurigana and particles stay with their word
	case sa == latin && sb == latin:
		return false // a name, a path, a number
	case sa == latin && unicode.IsDigit(a) && sb == word:
		return false // a number and its counter: 1回, 3秒
	case sa == word && sb == word:
		return false // one word: ファイル, 所有, ネームスペース
	}
	return true // kana then a new word, a word then ASCII, ASCII then a word
}

// tokens splits a line where it may break: at spaces, and between
// Japanese phrases (breakBetween); a `code span` is one token, glued to
// the particle after it.
func tokens(s string) []token {
	var out []token
	var cur strings.Builder
	space, inCode := false, false
	var last rune // the last character of cur, 0 when cur is empty
	flush := func() {
		if cur.Len() > 0 {
			out = append(out, token{cur.String(), space})
			cur.Reset()
			space = false
		}
		last = 0
	}
	for _, r := range s {
		if inCode {
			// `a command` is one token: never broken inside
			cur.WriteRune(r)
			if r == '`' {
				inCode = false
			}
			last = r
			continue
		}
		switch {
		case r == ' ':
			flush()
			space = true
			continue
		case r == '`':
			if last != 0 && scriptOf(last) != openMark && scriptOf(last) != latin {
				flush() // a code span after Japanese starts a token
			}
			inCode = true
		case last == 0 && closing(r) && len(out) > 0 && !space:
			// a closing mark stays on the line of what comes before it
			out[len(out)-1].text += string(r)
			last = r
			continue
		case last != 0 && last != '`' && breakBetween(last, r) && !kanaOnly(cur.String()) && !compound(cur.String(), r):
			// kana that start a phrase begin its word (やり直して): glued
			flush()
		case last == '`' && scriptOf(r) != kana && !closing(r):
			flush() // after a code span, only its particle stays with it
		}
		cur.WriteRune(r)
		last = r
	}
	flush()
	return out
}

// compound tells whether phrase, ending in one kana after a kanji, and
// the kanji r make one compound word, which is never broken: a verb's
// stem before another verb (書き出します, 取り戻す, 置き換える, 読み込み),
// whose kana is one of the continuative endings (i and e rows; not a
// particle such as を, に, て, の). A one-kana particle between two
// kanji words (値を変え) is a phrase's end and may break.
func compound(phrase string, r rune) bool {
	rs := []rune(phrase)
	n := len(rs)
	return n >= 2 && unicode.Is(unicode.Han, r) && unicode.Is(unicode.Han, rs[n-2]) &&
		strings.ContainsRune("いきぎしじちひびみりえけげせぜべめれ", rs[n-1])
}

// kanaOnly tells whether s is hiragana alone.
func kanaOnly(s string) bool {
	for _, r := range s {
		if scriptOf(r) != kana {
			return false
		}
	}
	return s != ""
}

// closing marks never start a line (kinsoku).
func closing(r rune) bool {
	return strings.ContainsRune("、。，．・：；？！）」』】〕〉》ー…ぁぃぅぇぉっゃゅょァィゥェォッャュョ々", r) ||
		strings.ContainsRune(",.:;!?)]}", r)
}

// opening marks never end a line.
func opening(r rune) bool { return strings.ContainsRune("「『（【〔〈《", r) }

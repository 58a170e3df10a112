package ui

import "strings"

// Cols is the width prose is wrapped to: a terminal's 80 display columns.
const Cols = 80

// Indent is s wrapped to cols display columns after its prefixes: the
// first line after first ("  # ", "    why: "), every further line, its
// own breaks as well as Wrap's, after rest ("  # ", or spaces as wide as
// first, so that the text hangs under itself). A line of s wider than it
// may be (a path, a command) runs longer, as Wrap leaves it.
func Indent(first, rest, s string, cols int) string {
	w := max(Width(first), Width(rest))
	lines := strings.Split(Wrap(s, max(cols-w, 20)), "\n")
	for i := range lines {
		if i == 0 {
			lines[i] = first + lines[i]
		} else {
			lines[i] = rest + lines[i]
		}
	}
	return strings.Join(lines, "\n")
}

// Hang is Indent with the further lines under the first one's text.
func Hang(prefix, s string) string {
	return Indent(prefix, strings.Repeat(" ", Width(prefix)), s, Cols)
}

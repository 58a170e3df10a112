package kit

import (
	"regexp"
	"strings"
	"sync"
)

// GrepLines is the lines of s that match the regular expression expr.
func GrepLines(s, expr string) []string {
	re := regexp.MustCompile(expr)
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if re.MatchString(l) {
			out = append(out, l)
		}
	}
	return out
}

// TailBuffer is an io.Writer that keeps the last Max bytes written to it,
// for a log shown only when something fails. Safe for concurrent use; a
// nil *TailBuffer reads as empty.
type TailBuffer struct {
	Max int

	mu sync.Mutex
	b  []byte
}

// Write keeps p, dropping what falls out of the last Max bytes.
func (t *TailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.Max; over > 0 {
		t.b = t.b[over:]
	}
	return len(p), nil
}

// String is what the buffer holds.
func (t *TailBuffer) String() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// Unwrapped is s as one line of words: cnpa wraps its prose at 80
// columns (a comment's lines each start with "# "), so a sentence a test
// looks for may span lines. Each line's indent and comment mark go, and
// the lines are joined by one space, as the words were before wrapping.
func Unwrapped(s string) string {
	var words []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimLeft(l, " ")
		l = strings.TrimPrefix(l, "# ")
		words = append(words, strings.Fields(l)...)
	}
	return strings.Join(words, " ")
}

// ShownCommands are the commands in a step's output, as bash reads them:
// `  $ ` starts one and `  > ` continues it (a heredoc, or a long command
// shown over bash's line continuations, steps.ContinueLines), joined with
// their newlines.
func ShownCommands(out string) []string {
	var cmds []string
	for _, line := range strings.Split(out, "\n") {
		if c, ok := strings.CutPrefix(line, "  $ "); ok {
			cmds = append(cmds, c)
		} else if c, ok := strings.CutPrefix(line, "  > "); ok && len(cmds) > 0 {
			cmds[len(cmds)-1] += "\n" + c
		}
	}
	return cmds
}

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

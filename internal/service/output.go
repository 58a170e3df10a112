package service

import (
	"regexp"
	"strings"

	"github.com/labhub/cnpa/internal/ui"
)

// ErrorLine matches a log line that reports a failure: kubectl's "Error
// from server (Forbidden)", a refused admission, a conflict of server-side
// apply, slog's level=ERROR.
var ErrorLine = regexp.MustCompile(`(?i)error|forbidden|denied|refused|failed|conflict|invalid|unauthorized`)

// ErrorsFirst is the end of a log for a person: its error lines first (the
// last n of them), then the last lines that are not errors, n lines in
// all, each through ui.Clean so that a line cannot drive the terminal. ""
// for an empty log.
func ErrorsFirst(log string, n int) string {
	lines := strings.Split(strings.TrimRight(log, "\n"), "\n")
	var errs, rest []string
	for _, l := range lines {
		if l = ui.Clean(strings.TrimRight(l, " \t\r")); strings.TrimSpace(l) == "" {
			continue
		} else if ErrorLine.MatchString(l) {
			errs = append(errs, l)
		} else {
			rest = append(rest, l)
		}
	}
	if len(errs) > n {
		errs = errs[len(errs)-n:]
	}
	if k := n - len(errs); len(rest) > k {
		rest = rest[len(rest)-k:]
	}
	return strings.Join(append(errs, rest...), "\n")
}

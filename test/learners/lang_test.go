package learners

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"
)

// inJapanese is case.json's "ja": what the case's mistake must say with
// --lang ja (issue 41: a failing step 3, status sent to the main
// endpoint, and a failing step 6, finalizers overwritten, say their
// diagnosis in Japanese, with the command to run). The learner reads the
// failure line and the mistake's advice in the lab text's words, the
// command as it is typed.
type inJapanese struct {
	// Failed is the start of the failing step's failure line; empty for
	// a mistake only cnpa check sees (caught_by "check").
	Failed string `json:"failed"`
	// Advice are the Japanese words of the mistake's advice, each in the
	// diagnosis (its wrapped lines joined).
	Advice []string `json:"advice"`
	// Command is the command to run, as it is typed, in a step's
	// diagnosis.
	Command string `json:"command"`
}

// saysInJapanese runs the case's failing step again with --lang ja (or,
// for a mistake only check sees, `cnpa --lang ja check --step N`) on the
// lab step all left, and holds what it says to c.Ja. It runs in the
// case's own lab, before its check: a lab of its own for this cost a
// control plane and a whole step all (190 s, TestDiagnosesInJapanese
// before stop 43).
func (l *lab) saysInJapanese(c learnerCase) {
	t := l.T
	t.Helper()
	ja := c.Ja
	start := time.Now()
	if ja.Failed == "" {
		// A shorter wait than the case's own check, which waits its
		// whole --timeout for what never comes (70 s with 60 s): the
		// words are what is held here, and they are the same.
		r := l.Cnpa("--lang", "ja", "check", "--step", fmt.Sprint(c.Step), "--timeout", "15s",
			"--service-manager", "process", "--unit-dir", l.UnitDir)
		t.Logf("cnpa --lang ja check --step %d: exit %d in %s", c.Step, r.Code, time.Since(start).Round(time.Second))
		if r.Code != 1 {
			t.Errorf("cnpa --lang ja check --step %d: exit %d, want 1\n%s", c.Step, r.Code, r)
			return
		}
		out := l.withoutPaths(r.Stdout)
		for _, a := range ja.Advice {
			if !strings.Contains(unwrap(out), a) {
				t.Errorf("cnpa --lang ja check does not say %q\n%s", a, out)
			}
		}
		return
	}
	r := l.Cnpa("--lang", "ja", "step", fmt.Sprint(c.Step), "--engine", "own", "--service-manager", "process",
		"--unit-dir", l.UnitDir, "--timeout", stepTimeout, "--quiet")
	t.Logf("cnpa --lang ja step %d: exit %d in %s", c.Step, r.Code, time.Since(start).Round(time.Second))
	if r.Code != 1 {
		t.Errorf("cnpa --lang ja step %d: exit %d, want 1 (the mistake breaks it)\n%s", c.Step, r.Code, r)
		return
	}
	// The failure, after the live waits' lines on stderr.
	diag := l.withoutPaths(r.Stderr)
	if i := strings.Index(diag, "\n"+ja.Failed); i >= 0 {
		diag = diag[i+1:]
	} else if !strings.HasPrefix(diag, ja.Failed) {
		t.Errorf("no line starts %q on stderr\n%s", ja.Failed, r)
		return
	}
	// Wrapped to 80 columns: the advice is read as one paragraph.
	joined := unwrap(diag)
	for _, a := range ja.Advice {
		if !strings.Contains(joined, a) {
			t.Errorf("the diagnosis does not say %q\n%s", a, diag)
		}
	}
	if !strings.Contains(diag, ja.Command) {
		t.Errorf("the diagnosis does not name the command %q\n%s", ja.Command, diag)
	}
	for _, line := range diagnosisProse(diag) {
		if !japanese(line) && englishSentence.MatchString(codeSpan.ReplaceAllString(line, "")) {
			t.Errorf("the diagnosis has a line in English: %s", line)
		}
	}
	t.Logf("cnpa --lang ja says:\n%s", diag)
}

// codeSpan is a `command` in a line of prose.
var codeSpan = regexp.MustCompile("`[^`]*`")

// unwrap joins the lines of wrapped Japanese prose: a line's leading
// spaces go, and no space comes between the lines.
func unwrap(s string) string {
	var b strings.Builder
	for _, l := range strings.Split(s, "\n") {
		b.WriteString(strings.TrimLeft(l, " "))
	}
	return b.String()
}

// englishSentence is three English words in a row.
var englishSentence = regexp.MustCompile(`\b[a-z]{2,}[,:;]? [a-z]{2,}[,:;]? [a-z]{2,}\b`)

// diagnosisProse is the diagnosis without what it quotes: the controller's
// last output (the learner's script's own lines, and log lines) and the
// observed values after "最後に観測したもの".
func diagnosisProse(diag string) []string {
	var out []string
	for _, l := range strings.Split(diag, "\n") {
		if strings.HasPrefix(l, "  コントローラーの最後の出力:") {
			break
		}
		if i := strings.Index(l, "最後に観測したもの:"); i >= 0 {
			l = l[:i]
		}
		out = append(out, l)
	}
	return out
}

func japanese(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) {
			return true
		}
	}
	return false
}

package lab

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"

	"github.com/labhub/cnpa/internal/ui"
)

// checkTranslated says whether `cnpa check`'s own lines (its progress
// lines and summary, internal/check and internal/judge) are held to the
// same rules as the steps' in `make lab`: on since their translation
// merged (issue 41).
const checkTranslated = true

// A makeLabLine is one line of `make lab`'s output, with what it is.
type makeLabLine struct {
	n    int    // its line number, from 1
	text string // the line
	kind string // "prose", or what else it is (command, answer, listing, …)
}

var (
	// timelineRow is a row of a timeline's table: "  +1238 ms  kube-apiserver …".
	timelineRow = regexp.MustCompile(`^\s+[+-][0-9.]+ (ms|s)  `)
	// englishWords are three English words in a row: a sentence in English.
	englishWords = regexp.MustCompile(`\b[a-z]{2,}[,:;]? [a-z]{2,}[,:;]? [a-z]{2,}\b`)
)

// classifyMakeLab sorts `make lab`'s output into prose and what is not
// (commands, their continuation lines, the server's answers below a
// command, read-back values, listings, timeline rows, the ✓/✗ table,
// labrun's own lines); inCheck marks the lines of `cnpa check`.
func classifyMakeLab(out string) (lines []makeLabLine, inCheck map[int]bool) {
	inCheck = map[int]bool{}
	afterCmd, check, sinceOpen, inTimeline := false, false, false, false
	for i, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		kind := "prose"
		switch {
		case inTimeline && strings.HasPrefix(l, "            ") && strings.TrimSpace(l) != "":
			// a timeline entry's next line, wrapped in its column
			kind = "timeline"
		case strings.HasPrefix(strings.TrimSpace(l), "（「"):
			// the command a Japanese timeline's times are counted from,
			// in 「」 below its heading when it is long
			kind = "command"
		case sinceOpen && strings.HasPrefix(l, "   ") && strings.HasSuffix(l, ")"):
			// the command a timeline's times are counted from, put
			// below its heading "(times since:" when it is long
			kind = "command"
		case strings.HasPrefix(l, "$ "):
			kind, check = "command", strings.HasPrefix(l, "$ cnpa check")
			afterCmd = false
		case strings.HasPrefix(l, "  $ ") || strings.HasPrefix(l, "  > "):
			kind, afterCmd = "command", true
		case strings.HasPrefix(l, "    → "):
			kind = "value"
		case afterCmd && strings.HasPrefix(l, "    "):
			// kubectl's (or the script's) answer below its command
			kind = "answer"
		case strings.HasPrefix(l, "  │   ↑ ") || strings.HasPrefix(l, "  │ ") && strings.Contains(l, "  ← "):
			// a listing's line with its mark beside it, or the mark
			// below it: the mark is prose
			kind = "mark"
		case strings.HasPrefix(l, "  │"):
			kind = "listing"
		case timelineRow.MatchString(l):
			kind = "timeline"
		case strings.HasPrefix(l, "  ✓ ") || strings.HasPrefix(l, "  ✗ "):
			kind = "table"
		case strings.HasPrefix(l, "labrun: ") || strings.HasSuffix(l, "(all of it: `make lab VERBOSE=1`)"):
			kind = "labrun"
		case strings.TrimSpace(l) == "":
			kind = "blank"
		}
		if kind != "command" && kind != "answer" && kind != "value" {
			afterCmd = false
		}
		sinceOpen = kind == "prose" && strings.HasSuffix(l, ":") && strings.Count(l, "(") > strings.Count(l, ")")
		inTimeline = kind == "timeline"
		lines = append(lines, makeLabLine{n: i + 1, text: l, kind: kind})
		inCheck[i+1] = check
	}
	return lines, inCheck
}

// makeLabProblems are the lines of `make lab`'s output that break its
// rules: a prose line, a ✓/✗ row or a listing's mark wider than 80
// display columns, and, in Japanese, a prose line in English. Widths are
// a learner's: the run's temporary dirs and binary are measured as the
// VM's /root/cnpa-op, /etc/systemd/system and /usr/local/bin/cnpa
// (learnerPaths); only a line with one unbreakable word (a path, a
// command) wider than half the line may run longer.
func makeLabProblems(out string, japanese bool) []string {
	lines, inCheck := classifyMakeLab(learnerPaths(out))
	var bad []string
	for _, l := range lines {
		if l.kind != "prose" && l.kind != "table" && l.kind != "mark" && l.kind != "timeline" || (inCheck[l.n] && !checkTranslated) {
			continue
		}
		if w := ui.Width(l.text); w > ui.Cols && !hasLongWord(l.text) {
			bad = append(bad, fmt.Sprintf("line %d is %d columns wide: %s", l.n, w, l.text))
		}
		if japanese && l.kind == "prose" && !hasJapanese(l.text) && englishWords.MatchString(l.text) {
			bad = append(bad, fmt.Sprintf("line %d is English: %s", l.n, l.text))
		}
	}
	return bad
}

// labrunCluster is labrun's first line, naming the run's cluster dir by
// its kubeconfig.
var labrunCluster = regexp.MustCompile(`\(kubeconfig (/\S+)/kubeconfig\)`)

// learnerPaths is out with the run's own paths as a learner's VM has
// them: the evidence dir /root/cnpa-op, the unit dir /etc/systemd/system,
// k3s's kubeconfig and the binary in /usr/local/bin.
func learnerPaths(out string) string {
	if m := labrunCluster.FindStringSubmatch(out); m != nil {
		dir := m[1]
		out = strings.NewReplacer(dir+"/cnpa-op", "/root/cnpa-op", dir+"/systemd", "/etc/systemd/system",
			dir+"/kubeconfig", "/etc/rancher/k3s/k3s.yaml").Replace(out)
	}
	return cnpaBinary.ReplaceAllString(out, "/usr/local/bin/cnpa")
}

// cnpaBinary is the path of the cnpa binary a run was given (quoted in
// a script), where a learner's is /usr/local/bin/cnpa.
var cnpaBinary = regexp.MustCompile(`'?/[^\s']*/\.bin/cnpa'?`)

// hasLongWord: the line has a word no wrap may break that is wider than
// half the line's room.
func hasLongWord(l string) bool {
	for _, w := range strings.Fields(l) {
		if ui.Width(w) > ui.Cols/2 {
			return true
		}
	}
	return false
}

func hasJapanese(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) {
			return true
		}
	}
	return false
}

// makeLabNamesLABmd are the lines of make lab's output that name LAB.md
// (cnpa check's own only once they are translated, checkTranslated).
func makeLabNamesLABmd(out string) []string {
	lines, inCheck := classifyMakeLab(out)
	var named []string
	for _, l := range lines {
		if strings.Contains(l.text, "LAB.md") && (!inCheck[l.n] || checkTranslated) {
			named = append(named, fmt.Sprintf("line %d: %s", l.n, l.text))
		}
	}
	return named
}

// checkLineProblems are the lines of `cnpa check`'s whole output wider
// than 80 display columns, but a line with one unbreakable word (a path,
// a command) wider than half the line.
func checkLineProblems(out string) []string {
	var bad []string
	for i, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if w := ui.Width(l); w > ui.Cols && !hasLongWord(l) {
			bad = append(bad, fmt.Sprintf("line %d is %d columns wide: %s", i+1, w, l))
		}
	}
	return bad
}

// brokenWords are the words the newcomer of issue 57 found broken across
// two lines (ファ / イル, 所 / 有している, a command inside `-f`): none is
// ever split at a line's end.
var brokenWords = []string{"ファイル", "所有している", "ネームスペース", "送った", "いけません", "として", "やり直して", "1回実行",
	"--force-conflicts -f -"}

// midWordBreaks are the places in out where a line ends inside one of
// brokenWords and the next line goes on with the rest of it.
func midWordBreaks(out string) []string {
	var bad []string
	for _, w := range brokenWords {
		r := []rune(w)
		for k := 1; k < len(r); k++ {
			re := regexp.MustCompile(regexp.QuoteMeta(string(r[:k])) + `\n\s*` + regexp.QuoteMeta(string(r[k:])))
			if m := re.FindString(out); m != "" {
				bad = append(bad, fmt.Sprintf("%q broken as %q", w, m))
			}
		}
	}
	return bad
}

package course_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/ui"
)

// The Japanese step titles are the lab text's own headings.
func TestJapaneseTitlesAreTheLabTextsHeadings(t *testing.T) {
	want := []string{
		"型を登録するだけでは何も起きない",
		"何がgenerationを上げるのか",
		"何度回しても同じ結果になる",
		"一度ではなく、回り続ける",
		"削除したクォータが数秒後に復活する",
		"削除する前にやるべきことがある",
		"停止中の変更を見逃さない",
		"コントローラーがやったことを値として残す",
	}
	i18n.Set(i18n.Japanese)
	defer i18n.Set(i18n.English)
	for i, s := range steps {
		if got := s.Heading(); got != want[i] {
			t.Errorf("step %d: %q, want %q", s.Number, got, want[i])
		}
	}
}

// explainAll is `cnpa explain 1..8` in l.
func explainAll(t *testing.T, l i18n.Lang) []string {
	t.Helper()
	i18n.Set(l)
	defer i18n.Set(i18n.English)
	var out []string
	for _, s := range steps {
		text, err := steps.Explain(s.Number, "/root/cnpa-op", "/etc/systemd/system")
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, text)
	}
	return out
}

// `cnpa explain 1..8` in Japanese: the headings, the titles and the prose
// are Japanese; the commands are the same as in English; nothing says
// LAB.md.
func TestExplainJapanese(t *testing.T) {
	ja, en := explainAll(t, i18n.Japanese), explainAll(t, i18n.English)
	for i, text := range ja {
		n := i + 1
		heading := i18n.Japanese.T(fmt.Sprintf("step%d.title", n))
		for _, h := range []string{fmt.Sprintf("ステップ%d — %s\n", n, heading), "なぜ\n", "手で行う\n", "見るところ\n"} {
			if !strings.Contains(text, h) {
				t.Errorf("step %d: no %q in\n%s", n, h, text)
			}
		}
		for _, h := range []string{"Why\n", "By hand\n", "What to look at\n", "When cnpa runs it", steps[i].EnglishTitle(), "LAB.md"} {
			if strings.Contains(text, h) {
				t.Errorf("step %d: %q in the Japanese\n%s", n, h, text)
			}
		}
		// Each command line is the English one up to its comment.
		for _, c := range steps[i].Explanation.Commands {
			cmd, _ := lab.SplitCommand(c)
			if cmd == "" {
				continue
			}
			first := strings.Split(cmd, "\n")[0]
			if !strings.Contains(text, "  $ "+first) || !strings.Contains(en[i], "  $ "+first) {
				t.Errorf("step %d: command %q not shown as in English", n, first)
			}
		}
		if strings.Contains(en[i], "LAB.md") {
			t.Errorf("step %d: the English says LAB.md", n)
		}
	}
}

// proseLines are text's lines but its commands ("  $ …" and their
// continuation lines).
func proseLines(text string) []string {
	var out []string
	inCommand := false
	for _, l := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(l, "  $ "):
			inCommand = true
			continue
		case inCommand && strings.HasPrefix(l, "    "):
			continue
		}
		inCommand = false
		out = append(out, l)
	}
	return out
}

// Every prose line of `cnpa explain` in Japanese fits 80 display columns;
// command lines ("  $ …", their continuation lines) may run longer.
func TestExplainWidth(t *testing.T) {
	for _, text := range explainAll(t, i18n.Japanese) {
		for _, l := range proseLines(text) {
			if w := ui.Width(l); w > lab.ProseColumns {
				t.Errorf("%d columns: %q", w, l)
			}
		}
	}
}

// No English prose is left in `cnpa explain` in Japanese: every line that
// is not a command, blank, or a name alone holds Japanese.
func TestExplainJapaneseHasNoEnglishProse(t *testing.T) {
	for i, text := range explainAll(t, i18n.Japanese) {
		for _, l := range proseLines(text) {
			if strings.TrimSpace(l) == "" || hasJapanese(l) || !strings.Contains(strings.TrimSpace(l), " ") {
				continue
			}
			if strings.Trim(codeSpans.ReplaceAllString(l, ""), " 。、.,:") == "" {
				continue // a command alone on its line, as a long one is wrapped
			}
			t.Errorf("step %d: English left: %q", i+1, l)
		}
	}
}

// codeSpans are the `commands` of a line.
var codeSpans = regexp.MustCompile("`[^`]*`")

func hasJapanese(s string) bool {
	for _, r := range s {
		if r >= 0x3040 && r <= 0x30ff || r >= 0x4e00 && r <= 0x9fff {
			return true
		}
	}
	return false
}

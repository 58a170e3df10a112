package i18n

import (
	"regexp"
	"strings"
	"testing"
)

func TestTypeset(t *testing.T) {
	for in, want := range map[string]string{
		"（ファイルは何も変更していません）… (今はinterger)":  "（ファイルは何も変更していません）… （今はinterger）",
		"{{.Name}}({{.Manager}})のunit":     "{{.Name}}（{{.Manager}}）のunit",
		"`bash -c '$(date) (x)'`を実行(必要なら)": "`bash -c '$(date) (x)'`を実行（必要なら）",
		"f(x) and g(y)":             "f(x) and g(y)",
		"値(pods=2)":                 "値（pods=2）",
		"{{if (eq .N 1)}}1件{{end}}": "{{if (eq .N 1)}}1件{{end}}",
		"(a (b) c)":                 "(a (b) c)",
		"外(内(x)側)":                  "外（内（x）側）",
	} {
		if got := Typeset(in); got != want {
			t.Errorf("Typeset(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestJapaneseOneParenthesisStyle: every Japanese message, as said, has
// full-width parentheses in its sentences (issue 57): no half-width
// parenthesis next to or around Japanese outside code spans and
// placeholders.
func TestJapaneseOneParenthesisStyle(t *testing.T) {
	code := regexp.MustCompile("`[^`]*`|\\{\\{[^}]*\\}\\}")
	mixed := regexp.MustCompile(`[\p{Han}\p{Hiragana}\p{Katakana}ー、。]\(|\)[\p{Han}\p{Hiragana}\p{Katakana}ー、。]`)
	for _, m := range compiled(Japanese) {
		said := code.ReplaceAllString(Typeset(m.Other), "x")
		if mixed.MatchString(said) {
			t.Errorf("%s: half-width parenthesis in a Japanese sentence: %q", m.ID, strings.TrimSpace(Typeset(m.Other)))
		}
	}
}

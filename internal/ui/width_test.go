package ui

import (
	"bytes"
	"strings"
	"testing"
)

func TestWidth(t *testing.T) {
	for _, c := range []struct {
		s string
		w int
	}{
		{"", 0},
		{"step1.uid", 9},
		{"✓ ✗ → … ≠", 9},                       // ambiguous and neutral: one column
		{"調整ループ", 10},                          // wide
		{"ｱｲｳ", 3},                             // halfwidth katakana
		{"ＡＢ", 4},                              // fullwidth Latin
		{"team-alphaのteam-quota", 10 + 2 + 10}, // mixed
		{"e\u0301", 1},                         // combining acute
		{"a\u200bb", 2},                        // zero-width space
	} {
		if got := Width(c.s); got != c.w {
			t.Errorf("Width(%q) = %d, want %d", c.s, got, c.w)
		}
	}
}

// The ✓/✗ table lines up whatever the script of its names: the value
// column starts at the same display column.
func TestVerdictAlignsWideNames(t *testing.T) {
	var b bytes.Buffer
	p := New(&b, true)
	p.Verdict(true, "uid", "u-1", "u-1")
	p.Verdict(true, "望ましい状態", "u-2", "u-2")
	p.Status(true, "クラスター", "ok")
	p.Status(true, "cluster", "ok")
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	col := func(l, v string) int { return Width(l[:strings.Index(l, v)]) }
	if a, c := col(lines[0], "u-1"), col(lines[1], "u-2"); a != c {
		t.Errorf("values at columns %d and %d:\n%s", a, c, b.String())
	}
	// "ok" is the first word of both lines: find the detail after the name
	if a, c := Width(strings.TrimRight(lines[2], "ok")), Width(strings.TrimRight(lines[3], "ok")); a != c {
		t.Errorf("details at columns %d and %d:\n%s", a, c, b.String())
	}
	if got := Pad("状態", 6); got != "状態  " {
		t.Errorf("Pad = %q", got)
	}
	if got := Pad("abcdefg", 3); got != "abcdefg" {
		t.Errorf("Pad of a longer string = %q", got)
	}
}

func TestWrap(t *testing.T) {
	ja := "  コントローラーは、誰が削除したのかを知りません。次の周回で、望ましい状態と実際の状態を比較するだけです。そのため、復元されたクォータは、名前は同じでも新しいオブジェクトです。kubectl get resourcequota team-quota -n team-alphaで確かめます。"
	out := Wrap(ja, 80)
	lines := strings.Split(out, "\n")
	if len(lines) < 3 {
		t.Fatalf("not wrapped:\n%s", out)
	}
	if strings.ReplaceAll(strings.Join(lines, ""), "  ", "") != strings.ReplaceAll(ja, "  ", "") {
		t.Errorf("wrapping lost or added text:\n%s", out)
	}
	for _, l := range lines {
		if Width(l) > 80 {
			t.Errorf("%d columns: %q", Width(l), l)
		}
		if !strings.HasPrefix(l, "  ") {
			t.Errorf("continuation without the indent: %q", l)
		}
		body := strings.TrimLeft(l, " ")
		if r := []rune(body); len(r) > 0 && closing(r[0]) {
			t.Errorf("line starts with a closing mark: %q", l)
		}
		for _, w := range []string{"resourcequota", "team-quota", "team-alpha"} {
			if strings.Contains(out, w[:len(w)-1]+"\n") {
				t.Errorf("%s broken inside:\n%s", w, out)
			}
		}
	}
	en := "  A CRD only registers a new noun with the API server. Creating a TeamSpace stores it, but nobody acts on it yet."
	for _, l := range strings.Split(Wrap(en, 80), "\n") {
		if Width(l) > 80 || strings.HasSuffix(l, " ") {
			t.Errorf("English line %q", l)
		}
	}
	short := "short line\n  and another"
	if Wrap(short, 80) != short {
		t.Errorf("a line within the width changed")
	}
}

func TestWrapKeepsCodeSpansWhole(t *testing.T) {
	s := "  ステップの最後に、コントローラーの反応のタイムラインを表示します(保存され、`cnpa report --html FILE`がグラフにします)。"
	out := Wrap(s, 80)
	if !strings.Contains(out, "`cnpa report --html FILE`") {
		t.Errorf("code span broken:\n%s", out)
	}
}

func TestWrapHangsListItems(t *testing.T) {
	s := "  - ネームスペースteam-<名前>: ラベルplatform.labhub.io/teamspace: <名前>と、そのTeamSpaceを指すownerReference付き"
	lines := strings.Split(Wrap(s, 80), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[1], "    ") || strings.HasPrefix(lines[1], "     ") {
		t.Errorf("list item not hung:\n%s", strings.Join(lines, "\n"))
	}
}

// A ✓/✗ row wider than 80 columns hangs its value under the value column,
// every line at most 80, nothing of the value or the expectation lost; a
// name wider than its column puts the value below it.
func TestVerdictWrapsAt80(t *testing.T) {
	var b bytes.Buffer
	p := New(&b, true)
	value := "cnpa-probe-7486d3、team-cnpa-probe-7486d3とそのクォータが消えた、そのあとでもう一度確かめた"
	p.Verdict(true, "プローブとそのネームスペースとクォータを削除", value, nil)
	p.Verdict(false, "generation", "a value of some length that will not fit beside", "the expected one, also long")
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	for _, l := range lines {
		if Width(l) > Cols {
			t.Errorf("line %d columns wide: %q", Width(l), l)
		}
	}
	if lines[0] != "  ✓ プローブとそのネームスペースとクォータを削除" || !strings.HasPrefix(lines[1], strings.Repeat(" ", 33)+"cnpa-probe-7486d3") {
		t.Errorf("a wide name: want the name alone, then the value at column 33:\n%s", b.String())
	}
	joined := ""
	for _, l := range lines {
		joined += strings.TrimSpace(l)
	}
	if !strings.Contains(joined, strings.ReplaceAll(value, " ", "")) {
		t.Errorf("the value is lost:\n%s", b.String())
	}
	want := []string{"  ✗ generation                   a value of some length that will not fit beside",
		"                                 (expected the expected one, also long)"}
	if got := lines[len(lines)-2:]; got[0] != want[0] || got[1] != want[1] {
		t.Errorf("a name that fits keeps the value beside it, the expectation below:\n%q\nwant\n%q", got, want)
	}
}

// TestWrapNeverInsideAWord: the newcomer's mid-word breaks (issue 57),
// at every width: Japanese breaks between phrases only, a number stays
// with its counter, a name with its particle, a code span whole.
func TestWrapNeverInsideAWord(t *testing.T) {
	text := "ステップ3: reconcile.shを1回実行しても、ネームスペースteam-alphaのファイルが所有している" +
		"クォータを送ったあとに消してはいけません。statusとして残します（ファイルは何も変更していません）。" +
		"`kubectl apply --server-side --field-manager=<yours> --force-conflicts -f -`を使ってください。やり直してください。" +
		"手での編集を取り戻せず、JSONファイルに書き出します。値を置き換えて読み込み直します。" +
		"あなた自身のJSONファイル（drift.json、report.json）を/tmp/a/cnpa-op/own-<時刻>/へ移します"
	words := []string{"report.json）を", "own-<時刻>/へ", "取り戻せず", "書き出します", "置き換えて", "読み込み直します", "ファイル", "所有している", "ネームスペース", "送った", "いけません", "として", "reconcile.shを", "1回実行しても", "やり直して",
		"`kubectl apply --server-side --field-manager=<yours> --force-conflicts -f -`を", "（ファイルは", "変更していません）。"}
	for cols := 12; cols <= 80; cols++ {
		out := Wrap(text, cols)
		for _, w := range words {
			r := []rune(w)
			for k := 1; k < len(r); k++ {
				if strings.Contains(out, string(r[:k])+"\n"+string(r[k:])) {
					t.Errorf("cols %d: %q broken as %q / %q:\n%s", cols, w, string(r[:k]), string(r[k:]), out)
				}
			}
		}
		if strings.NewReplacer("\n", "", " ", "").Replace(out) != strings.ReplaceAll(text, " ", "") {
			t.Errorf("cols %d: wrapping changed the text:\n%s", cols, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if cols >= 30 && Width(l) > cols && !strings.Contains(l, "`") {
				t.Errorf("cols %d: line %q is %d columns", cols, l, Width(l))
			}
		}
	}
}

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/ui"
)

// The English catalog's help texts are the words of the commands here,
// every command's and subcommand's, urfave/cli's own help command and
// --help included, so a translator reads them in the catalog alone; every
// language has each (i18n's TestCatalog holds the others to English).
func TestHelpCatalog(t *testing.T) {
	cli.VersionFlag = versionFlag
	app := &cli.App{Usage: appUsage, Version: "dev", Flags: globalFlags, Commands: appCommands()}
	app.Setup()
	texts := helpTexts(app, i18n.English.Has)
	if len(texts) < 100 {
		t.Fatalf("only %d help texts", len(texts))
	}
	ids := map[string]bool{}
	for _, h := range texts {
		if got := i18n.English.T(h.ID); got != h.English {
			t.Errorf("en.toml %s = %q, but cmd/cnpa says %q", h.ID, got, h.English)
		}
		ids[h.ID] = true
	}
	for id := range ids {
		for _, l := range i18n.Langs {
			if !l.Has(id) {
				t.Errorf("%s lacks %s", i18n.CatalogFile(l), id)
			}
		}
	}
	for _, want := range []string{"help.controller.usage", "help.service.start.usage", "help.class.grade.description", "help.help.usage", "help.flag.help", "help.flag.version"} {
		if !ids[want] {
			t.Errorf("no %s among the help texts", want)
		}
	}
}

// The language comes from --lang, CNPA_LANG, then LC_ALL, LC_MESSAGES and
// LANG, as kubectl reads them; a locale cnpa has no language for is
// English, silently.
func TestLanguageChosen(t *testing.T) {
	t.Parallel()
	const ja5, en5 = "ステップ5 — 削除したクォータが数秒後に復活する\n", "Step 5 — The deleted quota is back seconds later\n"
	for _, c := range []struct {
		name string
		env  []string
		args []string
		want string
	}{
		{"LANG=ja_JP.UTF-8", []string{"LANG=ja_JP.UTF-8"}, []string{"explain", "5"}, ja5},
		{"LC_ALL=ja_JP.UTF-8", []string{"LC_ALL=ja_JP.UTF-8"}, []string{"explain", "5"}, ja5},
		{"LC_MESSAGES=ja", []string{"LC_MESSAGES=ja"}, []string{"explain", "5"}, ja5},
		{"LANG=ja_JP", []string{"LANG=ja_JP"}, []string{"explain", "5"}, ja5},
		{"LC_ALL=C over LANG=ja", []string{"LC_ALL=C", "LANG=ja_JP.UTF-8"}, []string{"explain", "5"}, en5},
		{"unknown locale", []string{"LANG=fr_FR.UTF-8"}, []string{"explain", "5"}, en5},
		{"none", nil, []string{"explain", "5"}, en5},
		{"--lang ja", nil, []string{"--lang", "ja", "explain", "5"}, ja5},
		{"--lang=ja after the command", nil, []string{"explain", "5", "--lang=ja"}, ja5},
		{"--lang en over LANG=ja", []string{"LANG=ja_JP.UTF-8"}, []string{"--lang", "en", "explain", "5"}, en5},
		{"CNPA_LANG=ja", []string{"CNPA_LANG=ja", "LANG=en_US.UTF-8"}, []string{"explain", "5"}, ja5},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, errOut := cnpaEnv(t, c.env, c.args...)
			if code != 0 || !strings.HasPrefix(out, c.want) {
				t.Fatalf("exit %d, stdout begins %q, want %q; stderr %q", code, firstLine(out), c.want, errOut)
			}
		})
	}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// A language asked for by name that cnpa does not have is a usage error:
// one line, exit 2.
func TestLangUsageErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{nil, []string{"--lang", "ko", "explain", "1"}, "cnpa: --lang ko: cnpa speaks en or ja\n"},
		{nil, []string{"explain", "1", "--lang"}, "cnpa: flag --lang needs a value: en|ja\n"},
		{[]string{"CNPA_LANG=xx"}, []string{"version"}, "cnpa: CNPA_LANG xx: cnpa speaks en or ja\n"},
	} {
		code, _, errOut := cnpaEnv(t, c.env, c.args...)
		if code != 2 || errOut != c.want {
			t.Errorf("cnpa %q: exit %d, stderr %q; want 2, %q", c.args, code, errOut, c.want)
		}
	}
}

// --help of every command is in the chosen language, the lists of
// commands and a subcommand's too.
func TestHelpInJapanese(t *testing.T) {
	t.Parallel()
	code, out, _ := cnpaEnv(t, []string{"LANG=ja_JP.UTF-8"}, "step", "--help")
	if code != 0 || !strings.Contains(out, "ラボのステップ1..8、またはすべてを実行し") || !strings.Contains(out, "ラボの手順どおりに") ||
		!strings.Contains(out, "1つの条件を待つ最長の時間") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	// urfave/cli's headings and its "(default: …)" too.
	for _, w := range []string{"\n名前:\n", "\n使い方:\n", "\n説明:\n", "\nオプション:\n", "（既定: 3m0s）"} {
		if !strings.Contains("\n"+out, w) {
			t.Errorf("step --help does not say %q:\n%s", w, out)
		}
	}
	for _, w := range []string{"NAME:", "USAGE:", "OPTIONS:", "(default:"} {
		if strings.Contains(out, w) {
			t.Errorf("step --help in Japanese says %q:\n%s", w, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "   ") && !strings.HasPrefix(strings.TrimSpace(l), "-") {
			// description lines (not flags) fit 80 columns
			if w := displayWidth(l); w > 80 {
				t.Errorf("%d columns: %q", w, l)
			}
		}
	}
	_, out, _ = cnpaEnv(t, []string{"LANG=ja_JP.UTF-8"}, "--help")
	if !strings.Contains(out, "TeamSpaceコントローラーのラボを実行し") || !strings.Contains(out, "TeamSpaceコントローラーを実行する") ||
		!strings.Contains(out, "ヘルプを表示する") || strings.Contains(out, "run the TeamSpace controller") {
		t.Errorf("app help:\n%s", out)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"service", "--help"}, []string{"cnpa-op.service（systemdのユニット", "コントローラーのサービスを起動する", "コマンドの一覧、または"}},
		{[]string{"service", "start", "--help"}, []string{"コントローラーのサービスを起動する", "1つの条件を待つ最長の時間"}},
		{[]string{"class", "grade", "--help"}, []string{"すべての受講者の提出ファイルを1つの成績表にする", "採点し直します", "クラスのページも"}},
		{[]string{"controller", "--help"}, []string{"定期的な全体の周回の間隔"}},
	} {
		code, out, _ := cnpaEnv(t, []string{"LANG=ja_JP.UTF-8"}, c.args...)
		for _, w := range c.want {
			if code != 0 || !strings.Contains(out, w) {
				t.Errorf("cnpa %q: exit %d, no %q in\n%s", c.args, code, w, out)
			}
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "   ") && !strings.HasPrefix(strings.TrimSpace(l), "-") && displayWidth(l) > 80 && !strings.Contains(l, "  ") {
				t.Errorf("cnpa %q: %d columns: %q", c.args, displayWidth(l), l)
			}
		}
	}
}

func displayWidth(s string) int { return ui.Width(s) }

// Usage errors are in the chosen language: still one line and exit 2.
func TestUsageErrorsInJapanese(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"stpe"}, "cnpa: \"cnpa\"に\"stpe\"というコマンドはありません: stepのことですか?（`cnpa --help`にコマンドの一覧があります）\n"},
		{[]string{"check", "--stpe", "1"}, "cnpa: \"cnpa check\"に--stpeというフラグはありません: --stepのことですか?（`cnpa check --help`にフラグの一覧があります）\n"},
		{[]string{"explain", "9"}, "cnpa: \"9\"というステップはありません: ラボのステップは1〜8です（または`all`）\n"},
		{[]string{"--lang", "ko", "explain", "1"}, "cnpa: --lang ko: cnpaが話せるのはenとjaです\n"},
		{[]string{"explain", "1", "--lang"}, "cnpa: --langフラグには値が必要です: en|ja\n"},
		{[]string{"completion", "tcsh"}, "cnpa: completion \"tcsh\": bash、zsh、fishのどれかを指定してください\n"},
	} {
		code, _, errOut := cnpaEnv(t, []string{"LANG=ja_JP.UTF-8"}, c.args...)
		if code != 2 || errOut != c.want {
			t.Errorf("cnpa %q: exit %d, stderr %q; want 2, %q", c.args, code, errOut, c.want)
		}
	}
}

// cnpa report's own lines fit 80 columns in both languages, without a
// cluster and with a long evidence dir (the newcomer's: 250 columns);
// only a path wider than a line stands on a line of its own, whole.
func TestReportLinesFit80Columns(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "a-rather-long-directory-name-as-learners-have", "cnpa-op-evidence")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(dir, "report.html")
	for _, lang := range []string{"en", "ja"} {
		code, out, errOut := cnpaEnv(t, nil, "--lang", lang, "--dir", dir, "--kubeconfig", filepath.Join(dir, "none"), "report", "--html", page)
		if code != 0 || !strings.Contains(out, "report.html") {
			t.Fatalf("%s: cnpa report: exit %d\n%s%s", lang, code, out, errOut)
		}
		for _, l := range strings.Split(out+errOut, "\n") {
			if displayWidth(l) > 80 && !strings.Contains(l, dir) {
				t.Errorf("%s: %d columns: %q", lang, displayWidth(l), l)
			}
		}
	}
}

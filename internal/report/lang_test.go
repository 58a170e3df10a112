package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/course"
	"github.com/labhub/cnpa/internal/i18n"
)

// The page is in the chosen language, says so in <html lang>, and shows
// the lab text's headings as the steps' titles.
func TestPageInJapanese(t *testing.T) {
	render := func(l i18n.Lang) string {
		i18n.Set(l)
		defer i18n.Set(i18n.English)
		p := Build(Options{Steps: course.Steps.Lab(), Dir: t.TempDir(), AlphaUnknown: "no cluster", Now: time.Unix(0, 0), Version: "test"})
		var b bytes.Buffer
		if err := Write(&b, p); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	ja, en := render(i18n.Japanese), render(i18n.English)
	if !strings.Contains(en, `<html lang="en">`) || !strings.Contains(ja, `<html lang="ja">`) {
		t.Fatalf("lang: en %q, ja %q", firstLines(en), firstLines(ja))
	}
	for _, want := range []string{"TeamSpaceコントローラーのラボ — レポート", "ステップ5", "削除したクォータが数秒後に復活する",
		"期待どおりの値", "未実施", "自己完結"} {
		if !strings.Contains(ja, want) {
			t.Errorf("no %q on the Japanese page", want)
		}
	}
	for _, english := range []string{"TeamSpace controller lab — report", "evidence values as expected", "not done yet",
		"The deleted quota is back seconds later", "This page is self-contained"} {
		if strings.Contains(ja, english) {
			t.Errorf("%q on the Japanese page", english)
		}
		if !strings.Contains(en, english) {
			t.Errorf("%q missing from the English page", english)
		}
	}
}

func firstLines(s string) string {
	if len(s) > 80 {
		return s[:80]
	}
	return s
}

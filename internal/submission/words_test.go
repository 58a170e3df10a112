package submission

import (
	"testing"

	"github.com/labhub/cnpa/internal/i18n"
)

// A file that is no submission is said to the instructor in the chosen
// language, with what to do; in English as it always was.
func TestErrorsInTheChosenLanguage(t *testing.T) {
	defer i18n.Set(i18n.Current())
	for _, c := range []struct {
		data   string
		en, ja string
	}{
		{"", "x.json is empty: ask the learner to run `cnpa submit` again and send the file it writes",
			"x.json: 空である。受講者に`cnpa submit`をもう一度実行してもらい、書かれたファイルを送ってもらってください"},
		{`{"kind":"Other","format":1}`, `x.json is not a cnpa submission: it is a "Other", not a "` + Kind + `": give the file ` + "`cnpa submit`" + ` writes (` + DefaultName + `)`,
			`x.json: cnpaの提出ファイルではない: "` + Kind + `"ではなく"Other"である。` + "`cnpa submit`" + `が書くファイル（` + DefaultName + `）を指定してください`},
	} {
		for _, l := range []struct {
			lang i18n.Lang
			want string
		}{{i18n.English, c.en}, {i18n.Japanese, c.ja}} {
			i18n.Set(l.lang)
			if _, err := Parse("x.json", []byte(c.data)); err == nil || err.Error() != l.want {
				t.Errorf("%s %q: got %v, want %q", l.lang, c.data, err, l.want)
			}
		}
	}
	i18n.Set(i18n.Japanese)
	if err := CheckName(" ada"); err == nil || err.Error() != "が空白で始まるか、空白で終わっている" {
		t.Errorf("CheckName in Japanese: %v", err)
	}
}

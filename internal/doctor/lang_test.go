package doctor

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/i18n"
)

// doctor's details are in the chosen language; English is as it was.
func TestDetailsInTheChosenLanguage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cnpa-op")
	en := dirCheck(dir)
	if !en.OK || en.Detail != dir+" does not exist yet; `cnpa step 1` creates it" {
		t.Errorf("English: %+v", en)
	}
	i18n.Set(i18n.Japanese)
	defer i18n.Set(i18n.English)
	ja := dirCheck(dir)
	if !ja.OK || ja.Detail != dir+"はまだありません。`cnpa step 1`が作ります" {
		t.Errorf("Japanese: %+v", ja)
	}
	if got := Skew("v1.30.0", "v1.37.2"); !strings.Contains(got, "マイナーバージョンが7つ古い") || !strings.Contains(got, "v1.36〜v1.38") {
		t.Errorf("Japanese skew: %q", got)
	}
}

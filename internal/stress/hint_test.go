package stress

import (
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/i18n"
)

// A blackhole's hint names the flag the learner can change, and why it
// matters, in each language (test/stress's blackhole case runs the
// failing script once, in Japanese, and finds this hint on its verdict).
func TestBlackholeHintNamesRequestTimeout(t *testing.T) {
	for lang, why := range map[i18n.Lang]string{i18n.English: "waits forever by default", i18n.Japanese: "既定では永久に待つ"} {
		hint := lang.T("stress.why.blackhole")
		if !strings.Contains(hint, "--request-timeout") || !strings.Contains(hint, why) {
			t.Errorf("%s: stress.why.blackhole does not name --request-timeout and %q: %q", lang, why, hint)
		}
	}
}

package lab

import (
	"encoding/json"
	"fmt"

	"github.com/labhub/cnpa/internal/i18n"
)

// WriteValue is the advice for a wrong or mistyped value in an evidence
// file the learner wrote by hand: the key and the value to write, when
// the rule wants one value (want is JSON: null, 1, "…"), else what the
// value must be, in the rule's words; in the chosen language, around the
// JSON written literally. A hand-written file is fixed by
// writing the value; starting over is for a cluster that cannot repeat a
// step, not for a file.
func WriteValue(file, key, want string) string {
	if json.Valid([]byte(want)) {
		return i18n.T("lab.hint.write_value", i18n.Args{"Snippet": fmt.Sprintf("`\"%s\": %s`", key, want), "File": file})
	}
	return i18n.T("lab.hint.make_value", i18n.Args{"Key": key, "File": file, "Want": want})
}

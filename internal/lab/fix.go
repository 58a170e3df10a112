package lab

import (
	"encoding/json"
	"fmt"
)

// WriteValue is the advice for a wrong or mistyped value in an evidence
// file the learner wrote by hand: the key and the value to write, when
// the rule wants one value (want is JSON: null, 1, "…"), else what the
// value must be, in the rule's words. A hand-written file is fixed by
// writing the value; starting over is for a cluster that cannot repeat a
// step, not for a file.
func WriteValue(file, key, want string) string {
	if json.Valid([]byte(want)) {
		return fmt.Sprintf("write `\"%s\": %s` in %s", key, want, file)
	}
	return fmt.Sprintf("make %s in %s %s", key, file, want)
}

package check

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
)

// A unit file that is not there is said in the learner's language; any
// other reason it cannot be read, whole (issue 57: step4.unit_file's found
// was "open …: no such file or directory" under a Japanese title).
func TestUnitProblem(t *testing.T) {
	defer i18n.Set(i18n.Current())
	i18n.Set(i18n.Japanese)
	_, err := lab.ReadEvidence(filepath.Join(t.TempDir(), "cnpa-op.service"))
	if got := unitProblem(err); got != "存在しない" {
		t.Errorf("a missing unit: %q, want 存在しない", got)
	}
	other := errors.New("not a regular file (prw-r--r--)")
	if got := unitProblem(other); got != other.Error() {
		t.Errorf("another reason: %q, want it whole", got)
	}
}

package lab

import (
	"os"
	"path/filepath"

	"github.com/labhub/cnpa/internal/evidence"
)

// CRDFile and AlphaFile are the files LAB.md step 1 has the learner write
// and apply.
const (
	CRDFile   = "crd.yaml"
	AlphaFile = "alpha.yaml"
)

// Authors says who wrote each file of the lab that is present in dir:
// every evidence file (Files), and the learner's own files that cnpa may
// also write (crd.yaml, alpha.yaml, reconcile.sh). The value is "" when
// cnpa wrote exactly what the file holds, else why it is the learner's
// (evidence.Theirs). A missing file, or one whose author cannot be told,
// has no entry.
//
// The grader reads it among the facts it gathers (check), so that judging
// does no I/O of its own: a submission graded on the instructor's machine
// has none, and nothing of that machine is read at a path the learner
// named.
func (t Table) Authors(dir string) map[string]string {
	out := map[string]string{}
	for _, f := range append([]string{CRDFile, AlphaFile, ScriptName}, t.Files()...) {
		if _, err := os.Lstat(filepath.Join(dir, f)); err != nil {
			continue
		}
		if why, err := evidence.Theirs(dir, f); err == nil {
			out[f] = why
		}
	}
	return out
}

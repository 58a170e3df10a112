package submission_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/labhub/cnpa/internal/submission"
	"github.com/labhub/cnpa/test/kit/classfixture"
)

// TestExamIsRecorded: a submission taken in exam mode says so, under
// its hash; one that was not has no exam key at all, so that the
// content, and the hash, of every earlier submission are as they were.
func TestExamIsRecorded(t *testing.T) {
	dir := t.TempDir()
	for _, exam := range []bool{true, false} {
		c, err := classfixture.Good("ada", 1)
		if err != nil {
			t.Fatal(err)
		}
		c.Exam = exam
		path := filepath.Join(dir, "s.json")
		if err := submission.Write(path, c); err != nil {
			t.Fatal(err)
		}
		s, err := submission.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		if s.Exam != exam || !s.HashOK || bytes.Contains(data, []byte(`"exam"`)) != exam {
			t.Errorf("exam %v: read back exam %v, hash ok %v, file has the key %v", exam, s.Exam, s.HashOK, bytes.Contains(data, []byte(`"exam"`)))
		}
	}
}

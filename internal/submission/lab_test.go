package submission_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/submission"
	"github.com/labhub/cnpa/test/kit/classfixture"
)

// TestLabIsRecorded: a file lab's submission is format 3, names the lab
// and its hash, keeps its facts as written, and reads back whole, with
// no TeamSpace facts; a TeamSpace submission has no lab key and keeps
// its format; a lab named with no proper hash is refused, naming it.
func TestLabIsRecorded(t *testing.T) {
	dir := t.TempDir()
	c := &submission.Content{Learner: "ada", CnpaVersion: "dev", Evidence: map[string]string{"refuse.json": `{"refused": true}`},
		Lab: &submission.LabRef{Name: "vap", SHA256: strings.Repeat("0", 64)}, LabFacts: json.RawMessage(`{"refuse":{"too_many":{"admitted":false}}}`)}
	path := filepath.Join(dir, "s.json")
	if err := submission.Write(path, c); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !bytes.Contains(data, []byte(`"format": 3`)) {
		t.Errorf("a file lab's submission is not format 3:\n%s", data)
	}
	s, err := submission.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	var facts bytes.Buffer
	_ = json.Compact(&facts, s.LabFacts)
	if !s.HashOK || s.Lab == nil || s.Lab.Name != "vap" || facts.String() != `{"refuse":{"too_many":{"admitted":false}}}` || s.Facts != nil {
		t.Errorf("read back: hash ok %v, lab %+v, facts %s", s.HashOK, s.Lab, s.LabFacts)
	}
	c.Lab.SHA256 = "abc"
	if err := submission.Write(path, c); err != nil {
		t.Fatal(err)
	}
	if _, err := submission.Read(path); err == nil || !strings.Contains(err.Error(), `names lab "vap" with hash "abc"`) {
		t.Errorf("a lab with no proper hash: %v, want it refused by name", err)
	}
	ts, err := classfixture.Good("ada", 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := submission.Write(path, ts); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	if bytes.Contains(data, []byte(`"lab"`)) || bytes.Contains(data, []byte(`"format": 3`)) {
		t.Errorf("a TeamSpace submission names a lab or is format 3")
	}
}

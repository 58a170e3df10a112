package reset

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/labhub/cnpa/internal/evidence"
)

// TestArchiveFile: reset never overwrites a record that is not this
// TeamSpace's; it writes beside it and says what the kept one holds.
func TestArchiveFile(t *testing.T) {
	cases := []struct {
		name     string
		existing string // beta.json's content; "" for none
		wantFile string
		wantHeld string
	}{
		{"no record yet", "", "beta.json", ""},
		{"this TeamSpace's own record", `{"name":"beta","uid":"uid-now","pods":3}`, "beta.json", ""},
		{"step 6's beta, another uid", `{"name":"beta","uid":"uid-step6","pods":2}`, "beta.uid-now.json", "uid uid-step6"},
		{"a record that does not read", `{"name":"beta"`, "beta.uid-now.json", "one that does not read"},
		{"a record of another shape", `{"name":"beta","uid":"uid-now","pods":"three"}`, "beta.uid-now.json", "one that does not read"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.existing != "" {
				if err := os.WriteFile(filepath.Join(dir, "beta.json"), []byte(c.existing+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			file, held := archiveFile(dir, "beta", "uid-now")
			if file != c.wantFile || held != c.wantHeld {
				t.Errorf("got %q (held %q), want %q (held %q)", file, held, c.wantFile, c.wantHeld)
			}
		})
	}
	// And what it chose is where the record goes, the kept one untouched.
	dir := t.TempDir()
	if err := evidence.WriteArchive(dir, evidence.ArchiveRecord{Name: "beta", UID: "uid-step6", Pods: 2}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "beta.json"))
	file, _ := archiveFile(dir, "beta", "uid-now")
	if err := evidence.WriteArchiveAs(dir, file, evidence.ArchiveRecord{Name: "beta", UID: "uid-now", Pods: 3}); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "beta.json")); string(after) != string(before) {
		t.Errorf("beta.json: got %s, want it kept as %s", after, before)
	}
}

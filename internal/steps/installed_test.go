package steps

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestLineEdits: step 6 shows the unit's changed lines as sed edits, and
// bash running them turns the old unit into the new one exactly, whatever
// the line holds (|, &, \, quotes, %); a change that is not a one-line
// replacement is not an edit (the unit is shown whole then).
func TestLineEdits(t *testing.T) {
	before := "[Service]\nExecStart=/x/cnpa controller --finalizer=false\nRestart=always\n"
	after := "[Service]\nExecStart=/x y/cnpa controller --finalizer=true | & \\ 'q' \"d\" %d\nRestart=always\n"
	edits, ok := lineEdits([]byte(before), strings.Split(strings.TrimRight(after, "\n"), "\n"))
	if !ok || len(edits) != 1 {
		t.Fatalf("lineEdits: got %v, %t, want one edit", edits, ok)
	}
	path := filepath.Join(t.TempDir(), "cnpa-op.service")
	if err := os.WriteFile(path, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("bash", "-c", edits[0].sed(path)).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", edits[0].sed(path), err, out)
	}
	if got, _ := os.ReadFile(path); string(got) != after {
		t.Errorf("after %s:\ngot  %q\nwant %q", edits[0].sed(path), got, after)
	}
	for _, tt := range []struct{ name, before, after string }{
		{"a line more", before, before + "X=1\n"},
		{"a new key", before, strings.Replace(before, "Restart=always", "RestartSec=1", 1)},
		{"nothing before", "", before},
	} {
		if _, ok := lineEdits([]byte(tt.before), strings.Split(strings.TrimRight(tt.after, "\n"), "\n")); ok {
			t.Errorf("%s: lineEdits says ok, want the file shown whole", tt.name)
		}
	}
}

package atomicfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "dir")
	path := filepath.Join(dir, "x.json")
	for _, content := range []string{"first\n", "second\n"} {
		if err := WriteFile(path, []byte(content), 0o640); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != content {
			t.Fatalf("content: got %q (%v), want %q", got, err, content)
		}
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("mode: got %v, want 0640", fi.Mode().Perm())
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".x.json.tmp-*")); len(left) > 0 {
		t.Errorf("temp files left: %v", left)
	}
}

func TestWriteFileIntoAFileFails(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o600)
	if err := WriteFile(filepath.Join(file, "x"), []byte("x"), 0o600); err == nil {
		t.Fatal("writing below a regular file: got nil error, want one")
	}
}

// TestLongNames: a final name as long as the file system allows still gets
// a temp file, and the write lands under the final name.
func TestLongNames(t *testing.T) {
	dir := t.TempDir()
	name := strings.Repeat("n", 250) + ".json"
	if err := WriteFile(filepath.Join(dir, name), []byte("{}\n"), 0o644); err != nil {
		t.Fatalf("WriteFile with a %d-byte name: %v", len(name), err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(data) != "{}\n" {
		t.Errorf("read back: %q, %v", data, err)
	}
}

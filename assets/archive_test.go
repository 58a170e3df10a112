package assets_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/cnpa/assets"
)

// shellFunction cuts one function out of reconcile.sh as it ships.
func shellFunction(t *testing.T, name string) string {
	t.Helper()
	script := string(assets.ReconcileScript)
	i := strings.Index(script, "\n"+name+"() {\n")
	if i < 0 {
		t.Fatalf("reconcile.sh has no function %s", name)
	}
	j := strings.Index(script[i:], "\n}\n")
	return script[i : i+j+3]
}

// TestShellArchiveWrite: the shell engine's archive write reports success
// only when the record is at archive/<name>.json and says this TeamSpace.
// A directory in its place fails the write (then the finalizer stays), and
// a symlink to a directory is replaced by the record, where a plain `mv -f`
// moved the record into that directory and reported success.
func TestShellArchiveWrite(t *testing.T) {
	fn := shellFunction(t, "write_archive")
	tests := []struct {
		name    string
		prepare func(t *testing.T, dir string)
		ok      bool
	}{
		{"fresh", func(*testing.T, string) {}, true},
		{"an old record in place", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, "b.json"), `{"name":"b","uid":"old","pods":1}`)
		}, true},
		{"a directory in place", func(t *testing.T, dir string) { mkdir(t, filepath.Join(dir, "b.json")) }, false},
		{"a symlink to a directory in place", func(t *testing.T, dir string) {
			other := filepath.Join(t.TempDir(), "elsewhere")
			mkdir(t, other)
			if err := os.Symlink(other, filepath.Join(dir, "b.json")); err != nil {
				t.Fatal(err)
			}
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "archive")
			mkdir(t, dir)
			tt.prepare(t, dir)
			cmd := exec.Command("bash", "-c", fn+`
name=b uid=uid-b pods=2 CNPA_ARCHIVE_DIR=$1
write_archive`, "_", dir)
			out, err := cmd.CombinedOutput()
			if (err == nil) != tt.ok {
				t.Fatalf("write_archive: err %v (%s), want success %t", err, out, tt.ok)
			}
			if !tt.ok {
				if !strings.Contains(string(out), "b.json") {
					t.Errorf("failure %q does not name the record", out)
				}
				return
			}
			if fi, err := os.Lstat(filepath.Join(dir, "b.json")); err != nil || !fi.Mode().IsRegular() {
				t.Fatalf("archive/b.json: %v, want a regular file", err)
			}
			data, err := os.ReadFile(filepath.Join(dir, "b.json"))
			if err != nil || strings.TrimSpace(string(data)) != `{"name":"b","uid":"uid-b","pods":2}` {
				t.Errorf("archive/b.json: got %q (%v)", data, err)
			}
			if left, _ := filepath.Glob(filepath.Join(dir, ".archive.tmp-*")); len(left) > 0 {
				t.Errorf("temp files left: %v", left)
			}
		})
	}
}

func write(t *testing.T, path, data string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestShellArchiveRefusesANameThatIsNoTeamSpaces is R4-5 of the round-4
// review for the shell engine: write_archive, as it ships, builds no path
// from a name a hostile server sends ("../../x", a slash, a newline,
// capitals, an escape sequence): it fails saying so, and nothing is
// written anywhere under the test's root. A valid name still writes.
func TestShellArchiveRefusesANameThatIsNoTeamSpaces(t *testing.T) {
	fn := shellFunction(t, "write_archive")
	for _, name := range []string{"../../x", "../x", "..", "a/b", "x\ny", "UPPER", "a\x1b[2J", "-a", strings.Repeat("a", 254)} {
		root := t.TempDir()
		dir := filepath.Join(root, "one", "two", "archive")
		cmd := exec.Command("bash", "-c", fn+`
name=$2 uid=uid-b pods=2 CNPA_ARCHIVE_DIR=$1
write_archive`, "_", dir, name)
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "refused TeamSpace name") {
			t.Errorf("write_archive with name %q: err %v (%q), want a refusal naming it", name, err, out)
		}
		var found []string
		filepath.Walk(root, func(p string, _ os.FileInfo, _ error) error {
			if p != root {
				found = append(found, p)
			}
			return nil
		})
		if len(found) > 0 {
			t.Errorf("write_archive with name %q left %v", name, found)
		}
	}
	dir := filepath.Join(t.TempDir(), "archive")
	if out, err := exec.Command("bash", "-c", fn+"\nname=team.a-1 uid=u pods=1 CNPA_ARCHIVE_DIR=$1\nwrite_archive", "_", dir).CombinedOutput(); err != nil {
		t.Errorf("a valid name (dots and dashes): %v %s", err, out)
	}
}

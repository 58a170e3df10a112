package manifest_test

import (
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/labhub/cnpa/internal/manifest"
)

func TestRecordReadCheck(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("crd.yaml", "ours")
	write("report.json", "ours")
	write("cnpa-op.log", "line 1\n")
	write("notes.json", "the learner's")
	for _, e := range []struct{ name, data string }{{"crd.yaml", "first"}, {"report.json", "ours"}, {"crd.yaml", "ours"}} {
		if err := manifest.Record(dir, e.name, []byte(e.data)); err != nil {
			t.Fatal(err)
		}
	}
	if err := manifest.Record(dir, "cnpa-op.log", nil); err != nil {
		t.Fatal(err)
	}
	if err := manifest.Record(dir, "gone.json", []byte("x")); err != nil {
		t.Fatal(err)
	}
	// Entries a reset must never follow out of dir, nor into OwnDir, and
	// a line cut short by a crash.
	f, _ := os.OpenFile(filepath.Join(dir, manifest.File), os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"path":"../outside"}` + "\n" + `{"path":"/etc/passwd"}` + "\n" + `{"path":".cnpa/manifest.jsonl"}` + "\n" + `{"path":"half`)
	f.Close()

	write("report.json", "rewritten by the learner")
	write("cnpa-op.log", "line 1\nline 2\n")

	entries, err := manifest.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name)
	}
	if want := []string{"crd.yaml", "report.json", "cnpa-op.log", "gone.json"}; !slices.Equal(names, want) {
		t.Fatalf("entries: got %v, want %v", names, want)
	}
	want := map[string]manifest.Status{
		"crd.yaml":    manifest.Unchanged, // the last write wins
		"report.json": manifest.Changed,
		"cnpa-op.log": manifest.Unchanged, // content not tracked
		"gone.json":   manifest.Missing,
	}
	for _, e := range entries {
		got, err := manifest.Check(dir, e)
		if err != nil || got != want[e.Name] {
			t.Errorf("Check(%s): got %v (err %v), want %v", e.Name, got, err, want[e.Name])
		}
	}
}

func TestRecordConcurrent(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := manifest.Record(dir, filepath.Base(t.Name())+string(rune('a'+i%26))+".json", []byte{byte(i)}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	entries, err := manifest.Read(dir)
	if err != nil || len(entries) != 26 {
		t.Errorf("concurrent records: got %d entries (err %v), want 26", len(entries), err)
	}
}

func TestReadMissing(t *testing.T) {
	entries, err := manifest.Read(t.TempDir())
	if err != nil || len(entries) != 0 {
		t.Errorf("a dir cnpa never wrote into: got %v, %v; want no entries", entries, err)
	}
}

// A file cnpa wrote, moved away and replaced by another one with the very
// same bytes (the learner's own, written with the command cnpa showed, or
// moved back) is not cnpa's: `cnpa reset` counted a hand-written
// reconcile.json as its own and deleted it (the newcomer's review, §4).
func TestAnotherFileWithTheSameBytes(t *testing.T) {
	dir := t.TempDir()
	data := []byte("{\n  \"quota_uid\": \"u\"\n}\n")
	path := filepath.Join(dir, "reconcile.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := manifest.Record(dir, "reconcile.json", data); err != nil {
		t.Fatal(err)
	}
	entries, err := manifest.Read(dir)
	if err != nil || len(entries) != 1 {
		t.Fatalf("Read: %v, %v", entries, err)
	}
	if got, err := manifest.Check(dir, entries[0]); err != nil || got != manifest.Unchanged {
		t.Fatalf("cnpa's own file: got %v (err %v), want Unchanged", got, err)
	}
	// The learner moves it away and writes their own, byte for byte.
	if err := os.Rename(path, path+".cnpa"); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := manifest.Check(dir, entries[0]); err != nil || got != manifest.Replaced {
		t.Errorf("another file with the same bytes: got %v (err %v), want Replaced", got, err)
	}
	// An entry of an earlier cnpa, without an inode, is judged by content.
	old := manifest.Entry{Name: "reconcile.json", SHA256: manifest.Sum(data)}
	if got, err := manifest.Check(dir, old); err != nil || got != manifest.Unchanged {
		t.Errorf("an entry without an inode: got %v (err %v), want Unchanged", got, err)
	}
}

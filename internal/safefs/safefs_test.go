package safefs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// TestBeneathNoSymlinks: a symlink in any part, the last included, or
// "..", is refused by openat2 and by the per-part fallback alike; a plain
// path beneath works; Remove unlinks a symlink, never its target.
func TestBeneathNoSymlinks(t *testing.T) {
	base := t.TempDir()
	dir, outside := filepath.Join(base, "dir"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(dir, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(outside, "motd"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "sub", "f"), []byte("ours"), 0o644)
	os.Symlink(outside, filepath.Join(dir, "x"))
	os.Symlink(filepath.Join(outside, "motd"), filepath.Join(dir, "link"))
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if data, err := d.ReadRegular("sub/f"); err != nil || string(data) != "ours" {
		t.Errorf("ReadRegular(sub/f): %q, %v", data, err)
	}
	for _, rel := range []string{"x/motd", "link", "../outside/motd", "sub/../x/motd"} {
		if _, err := d.ReadRegular(rel); err == nil {
			t.Errorf("ReadRegular(%s): got nil, want a refusal", rel)
		}
		fd, err := walk(d.Fd(), rel, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == nil {
			unix.Close(fd)
			t.Errorf("walk(%s): got nil, want a refusal", rel)
		}
		if err := d.Append(rel, []byte("y"), 0o644); err == nil {
			t.Errorf("Append(%s): got nil, want a refusal", rel)
		}
	}
	if err := d.Remove("x/motd"); err == nil {
		t.Errorf("Remove(x/motd): got nil, want a refusal")
	}
	if err := d.Remove("link"); err != nil {
		t.Errorf("Remove(link): %v", err)
	}
	if _, err := os.Stat(filepath.Join(outside, "motd")); err != nil {
		t.Errorf("the symlink's target is gone: %v", err)
	}
	if err := d.Remove("gone"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Remove(gone): got %v, want ErrNotExist", err)
	}
}

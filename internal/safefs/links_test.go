package safefs

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestHardLinksAndForeignOwnersRefused is N8 of issue 40: where
// fs.protected_hardlinks is 0, whoever owns the directory can hard-link
// root's file into it. Append, Chown and ReadRegular refuse a file with
// a second link, and one owned by a user other than root, this one or the
// directory's owner; the linked file is neither written, given away nor
// read.
func TestHardLinksAndForeignOwnersRefused(t *testing.T) {
	base := t.TempDir()
	dir, outside := filepath.Join(base, "dir"), filepath.Join(base, "outside")
	os.Mkdir(dir, 0o755)
	os.Mkdir(outside, 0o700)
	secret := filepath.Join(outside, "shadow")
	os.WriteFile(secret, []byte("root:secret\n"), 0o600)
	if err := os.Link(secret, filepath.Join(dir, "manifest")); err != nil {
		t.Fatal(err)
	}
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if err := d.Append("manifest", []byte("appended\n"), 0o644); !errors.Is(err, ErrLinked) {
		t.Errorf("Append to a hard link: got %v, want ErrLinked", err)
	}
	if err := d.Chown("manifest", 4242, 4242); !errors.Is(err, ErrLinked) {
		t.Errorf("Chown of a hard link: got %v, want ErrLinked", err)
	}
	if _, err := d.ReadRegular("manifest"); !errors.Is(err, ErrLinked) {
		t.Errorf("ReadRegular of a hard link: got %v, want ErrLinked", err)
	}
	if data, _ := os.ReadFile(secret); string(data) != "root:secret\n" {
		t.Errorf("the linked file was written: %q", data)
	}
	if fi, _ := os.Stat(secret); fi.Sys().(*syscall.Stat_t).Uid == 4242 {
		t.Errorf("the linked file was given away")
	}

	// Another user's file (not the directory's owner): refused too.
	if os.Geteuid() != 0 {
		t.Skip("only root can make a file of another owner")
	}
	foreign := filepath.Join(dir, "foreign")
	os.WriteFile(foreign, []byte("x"), 0o644)
	os.Chown(foreign, 4343, 4343)
	var owner *ForeignOwnerError
	if err := d.Append("foreign", []byte("y"), 0o644); !errors.As(err, &owner) {
		t.Errorf("Append to another user's file: got %v, want a ForeignOwnerError", err)
	}
	if err := d.Chown("foreign", 4242, 4242); !errors.As(err, &owner) {
		t.Errorf("Chown of another user's file: got %v, want a ForeignOwnerError", err)
	}
	// The directory's own owner's files are its own: the service user's
	// archive dir holds the service user's files.
	os.Chown(dir, 4343, 4343)
	d2, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d2.Close()
	if err := d2.Append("foreign", []byte("y"), 0o644); err != nil {
		t.Errorf("Append to the dir owner's file: %v", err)
	}
}

// TestReadRegularNeverBlocks is N10 of issue 40: a FIFO in place of a
// record (a hang of root's `cnpa report --html` for 10 minutes) is
// refused at once, as are a symlink and a file past the cap.
func TestReadRegularNeverBlocks(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "beta.json"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Symlink("/etc/hostname", filepath.Join(dir, "link.json"))
	os.WriteFile(filepath.Join(dir, "big.json"), make([]byte, 11), 0o644)
	os.WriteFile(filepath.Join(dir, "ok.json"), []byte("{}"), 0o644)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, err := ReadRegular(dir, "beta.json", 10); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadRegular of a FIFO: got %v, want ErrNotRegular", err)
		}
		if _, err := ReadFile(filepath.Join(dir, "beta.json"), 10); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile of a FIFO: got %v, want ErrNotRegular", err)
		}
		if _, err := ReadRegular(dir, "link.json", 10); err == nil {
			t.Errorf("ReadRegular of a symlink: got nil, want a refusal")
		}
		var big *TooLargeError
		if _, err := ReadRegular(dir, "big.json", 10); !errors.As(err, &big) {
			t.Errorf("ReadRegular past the cap: got %v, want a TooLargeError", err)
		}
		if _, err := ReadFile(filepath.Join(dir, "big.json"), 10); !errors.As(err, &big) {
			t.Errorf("ReadFile past the cap: got %v, want a TooLargeError", err)
		}
		if data, err := ReadRegular(dir, "ok.json", 10); err != nil || string(data) != "{}" {
			t.Errorf("ReadRegular of a plain file: %q, %v", data, err)
		}
		if _, err := ReadRegular(dir, "gone.json", 10); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("ReadRegular of a missing file: got %v, want ErrNotExist", err)
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a read blocked on the FIFO")
	}
}

// Package atomicfile writes files so that a reader, or a crash, never sees
// half of one: a temp file in the same directory, fsync, rename over the
// final name, fsync of the directory.
package atomicfile

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// TempPattern is the os.CreateTemp pattern of the temp file for name; a
// crash mid-write leaves at most such a file, never a partial final one.
// At most maxTempStem bytes of name go into it: a name that fits the file
// system must not get a temp name that does not ("file name too long"
// once kept a deletion waiting forever on an archive record).
func TempPattern(name string) string {
	if len(name) > maxTempStem {
		name = name[:maxTempStem]
	}
	return "." + name + ".tmp-*"
}

// maxTempStem leaves room for the dot, ".tmp-" and CreateTemp's random
// digits within the usual 255-byte name limit.
const maxTempStem = 200

// WriteFile writes data to path with perm, atomically and durably. The
// directory is created when missing.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	dir, name := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	tmp, err := os.CreateTemp(dir, TempPattern(name))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // a no-op after a successful rename
	if _, err := writeTemp(tmp, data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("fsync %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return fmt.Errorf("chmod %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("rename into %s: %w", path, err)
	}
	// The rename is durable only once the directory entry is on disk.
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// WriteJSON writes v as indented JSON and a newline to path, mode 0644, as
// WriteFile does: for the records cnpa keeps for itself (a saved report, a
// timeline, a reading).
func WriteJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFile(path, append(data, '\n'), 0o644)
}

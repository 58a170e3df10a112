package controller

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// ArchiveRecord is what stays of a TeamSpace after it is deleted:
// <archive-dir>/<name>.json.
type ArchiveRecord struct {
	Name string `json:"name"`
	UID  string `json:"uid"`
	Pods int64  `json:"pods"`
}

// faultHook lets the fault tests kill the process at the two moments that
// matter for crash safety; it is read from CNPA_FAULT and empty in
// production. "during-archive" dies with half a temp file written,
// "after-archive" dies after the rename and before the finalizer goes.
var faultHook = os.Getenv("CNPA_FAULT")

// WriteArchive writes rec to dir/<name>.json atomically and durably:
// a temp file in the same directory, fsync, rename over the final name,
// fsync of the directory. A reader never sees a partial record under the
// final name, and once WriteArchive returns the record survives a crash.
// The directory is created when missing.
func WriteArchive(dir string, rec ArchiveRecord) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create archive dir %s: %w", dir, err)
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	data = append(data, '\n')
	final := filepath.Join(dir, rec.Name+".json")
	tmp, err := os.CreateTemp(dir, "."+rec.Name+".json.tmp-*")
	if err != nil {
		return fmt.Errorf("write archive %s: %w", final, err)
	}
	defer os.Remove(tmp.Name()) // a no-op after a successful rename
	if faultHook == "during-archive" {
		tmp.Write(data[:len(data)/2])
		tmp.Sync()
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write archive %s: %w", final, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("fsync archive %s: %w", final, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		return fmt.Errorf("rename archive into %s: %w", final, err)
	}
	if d, err := os.Open(dir); err == nil {
		// The rename is durable only once the directory entry is on disk.
		d.Sync()
		d.Close()
	}
	if faultHook == "after-archive" {
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
	}
	return nil
}

// ReadArchive reads dir/<name>.json; a missing file is (nil, nil).
func ReadArchive(dir, name string) (*ArchiveRecord, error) {
	data, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rec ArchiveRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, fmt.Errorf("archive %s/%s.json: %w", dir, name, err)
	}
	return &rec, nil
}

package kit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlaceCnpaCopiesThePrebuiltBinary: with $CNPA_BIN set (make test),
// PlaceCnpa copies that file, executable, into the test's own path, and
// never writes through a file already there.
func TestPlaceCnpaCopiesThePrebuiltBinary(t *testing.T) {
	dir := t.TempDir()
	prebuilt := filepath.Join(dir, "prebuilt")
	want := []byte("#!/bin/sh\necho prebuilt\n")
	if err := os.WriteFile(prebuilt, want, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Setenv(PrebuiltEnv, prebuilt)

	placed := filepath.Join(dir, "placed", "cnpa")
	if err := os.MkdirAll(filepath.Dir(placed), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := PlaceCnpa(placed); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(placed)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("placed binary holds %q, want the prebuilt one's %q", got, want)
	}
	if fi, err := os.Stat(placed); err != nil {
		t.Error(err)
	} else if fi.Mode().Perm() != 0o755 {
		t.Errorf("placed binary: mode %v, want 0755", fi.Mode().Perm())
	}

	// A file already at the path is not written through: its content stays.
	if err := PlaceCnpa(placed); err == nil || !strings.Contains(err.Error(), PrebuiltEnv) {
		t.Errorf("PlaceCnpa onto an existing file: err %v, want one naming $%s", err, PrebuiltEnv)
	}
	t.Setenv(PrebuiltEnv, filepath.Join(dir, "missing"))
	if err := PlaceCnpa(filepath.Join(dir, "placed", "other")); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("PlaceCnpa from a missing $%s: err %v, want one naming the file", PrebuiltEnv, err)
	}
}

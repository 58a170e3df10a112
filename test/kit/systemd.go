package kit

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// OddDir is a directory path under base built to break naive quoting, in
// bash and in a systemd unit alike: a space and a `%` specifier, a command
// substitution that would touch marker if it ever ran, a `}` that ends a
// ${VAR:-default}, and a single quote. The dir is not created.
func OddDir(base string) (dir, marker string) {
	marker = filepath.Join(base, "pwned")
	return filepath.Join(base, "my lab %x", "a$(touch "+marker+")b", "x}y", "it's"), marker
}

// NoMarker fails t if marker exists: a quoting bug ran OddDir's `$(touch …)`.
func NoMarker(t testing.TB, marker string) {
	t.Helper()
	if _, err := os.Lstat(marker); err == nil {
		t.Errorf("%s exists: a command embedded in a path was run", marker)
	}
}

// SystemdAnalyze runs systemd-analyze with args and returns its combined
// output and error. It is offline work on a unit file: nothing is booted.
// A machine without it skips the test, except under CI=true, where it fails.
func SystemdAnalyze(t testing.TB, args ...string) (string, error) {
	t.Helper()
	bin, err := exec.LookPath("systemd-analyze")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true but systemd-analyze is missing (Debian package systemd)")
		}
		t.Skip("systemd-analyze is missing (Debian package systemd)")
	}
	cmd := exec.Command(bin, args...)
	// To stderr: without a terminal it would log to the journal, and its
	// warnings would never reach the test.
	cmd.Env = append(os.Environ(), "SYSTEMD_LOG_TARGET=console")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// VerifyUnit writes unit as cnpa-op.service in a temp dir and has
// `systemd-analyze verify` read it: it must exit 0 and say nothing, since
// systemd reports a bad assignment, an unresolved `%` specifier or a path
// that is not absolute as a warning and goes on without it.
func VerifyUnit(t testing.TB, unit []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cnpa-op.service")
	if err := os.WriteFile(path, unit, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := SystemdAnalyze(t, "verify", path)
	if err != nil || strings.TrimSpace(out) != "" {
		t.Errorf("systemd-analyze verify: %v\n%s\nunit:\n%s", err, out, unit)
	}
}

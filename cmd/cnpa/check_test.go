package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// `cnpa check` before the lab has started says so in one line and exits 1,
// instead of seventy lines of checks that cannot pass yet. It asks no
// cluster: the kubeconfig names a server nobody listens on.
func TestCheckBeforeTheLabStarted(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cnpa-op")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := cnpa(t, "--dir", dir, "--kubeconfig", "/nonexistent/kubeconfig", "check")
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	if code != 1 || stdout != "" || len(lines) != 1 || !strings.Contains(stderr, "no evidence yet in "+dir+": run `cnpa step 1`") {
		t.Errorf("cnpa check in a fresh dir: exit %d, stdout %q, stderr %q; want exit 1 and one line naming the dir and `cnpa step 1`", code, stdout, stderr)
	}
}

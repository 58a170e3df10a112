package doctor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTrustCheck: doctor shows an evidence dir others may write, with the
// fix; a dir of root's, 0755, is fine.
func TestTrustCheck(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root's runs are checked")
	}
	base := t.TempDir()
	os.Chmod(base, 0o755)
	dir := filepath.Join(base, "cnpa-op")
	os.Mkdir(dir, 0o755)
	if r := trustCheck(dir); !r.OK {
		t.Fatalf("a dir of root's, 0755: %+v, want ok", r)
	}
	os.Chmod(dir, 0o777)
	r := trustCheck(dir)
	if r.OK || !strings.Contains(r.Fix, "chmod go-w "+dir) || !strings.Contains(r.Detail, "writable by group or others") {
		t.Errorf("a dir others may write: %+v, want not ok, saying so, with the fix chmod go-w %s", r, dir)
	}
}

package labenv

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/test/kit/osuser"
)

// TestGiveArchiveDirChownsOnlyWhatCnpaMade is the review's H2 with a real
// second user as the archive dir's owner: it makes a subdirectory and a
// symlink in archive/.cnpa; step 4 giving the dir to another owner (root
// here: --service-identity admin) chowns the archive dir, its .cnpa and
// the manifest through their descriptors, and nothing the user made: no
// walk, which a directory swapped for a symlink would lead out of the dir.
func TestGiveArchiveDirChownsOnlyWhatCnpaMade(t *testing.T) {
	uid, gid := osuser.Ensure(t)
	base := t.TempDir()
	os.Chmod(base, 0o755)
	dir := filepath.Join(base, "cnpa-op")
	archive := filepath.Join(dir, evidence.ArchiveDir)
	if err := evidence.WriteArchive(archive, evidence.ArchiveRecord{Name: "beta", UID: "u", Pods: 2}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{archive, filepath.Join(archive, ".cnpa"), filepath.Join(archive, ".cnpa", "manifest.jsonl")} {
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	osuser.Run(t, archive, `mkdir .cnpa/z && touch .cnpa/z/k3s.yaml && ln -s /etc .cnpa/etc`)
	e := &Env{Dir: dir, State: &State{ServiceIdentity: "admin"}}
	if err := e.giveArchiveDir(context.Background()); err != nil {
		t.Fatal(err)
	}
	owner := func(p string) int {
		fi, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		return int(fi.Sys().(*syscall.Stat_t).Uid)
	}
	for _, p := range []string{archive, filepath.Join(archive, ".cnpa"), filepath.Join(archive, ".cnpa", "manifest.jsonl")} {
		if got := owner(p); got != os.Geteuid() {
			t.Errorf("%s: owner %d, want %d (given with the dir)", p, got, os.Geteuid())
		}
	}
	for _, p := range []string{filepath.Join(archive, ".cnpa", "z"), filepath.Join(archive, ".cnpa", "z", "k3s.yaml"), filepath.Join(archive, ".cnpa", "etc")} {
		if got := owner(p); got != uid {
			t.Errorf("%s: owner %d, want the user's %d: cnpa did not make it and must not chown it", p, got, uid)
		}
	}
}

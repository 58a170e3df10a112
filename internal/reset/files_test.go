package reset

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/testuser"
)

// ownedArchive is an evidence dir as step 4 leaves it: root's, with an
// archive dir (and its manifest) belonging to another user, one record
// cnpa wrote in it; and a root-owned victim dir outside it.
func ownedArchive(t *testing.T) (dir, archive, victim string) {
	uid, gid := testuser.Ensure(t)
	base := t.TempDir()
	if err := os.Chmod(base, 0o755); err != nil {
		t.Fatal(err)
	}
	dir, victim = filepath.Join(base, "cnpa-op"), filepath.Join(base, "victim")
	archive = filepath.Join(dir, evidence.ArchiveDir)
	for _, d := range []string{archive, victim} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(victim, "motd"), []byte("root's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := evidence.WriteArchive(archive, evidence.ArchiveRecord{Name: "beta", UID: "u", Pods: 2}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{archive, filepath.Join(archive, ".cnpa"), filepath.Join(archive, ".cnpa", "manifest.jsonl")} {
		if err := os.Chown(p, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	return dir, archive, victim
}

// TestPurgeNeverFollowsTheServiceUsersLinks is the review's H1 with a real
// second user standing in for cnpa-op: it links x -> the victim dir in
// the archive dir it owns and adds {"path":"x/motd"} to the manifest
// there. `cnpa reset --purge` (removeFiles) removes the record cnpa wrote
// and nothing through the link.
func TestPurgeNeverFollowsTheServiceUsersLinks(t *testing.T) {
	dir, archive, victim := ownedArchive(t)
	testuser.Run(t, archive, `ln -s `+victim+` x && echo '{"path":"x/motd"}' >> .cnpa/manifest.jsonl`)
	var logs []string
	log := func(f string, a ...any) { logs = append(logs, f) }
	if err := removeFiles(&labenv.Env{Dir: dir}, true, &Result{}, log); err != nil {
		t.Logf("removeFiles: %v", err)
	}
	if _, err := os.Stat(filepath.Join(victim, "motd")); err != nil {
		t.Errorf("reset --purge removed %s through the service user's symlink: %v", filepath.Join(victim, "motd"), err)
	}
	if _, err := os.Lstat(filepath.Join(archive, "beta.json")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("reset --purge kept cnpa's own record beta.json: %v", err)
	}
}

// TestRootNeverAppendsThroughALinkedManifest: the other user replaces the
// archive dir's manifest with a symlink to a file that does not exist;
// root archiving a TeamSpace (what reset does, evidence.WriteArchive)
// must not create it.
func TestRootNeverAppendsThroughALinkedManifest(t *testing.T) {
	_, archive, victim := ownedArchive(t)
	target := filepath.Join(victim, "nologin")
	testuser.Run(t, archive, `rm .cnpa/manifest.jsonl && ln -s `+target+` .cnpa/manifest.jsonl`)
	err := evidence.WriteArchive(archive, evidence.ArchiveRecord{Name: "alpha", UID: "a", Pods: 1})
	if _, serr := os.Lstat(target); serr == nil {
		t.Fatalf("root created %s through the service user's symlinked manifest (WriteArchive: %v)", target, err)
	}
	if err == nil {
		t.Errorf("WriteArchive through a symlinked manifest: got nil, want an error naming it")
	}
}

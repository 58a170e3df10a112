package reset

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/manifest"
	"github.com/labhub/cnpa/test/kit/osuser"
)

// TestOurFiles: only what cnpa's manifest lists is cnpa's, and only while
// it holds what cnpa wrote; in the archive dir, only records.
func TestOurFiles(t *testing.T) {
	type file struct {
		name, wrote, now string // now "" leaves it as cnpa wrote it; "-" removes it
		recorded         bool   // in the manifest
	}
	cases := []struct {
		name       string
		records    bool
		files      []file
		remove     []string
		kept       []string
		notRecords []string
	}{
		{name: "an empty dir", records: false},
		{name: "cnpa's evidence and a learner's notes of the same kind", files: []file{
			{name: "crd.yaml", wrote: "kind: CustomResourceDefinition\n", recorded: true},
			{name: "notes.json", wrote: "{}\n"},
		}, remove: []string{"crd.yaml"}},
		{name: "a file rewrote since is theirs", files: []file{
			{name: "generation.json", wrote: `{"a":1}`, now: `{"a":2}`, recorded: true},
			{name: "reconcile.sh", wrote: "#!/bin/sh\n", recorded: true},
		}, remove: []string{"reconcile.sh"}, kept: []string{"generation.json"}},
		{name: "a file gone already is neither", files: []file{
			{name: "drift.json", wrote: "{}", now: "-", recorded: true},
		}},
		{name: "the archive dir: records only", records: true, files: []file{
			{name: "beta.json", wrote: `{"name":"beta","uid":"u","pods":2}`, recorded: true},
			{name: "motd", wrote: "hi\n", recorded: true},
			{name: "alpha.json", wrote: `{}`},
		}, remove: []string{"beta.json"}, notRecords: []string{"motd"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range c.files {
				if err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.wrote), 0o644); err != nil {
					t.Fatal(err)
				}
				if f.recorded {
					if err := manifest.Record(dir, f.name, []byte(f.wrote)); err != nil {
						t.Fatal(err)
					}
				}
				switch f.now {
				case "":
				case "-":
					if err := os.Remove(filepath.Join(dir, f.name)); err != nil {
						t.Fatal(err)
					}
				default:
					if err := os.WriteFile(filepath.Join(dir, f.name), []byte(f.now), 0o644); err != nil {
						t.Fatal(err)
					}
				}
			}
			got, err := ourFiles(dir, c.records)
			if err != nil {
				t.Fatal(err)
			}
			rel := func(paths []string) []string {
				var out []string
				for _, p := range paths {
					r, _ := filepath.Rel(dir, p)
					out = append(out, r)
				}
				return out
			}
			if g := rel(got.remove); !slices.Equal(g, c.remove) {
				t.Errorf("remove: got %v, want %v", g, c.remove)
			}
			if g := rel(got.kept); !slices.Equal(g, c.kept) {
				t.Errorf("kept: got %v, want %v", g, c.kept)
			}
			if g := rel(got.notRecords); !slices.Equal(g, c.notRecords) {
				t.Errorf("notRecords: got %v, want %v", g, c.notRecords)
			}
		})
	}
}

// ownedArchive is an evidence dir as step 4 leaves it: root's, with an
// archive dir (and its manifest) belonging to another user, one record
// cnpa wrote in it; and a root-owned victim dir outside it.
func ownedArchive(t *testing.T) (dir, archive, victim string) {
	uid, gid := osuser.Ensure(t)
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
	osuser.Run(t, archive, `ln -s `+victim+` x && echo '{"path":"x/motd"}' >> .cnpa/manifest.jsonl`)
	var logs []string
	log := func(f string, a ...any) { logs = append(logs, f) }
	if err := removeFiles(labEvidence, &labenv.Env{Dir: dir}, true, nil, &Result{}, log); err != nil {
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
	osuser.Run(t, archive, `rm .cnpa/manifest.jsonl && ln -s `+target+` .cnpa/manifest.jsonl`)
	err := evidence.WriteArchive(archive, evidence.ArchiveRecord{Name: "alpha", UID: "a", Pods: 1})
	if _, serr := os.Lstat(target); serr == nil {
		t.Fatalf("root created %s through the service user's symlinked manifest (WriteArchive: %v)", target, err)
	}
	if err == nil {
		t.Errorf("WriteArchive through a symlinked manifest: got nil, want an error naming it")
	}
}

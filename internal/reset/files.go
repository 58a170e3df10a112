package reset

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/manifest"
	"github.com/labhub/cnpa/internal/safefs"
)

// files are what reset does with the files of one directory.
type files struct {
	remove []string // cnpa wrote them and they still hold what it wrote
	kept   []string // cnpa wrote them, someone rewrote them since
	// notRecords are entries of the archive dir's manifest that name no
	// archive record (x/motd): the service's user may write that
	// manifest, so they are not cnpa's.
	notRecords []string
}

// ourFiles sorts the files dir's manifest lists: only those are cnpa's.
// A directory cnpa never wrote into has none, whatever its files are called.
//
// With records set, dir is the archive dir, whose manifest the service's
// user may append to: there an entry counts only as an archive record,
// <name>.json directly in dir, never a path through a subdirectory.
func ourFiles(dir string, records bool) (files, error) {
	var f files
	entries, err := manifest.Read(dir)
	if err != nil {
		return f, err
	}
	for _, e := range entries {
		if records && (strings.Contains(e.Name, "/") || !strings.HasSuffix(e.Name, ".json")) {
			f.notRecords = append(f.notRecords, filepath.Join(dir, e.Name))
			continue
		}
		st, err := manifest.Check(dir, e)
		if err != nil {
			return f, err
		}
		switch st {
		case manifest.Unchanged:
			f.remove = append(f.remove, filepath.Join(dir, e.Name))
		case manifest.Changed, manifest.NotAFile:
			f.kept = append(f.kept, filepath.Join(dir, e.Name))
		}
	}
	return f, nil
}

// removeOurs removes what ourFiles says is cnpa's in dir, then cnpa's own
// dir/.cnpa (the manifest with it).
func removeOurs(dir string, records bool, r *Result, log func(string, ...any)) error {
	f, err := ourFiles(dir, records)
	if err != nil {
		return err
	}
	// Each name is removed beneath dir from a directory descriptor, no
	// symlink followed in any part (package safefs): a part swapped for
	// a symlink since ourFiles looked is an error, not a way out of dir.
	d, err := safefs.OpenDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	defer d.Close()
	var errs []error
	removed := 0
	for _, p := range f.remove {
		rel, _ := filepath.Rel(dir, p)
		if err := d.Remove(rel); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		r.Files = append(r.Files, p)
		removed++
	}
	for _, p := range f.kept {
		log("kept %s: cnpa wrote it, but it has changed since (or it is reached through a symlink), so it is not cnpa's to remove", p)
	}
	for _, p := range f.notRecords {
		log("kept %s: the archive dir's manifest names it, but it is no archive record (<name>.json in %s), and that manifest is writable by the service's user", p, dir)
	}
	own := filepath.Join(dir, manifest.OwnDir)
	if _, err := os.Lstat(own); err == nil {
		if err := os.RemoveAll(own); err != nil {
			errs = append(errs, err)
		} else {
			r.Files = append(r.Files, own)
		}
	}
	if removed > 0 {
		log("removed %d %s cnpa wrote in %s", removed, map[bool]string{true: "file", false: "files"}[removed == 1], dir)
	}
	return errors.Join(errs...)
}

// removeFiles is phase 6: the archive dir (with purge), then the evidence dir.
func removeFiles(env *labenv.Env, purge bool, r *Result, log func(string, ...any)) error {
	var errs []error
	if purge {
		// The archive dir first: the evidence dir can be removed only
		// once it is empty.
		if err := removeOurs(env.ArchiveDir(), true, r, log); err != nil {
			errs = append(errs, err)
		}
		// The dir itself only when that left it empty: whatever else is in
		// it is not cnpa's. An error means not empty, or not there.
		_ = os.Remove(env.ArchiveDir())
	} else if _, err := os.Stat(env.ArchiveDir()); err == nil {
		log("kept the archive records in %s (--purge removes those cnpa wrote)", env.ArchiveDir())
	}
	if err := removeOurs(env.Dir, false, r, log); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

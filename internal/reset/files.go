package reset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/manifest"
	"github.com/labhub/cnpa/internal/safefs"
)

// files are what reset does with the files of one directory.
type files struct {
	remove []string // cnpa wrote them and they still hold what it wrote
	kept   []string // cnpa wrote them, someone rewrote them since
	// replaced are names cnpa wrote a file at, where another file stands
	// now (however like cnpa's it is): never cnpa's to remove.
	replaced []string
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
		case manifest.Replaced:
			f.replaced = append(f.replaced, filepath.Join(dir, e.Name))
		}
	}
	return f, nil
}

// removeOurs removes what ourFiles says is cnpa's in dir, then cnpa's own
// dir/.cnpa (the manifest with it). planned are the files the plan
// announced for dir (ourFiles before phase 1): those an earlier phase
// removed (the service's own files) are counted as removed too, so that
// what reset says it removed is what it announced, no more, no less.
func removeOurs(ev evidenceFiles, dir string, records bool, planned []string, r *Result, log func(string, ...any)) error {
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
	removed := map[string]bool{}
	for _, p := range f.remove {
		rel, _ := filepath.Rel(dir, p)
		if err := d.Remove(rel); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		r.Files = append(r.Files, p)
		removed[p] = true
	}
	for _, p := range planned {
		if _, err := os.Lstat(p); !removed[p] && errors.Is(err, os.ErrNotExist) {
			r.Files = append(r.Files, p)
			removed[p] = true
		}
	}
	for _, p := range f.kept {
		if !records && ev.has(filepath.Base(p)) && filepath.Dir(p) == filepath.Clean(dir) {
			continue // moved aside with the learner's own evidence (moveOwnEvidence)
		}
		log("%s", i18n.T("reset.kept_changed", i18n.Args{"Path": p}))
	}
	for _, p := range f.replaced {
		if !records && ev.has(filepath.Base(p)) && filepath.Dir(p) == filepath.Clean(dir) {
			continue // moved aside with the learner's own evidence (moveOwnEvidence)
		}
		log("%s", i18n.T("reset.kept_replaced", i18n.Args{"Path": p}))
	}
	for _, p := range f.notRecords {
		log("%s", i18n.T("reset.kept_not_record", i18n.Args{"Path": p, "Dir": dir}))
	}
	own := filepath.Join(dir, manifest.OwnDir)
	if _, err := os.Lstat(own); err == nil {
		if err := os.RemoveAll(own); err != nil {
			errs = append(errs, err)
		} else {
			r.Files = append(r.Files, own)
		}
	}
	// The state file is written again at once (keepChoices): the plan
	// does not count it, nor does this.
	n := 0
	for p := range removed {
		if records || filepath.Base(p) != labenv.StateFile {
			n++
		}
	}
	if n > 0 {
		log("%s", i18n.N("plural.reset.removed_files", n, i18n.Args{"Dir": dir}))
	}
	return errors.Join(errs...)
}

// removeFiles is phase 6: the archive dir (with purge), then the
// evidence dir; planned are the evidence dir's files the plan announced.
func removeFiles(ev evidenceFiles, env *labenv.Env, purge bool, planned []string, r *Result, log func(string, ...any)) error {
	var errs []error
	if purge {
		// The archive dir first: the evidence dir can be removed only
		// once it is empty.
		if err := removeOurs(ev, env.ArchiveDir(), true, nil, r, log); err != nil {
			errs = append(errs, err)
		}
		// The dir itself only when that left it empty: whatever else is in
		// it is not cnpa's. An error means not empty, or not there.
		_ = os.Remove(env.ArchiveDir())
	} else if _, err := os.Stat(env.ArchiveDir()); err == nil {
		log("%s", i18n.T("reset.kept_records", i18n.Args{"Dir": env.ArchiveDir()}))
	}
	if err := removeOurs(ev, env.Dir, false, planned, r, log); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// own lists the lab's evidence files in dir (ev) that are
// the learner's: there, and not as cnpa wrote them (evidence.Theirs: never
// cnpa's, or changed since). They describe the cluster a reset deletes,
// so a new run must not find them in its way; nor may reset delete them.
// Run calls it after removing cnpa's own files, Inspect before: then it
// skips those cnpa wrote as they are.
func (ev evidenceFiles) own(dir string) ([]string, error) {
	var out []string
	for _, f := range ev {
		if _, err := os.Lstat(filepath.Join(dir, f)); err != nil {
			continue
		}
		why, err := evidence.Theirs(dir, f)
		if err != nil {
			return nil, err
		}
		if why != "" {
			out = append(out, f)
		}
	}
	return out, nil
}

// asideDir is the folder a reset at now moves the learner's own evidence
// into: <dir>/own-<time>, the time in UTC to the second, so two resets
// never share one and ls sorts them in order.
func asideDir(dir string, now time.Time) string {
	return filepath.Join(dir, "own-"+now.UTC().Format("20060102T150405Z"))
}

// moveAside moves names (files directly in dir) into aside, made for
// them, and returns the paths they have now. A name that is no longer
// there is skipped; what could not be moved is an error naming it, and
// the others are moved all the same. The folder is made only when there
// is something to move.
func moveAside(dir, aside string, names []string) ([]string, error) {
	var moved []string
	var errs []error
	for _, n := range names {
		from := filepath.Join(dir, n)
		if _, err := os.Lstat(from); err != nil {
			continue
		}
		if err := os.MkdirAll(aside, 0o755); err != nil {
			return moved, fmt.Errorf("%s: %w", i18n.T("reset.make_aside", i18n.Args{"Dir": aside}), err)
		}
		to := filepath.Join(aside, n)
		if _, err := os.Lstat(to); err == nil {
			errs = append(errs, fmt.Errorf("move %s aside: %s exists", from, to))
			continue
		}
		if err := os.Rename(from, to); err != nil {
			errs = append(errs, fmt.Errorf("move %s aside: %w", from, err))
			continue
		}
		moved = append(moved, to)
	}
	return moved, errors.Join(errs...)
}

// cnpaLab tells whether dir is a lab cnpa has run in: its state file was
// read, or its manifest lists a file cnpa wrote. Only there is a learner's
// evidence file in the way of a new run; in a dir cnpa never wrote into,
// nothing is touched, whatever its files are called.
func cnpaLab(env *labenv.Env) (bool, error) {
	if env.State.OnDisk() {
		return true, nil
	}
	entries, err := manifest.Read(env.Dir)
	return len(entries) > 0, err
}

// evidenceFiles is the lab's evidence files (lab.Table.Files).
type evidenceFiles []string

// has tells whether name is one of the lab's evidence files.
func (ev evidenceFiles) has(name string) bool {
	for _, f := range ev {
		if f == name {
			return true
		}
	}
	return false
}

// moveOwnEvidence is phase 7: the learner's own evidence files, which
// described the cluster this reset deleted, go into <dir>/own-<time>/,
// named in the log, so that `cnpa step all` after the reset measures the
// lab again instead of stopping at them; and nothing of the learner's is
// deleted. Their reconcile.sh, crd.yaml, alpha.yaml and unit stay where
// they are: those are what they wrote the lab with, not what it measured.
func moveOwnEvidence(ev evidenceFiles, dir string, now time.Time, r *Result, log func(string, ...any)) error {
	names, err := ev.own(dir)
	if err != nil || len(names) == 0 {
		return err
	}
	aside := asideDir(dir, now)
	moved, err := moveAside(dir, aside, names)
	if len(moved) > 0 {
		r.Aside, r.AsideDir = moved, aside
		var short []string
		for _, m := range moved {
			short = append(short, filepath.Base(m))
		}
		log("%s", i18n.T("reset.moved_aside", i18n.Args{"Files": i18n.List(short), "Aside": aside}))
	}
	return err
}

// keepChoices is phase 8: the lab's choices (engine, service manager, unit
// dir, identity) stay as they were, unlocked, for the new run
// (labenv.State.StartOver); a flag of the next step changes them. Phase 6
// removed the state file with cnpa's other files (it is cnpa's), so it is
// written again, when there was one before the reset (a dir without one
// made no choices: reset writes nothing into a dir cnpa never wrote
// into) and the evidence dir is still there. A state file someone changed
// by hand was kept by phase 6 and stays as it is.
func keepChoices(env *labenv.Env, log func(string, ...any)) error {
	if !env.State.OnDisk() {
		return nil
	}
	if _, err := os.Stat(env.Dir); err != nil {
		return nil
	}
	if _, err := os.Lstat(filepath.Join(env.Dir, labenv.StateFile)); err == nil {
		return nil
	}
	env.State.StartOver()
	if err := env.SaveState(); err != nil {
		return fmt.Errorf("keep the lab's choices in %s: %w", filepath.Join(env.Dir, labenv.StateFile), err)
	}
	log("%s", i18n.T("reset.kept_choices", i18n.Args{"Engine": env.State.Engine, "Manager": env.State.ServiceManager,
		"UnitDir": env.State.UnitDir, "Identity": env.State.Identity()}))
	return nil
}

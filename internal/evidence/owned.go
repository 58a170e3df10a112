package evidence

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/manifest"
)

// LearnersFileError is the refusal to overwrite a file cnpa did not write,
// or that changed since cnpa wrote it: it is the learner's.
type LearnersFileError struct {
	Path string
	Why  string // as Theirs says it: "cnpa did not write it", …
}

func (e *LearnersFileError) Error() string {
	return i18n.T("evidence.yours", i18n.Args{"Path": e.Path, "Why": e.Why, "Name": filepath.Base(e.Path)})
}

// Theirs tells whether dir/name is someone else's: a file (or anything
// else) is there and cnpa's manifest does not say cnpa wrote exactly what
// it holds. It returns why, in words of the chosen language, for the
// message; "" when the name is free or cnpa's own to overwrite.
func Theirs(dir, name string) (string, error) {
	fi, err := os.Lstat(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return i18n.T("evidence.theirs." + fileKind(fi.Mode())), nil
	}
	entries, err := manifest.Read(dir)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if e.Name != name {
			continue
		}
		if e.SHA256 == "" {
			return "", nil // a name cnpa owns whatever it holds
		}
		st, err := manifest.Check(dir, e)
		if err != nil {
			return "", err
		}
		switch st {
		case manifest.Unchanged:
			return "", nil
		case manifest.Replaced:
			// Another file than the one cnpa wrote: never say cnpa
			// wrote it, whatever it holds.
			return i18n.T("evidence.theirs.not_written"), nil
		}
		return i18n.T("evidence.theirs.changed"), nil
	}
	return i18n.T("evidence.theirs.not_written"), nil
}

// fileKind is what a name that is no regular file is, as the catalog
// names it (evidence.theirs.*).
func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m.IsDir():
		return "directory"
	}
	return "special"
}

// Put is WriteRaw that asks first: a file at dir/name that is the
// learner's (Theirs) is refused with a *LearnersFileError, unless force is
// set; then it is kept as <name>.bak-<time> (renamed, so nothing of it is
// lost, whatever it is), and backup says where.
func Put(dir, name string, data []byte, mode os.FileMode, force bool) (path, backup string, err error) {
	final := filepath.Join(dir, name)
	why, err := Theirs(dir, name)
	if err != nil {
		return "", "", fmt.Errorf("is %s yours? %w", final, err)
	}
	if why != "" {
		if !force {
			return "", "", &LearnersFileError{Path: final, Why: why}
		}
		backup = final + ".bak-" + time.Now().UTC().Format("20060102T150405.000000000Z")
		if err := os.Rename(final, backup); err != nil {
			return "", "", fmt.Errorf("keep your %s as %s: %w", final, backup, err)
		}
	}
	path, err = writeRaw(dir, name, data, mode)
	return path, backup, err
}

package safefs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"github.com/labhub/cnpa/internal/i18n"
)

// UntrustedError says why root will not run or read a file: it, or a
// directory above it, can be changed by another user.
type UntrustedError struct {
	Path, Part string
	UID        uint32
	Mode       os.FileMode
	// OtherOwner: Part is owned by another user; else group or others
	// may write it.
	OtherOwner bool
}

func (e *UntrustedError) Error() string {
	why, fix := i18n.T("safefs.writable_by_others"), "chmod go-w "+e.Part
	if e.OtherOwner {
		why, fix = i18n.T("safefs.owned_by_another"), "chown root "+e.Part
	}
	return i18n.T("safefs.untrusted", i18n.Args{"Path": e.Path, "Part": e.Part, "Why": why, "UID": e.UID, "Mode": e.Mode.String(), "Fix": fix})
}

// Trusted tells whether path is safe for this process to execute or read
// as root: the file and every directory above it, along the path as
// given and along the path its symlinks resolve to, belong to root or to
// this process's user, and no group or other may write them (a directory
// with the sticky bit, such as /tmp, is fine: there no one else may
// rename or remove what is ours). Not root, nothing is checked: a user
// can only hurt themselves.
func Trusted(path string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	real, err := filepath.EvalSymlinks(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // nothing there to run or read: the caller's own error says so
	}
	if err != nil {
		return err
	}
	for _, p := range []string{abs, real} {
		if err := chain(path, p); err != nil {
			return err
		}
	}
	return nil
}

func chain(orig, p string) error {
	for part := p; ; part = filepath.Dir(part) {
		fi, err := os.Lstat(part)
		if err != nil {
			return err
		}
		st := fi.Sys().(*syscall.Stat_t)
		isLink := fi.Mode()&os.ModeSymlink != 0
		switch {
		case st.Uid != 0 && int(st.Uid) != os.Geteuid():
			return &UntrustedError{Path: orig, Part: part, UID: st.Uid, Mode: fi.Mode(), OtherOwner: true}
		case !isLink && fi.Mode().Perm()&0o022 != 0 && !(fi.IsDir() && fi.Mode()&os.ModeSticky != 0):
			return &UntrustedError{Path: orig, Part: part, UID: st.Uid, Mode: fi.Mode()}
		}
		if part == "/" || part == filepath.Dir(part) {
			return nil
		}
	}
}

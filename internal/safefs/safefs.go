// Package safefs is how root touches a directory another user can write
// (the archive dir belongs to the service's user cnpa-op): every path is
// resolved beneath the directory without following a symlink in any part,
// with openat2(RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS) from
// golang.org/x/sys/unix, or on a kernel older than 5.6 one openat with
// O_NOFOLLOW per part. A symlink anywhere, or "..", is an error
// (ELOOP/EXDEV), never a way out of the directory; files are then used
// through their descriptor (fstat, fchown, unlinkat), so a part swapped
// for a symlink after the check changes nothing.
package safefs

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/labhub/cnpa/internal/i18n"
)

// openBeneath opens rel beneath the directory dirfd. flags get O_CLOEXEC
// and O_NOFOLLOW.
func openBeneath(dirfd int, rel string, flags int, mode uint32) (int, error) {
	if rel == "" || filepath.IsAbs(rel) || !filepath.IsLocal(rel) {
		return -1, fmt.Errorf("%q is not a path inside the directory", rel)
	}
	flags |= unix.O_CLOEXEC | unix.O_NOFOLLOW
	how := unix.OpenHow{Flags: uint64(flags), Mode: uint64(mode),
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS}
	for {
		fd, err := unix.Openat2(dirfd, rel, &how)
		switch {
		case err == nil:
			return fd, nil
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			continue
		case errors.Is(err, unix.ENOSYS):
			return walk(dirfd, rel, flags, mode)
		}
		return -1, err
	}
}

// walk is openBeneath without openat2: each directory part opened with
// O_NOFOLLOW|O_DIRECTORY from the one before.
func walk(dirfd int, rel string, flags int, mode uint32) (int, error) {
	parts := strings.Split(filepath.Clean(rel), "/")
	fd := dirfd
	for i, p := range parts {
		if p == ".." || p == "." || p == "" {
			return -1, unix.EXDEV
		}
		f := unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
		if i == len(parts)-1 {
			f = flags
		}
		next, err := unix.Openat(fd, p, f, mode)
		if fd != dirfd {
			unix.Close(fd)
		}
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

// Dir is a directory held open by descriptor: the anchor every path
// below is resolved from.
type Dir struct {
	fd   int
	path string
	// owner is the directory's owner when it was opened: files of that
	// user are its own (Dir.own), also after Chown(".") gave it away.
	owner uint32
}

// OpenDir opens dir to resolve paths beneath it. dir itself is the
// caller's (the --dir a learner typed may well be a symlink); only what
// is beneath it is held to no symlinks.
func OpenDir(dir string) (*Dir, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open directory", Path: dir, Err: err}
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "open directory", Path: dir, Err: err}
	}
	return &Dir{fd: fd, path: dir, owner: st.Uid}, nil
}

// Close releases the descriptor.
func (d *Dir) Close() error { return unix.Close(d.fd) }

// Fd is the directory's descriptor.
func (d *Dir) Fd() int { return d.fd }

func (d *Dir) err(op, rel string, err error) error {
	return &os.PathError{Op: op, Path: filepath.Join(d.path, rel), Err: err}
}

// Open opens rel beneath d with flags (O_CLOEXEC|O_NOFOLLOW added); a
// symlink in any part is an error.
func (d *Dir) Open(rel string, flags int, mode os.FileMode) (*os.File, error) {
	fd, err := openBeneath(d.fd, rel, flags, uint32(mode.Perm()))
	if err != nil {
		return nil, d.err("open", rel, err)
	}
	return os.NewFile(uintptr(fd), filepath.Join(d.path, rel)), nil
}

// MaxRegular is the most ReadRegular reads of one file: the archive dir
// holds records of a few hundred bytes.
const MaxRegular = 16 << 20

// ReadRegular reads rel beneath d: a regular file with one link (of any
// owner), reached without a symlink, of at most MaxRegular bytes;
// anything else is an error. It is opened with O_NONBLOCK, so a FIFO in its place never
// blocks, and refused before a byte is read.
func (d *Dir) ReadRegular(rel string) ([]byte, error) {
	return d.readRegular(rel, MaxRegular)
}

// ReadRegularStat is ReadRegular, with the status of the file read (its
// inode, its times): which file stands at rel, not only what it holds
// (package manifest tells cnpa's own file from a copy of it so).
func (d *Dir) ReadRegularStat(rel string) ([]byte, *unix.Stat_t, error) {
	var st unix.Stat_t
	data, err := d.readRegularStat(rel, MaxRegular, func(s *unix.Stat_t) { st = *s })
	return data, &st, err
}

func (d *Dir) readRegular(rel string, max int64) ([]byte, error) {
	return d.readRegularStat(rel, max, nil)
}

// readRegularStat is readRegular, giving stat (when set) the file's
// status as opened.
func (d *Dir) readRegularStat(rel string, max int64, stat func(*unix.Stat_t)) ([]byte, error) {
	f, err := d.Open(rel, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if stat != nil {
		var st unix.Stat_t
		if err := unix.Fstat(int(f.Fd()), &st); err != nil {
			return nil, d.err("stat", rel, err)
		}
		stat(&st)
	}
	// Reading another user's own file is harmless; reading, through a
	// hard link, a file that is not theirs is not. So: one link, any
	// owner (a record the learner wrote before step 4 gave the dir to
	// cnpa-op stays the learner's).
	if err := d.linkedOnce(int(f.Fd())); err != nil {
		return nil, d.err("read", rel, err)
	}
	return readCapped(f, filepath.Join(d.path, rel), max)
}

// ReadRegular reads rel beneath dir as Dir.ReadRegular does, with max
// bytes at most: how root reads what another user's directory holds
// (the service user's archive dir). A missing file wraps
// fs.ErrNotExist.
func ReadRegular(dir, rel string, max int64) ([]byte, error) {
	d, err := OpenDir(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	return d.readRegular(rel, max)
}

// ErrNotRegular: not a regular file.
var ErrNotRegular error = sayError("safefs.not_regular")

// ErrLinked: a regular file with more than one link. Where
// fs.protected_hardlinks is 0 (the kernel's default), whoever can write a
// directory can hard-link any file into it, one of root's too; a file
// cnpa made has one link.
var ErrLinked error = sayError("safefs.linked")

// sayError is an error that says a message of the catalog in the chosen
// language when it is printed; a value, as errors.Is compares it.
type sayError string

func (e sayError) Error() string { return i18n.T(string(e)) }

// ForeignOwnerError: a file owned by a user other than root, this
// process's, or the directory's owner.
type ForeignOwnerError struct{ UID uint32 }

func (e *ForeignOwnerError) Error() string {
	return i18n.T("safefs.foreign_owner", i18n.Args{"UID": e.UID})
}

// linkedOnce checks, by descriptor, that fd is a regular file with one
// link.
func (d *Dir) linkedOnce(fd int) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	switch {
	case st.Mode&unix.S_IFMT != unix.S_IFREG:
		return ErrNotRegular
	case st.Nlink != 1:
		return ErrLinked
	}
	return nil
}

// own checks, by descriptor, that fd is a regular file (or, with dirOK, a
// directory), with one link, owned by root, this process's user or the
// owner of d (when it was opened): neither a hard link to a file elsewhere nor another user's.
func (d *Dir) own(fd int, dirOK bool) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return err
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		if st.Nlink != 1 {
			return ErrLinked
		}
	case unix.S_IFDIR:
		if !dirOK {
			return ErrNotRegular
		}
	default:
		return ErrNotRegular
	}
	if st.Uid == 0 || int(st.Uid) == os.Geteuid() || st.Uid == d.owner {
		return nil
	}
	return &ForeignOwnerError{UID: st.Uid}
}

// MkdirAll makes rel beneath d, each missing part with mode, none through
// a symlink.
func (d *Dir) MkdirAll(rel string, mode os.FileMode) error {
	parts := strings.Split(filepath.Clean(rel), "/")
	for i := range parts {
		sub := strings.Join(parts[:i+1], "/")
		parent, base := d.fd, parts[i]
		if i > 0 {
			pfd, err := openBeneath(d.fd, strings.Join(parts[:i], "/"), unix.O_RDONLY|unix.O_DIRECTORY, 0)
			if err != nil {
				return d.err("mkdir", sub, err)
			}
			defer unix.Close(pfd)
			parent = pfd
		}
		if err := unix.Mkdirat(parent, base, uint32(mode.Perm())); err != nil && !errors.Is(err, unix.EEXIST) {
			return d.err("mkdir", sub, err)
		}
	}
	// What is there now must be a directory reached without a symlink.
	fd, err := openBeneath(d.fd, rel, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return d.err("mkdir", rel, err)
	}
	return unix.Close(fd)
}

// Append appends data to rel beneath d in one write, creating it (mode)
// when missing; a symlink in any part, the last included, is an error,
// and so is a file with another hard link or of another owner (Dir.own).
func (d *Dir) Append(rel string, data []byte, mode os.FileMode) error {
	f, err := d.Open(rel, unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT, mode)
	if err != nil {
		return err
	}
	if err := d.own(int(f.Fd()), false); err != nil {
		f.Close()
		return d.err("append", rel, err)
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	return werr
}

// Remove unlinks the file rel beneath d: its directory is opened beneath d
// without symlinks, and the name removed from that descriptor (unlinkat
// removes a symlink itself, never what it points to). A directory is not
// removed.
func (d *Dir) Remove(rel string) error {
	dir, base := filepath.Split(filepath.Clean(rel))
	parent := d.fd
	if dir != "" {
		pfd, err := openBeneath(d.fd, strings.TrimSuffix(dir, "/"), unix.O_RDONLY|unix.O_DIRECTORY, 0)
		if err != nil {
			return d.err("remove", rel, err)
		}
		defer unix.Close(pfd)
		parent = pfd
	}
	if err := unix.Unlinkat(parent, base, 0); err != nil {
		if errors.Is(err, unix.ENOENT) {
			return d.err("remove", rel, os.ErrNotExist)
		}
		return d.err("remove", rel, err)
	}
	return nil
}

// Chown gives rel beneath d (a directory or regular file, "." for d
// itself) to uid:gid through its descriptor (O_PATH, so nothing is
// opened for reading), never through a path a symlink could redirect;
// a file with another hard link, or of an owner other than root, this
// user or d's owner, is refused (Dir.own).
func (d *Dir) Chown(rel string, uid, gid int) error {
	fd := d.fd
	if rel != "." {
		f, err := openBeneath(d.fd, rel, unix.O_PATH, 0)
		if err != nil {
			return d.err("chown", rel, err)
		}
		defer unix.Close(f)
		fd = f
	}
	if err := d.own(fd, true); err != nil {
		return d.err("chown", rel, err)
	}
	if err := unix.Fchownat(fd, "", uid, gid, unix.AT_EMPTY_PATH); err != nil {
		return d.err("chown", rel, err)
	}
	return nil
}

// ReadFile reads the file at path (symlinks followed: the path is the
// caller's own) as a regular file of at most max bytes. It is opened
// with O_NONBLOCK, so a FIFO never blocks the open, and anything but a
// regular file is refused before a byte is read; one larger than max is
// an error naming the path and the limit.
func ReadFile(path string, max int64) ([]byte, error) {
	fd, err := unix.Open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	return readCapped(f, path, max)
}

// readCapped reads f, a regular file of at most max bytes.
func readCapped(f *os.File, path string, max int64) ([]byte, error) {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return nil, &os.PathError{Op: "read", Path: path, Err: err}
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, &os.PathError{Op: "read", Path: path, Err: ErrNotRegular}
	}
	if st.Size > max {
		return nil, &TooLargeError{Path: path, Size: st.Size, Max: max}
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, &os.PathError{Op: "read", Path: path, Err: err}
	}
	if int64(len(data)) > max {
		return nil, &TooLargeError{Path: path, Size: int64(len(data)), Max: max}
	}
	return data, nil
}

// TooLargeError is a file larger than what its reader takes.
type TooLargeError struct {
	Path      string
	Size, Max int64
}

func (e *TooLargeError) Error() string {
	return i18n.T("safefs.too_large", i18n.Args{"Path": e.Path, "Size": size(e.Size), "Max": size(e.Max)})
}

func size(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

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
}

// OpenDir opens dir to resolve paths beneath it. dir itself is the
// caller's (the --dir a learner typed may well be a symlink); only what
// is beneath it is held to no symlinks.
func OpenDir(dir string) (*Dir, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open directory", Path: dir, Err: err}
	}
	return &Dir{fd: fd, path: dir}, nil
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

// ReadRegular reads rel beneath d; anything but a regular file (reached
// without a symlink) is an error.
func (d *Dir) ReadRegular(rel string) ([]byte, error) {
	f, err := d.Open(rel, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := regular(f); err != nil {
		return nil, d.err("read", rel, err)
	}
	return io.ReadAll(f)
}

// ErrNotRegular: not a regular file.
var ErrNotRegular = errors.New("not a regular file")

func regular(f *os.File) error {
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		return err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return ErrNotRegular
	}
	return nil
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
// when missing; a symlink in any part, the last included, is an error.
func (d *Dir) Append(rel string, data []byte, mode os.FileMode) error {
	f, err := d.Open(rel, unix.O_WRONLY|unix.O_APPEND|unix.O_CREAT, mode)
	if err != nil {
		return err
	}
	if err := regular(f); err != nil {
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
// opened for reading), never through a path a symlink could redirect.
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
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return d.err("chown", rel, err)
	}
	if t := st.Mode & unix.S_IFMT; t != unix.S_IFREG && t != unix.S_IFDIR {
		return d.err("chown", rel, ErrNotRegular)
	}
	if err := unix.Fchownat(fd, "", uid, gid, unix.AT_EMPTY_PATH); err != nil {
		return d.err("chown", rel, err)
	}
	return nil
}

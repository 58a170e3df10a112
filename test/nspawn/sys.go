package nspawn

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/labhub/cnpa/internal/ui"
)

// mountsUnder lists the mount points at or below dir in this process's mount
// namespace, deepest first so they can be unmounted in order.
func mountsUnder(dir string) ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("read mount table: %w", err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 5 {
			continue
		}
		mp := unescapeMountinfo(fields[4])
		if mp == dir || strings.HasPrefix(mp, dir+"/") {
			out = append(out, mp)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read mount table: %w", err)
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out, nil
}

// unescapeMountinfo undoes the kernel's octal escaping (\040 for a space).
func unescapeMountinfo(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+4 <= len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(n))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// removeTree deletes a root filesystem tree (a half-built debootstrap target
// or a leftover nspawn snapshot). Either may still have /proc, /sys or /dev
// mounted inside if its builder was killed, and a recursive delete would then
// walk into the host's live kernel filesystems, so mounts are detached first
// and the delete is refused if any remain.
func removeTree(dir string) error {
	dir = filepath.Clean(dir)
	if !filepath.IsAbs(dir) || strings.Count(dir, "/") < 2 {
		return fmt.Errorf("refusing to remove %q: not a deep absolute path", dir)
	}
	mounts, err := mountsUnder(dir)
	if err != nil {
		return err
	}
	for _, mp := range mounts {
		if err := syscall.Unmount(mp, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) {
			return fmt.Errorf("unmount %s before removing %s: %w", mp, dir, err)
		}
	}
	if mounts, err = mountsUnder(dir); err != nil {
		return err
	} else if len(mounts) > 0 {
		return fmt.Errorf("refusing to remove %s: still mounted inside: %s", dir, strings.Join(mounts, ", "))
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove %s: %w", dir, err)
	}
	return nil
}

// rmdirTree removes dir and every directory below it, deepest first, with
// rmdir only. It is meant for cgroup trees: a cgroup that still holds a
// process refuses rmdir (EBUSY), so nothing live is ever removed, and rmdir
// never deletes files. It returns the directories that could not be removed.
func rmdirTree(dir string) []string {
	var dirs []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, p)
		}
		return nil
	})
	// Walk order is parents before children; reverse for bottom-up.
	var left []string
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := syscall.Rmdir(dirs[i]); err != nil && !errors.Is(err, syscall.ENOENT) {
			left = append(left, dirs[i])
		}
	}
	return left
}

// rmdirTreeWithin retries rmdirTree until it succeeds or the timeout passes:
// after a container is killed its processes leave their cgroups a moment
// later, asynchronously.
func rmdirTreeWithin(dir string, timeout time.Duration) []string {
	deadline := time.Now().Add(timeout)
	for {
		left := rmdirTree(dir)
		if len(left) == 0 || time.Now().After(deadline) {
			return left
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// cgroupRoots returns the directories of the cgroup this process is in, one
// per hierarchy nspawn cares about: the named v1 "name=systemd" hierarchy
// (hybrid and legacy layouts; nspawn takes its own cgroup path from it) and
// the v2 unified hierarchy. A child started in a new sub-cgroup of each gets
// its own payload/supervisor pair instead of sharing ours with every other
// container started from this cgroup.
func cgroupRoots() ([]string, error) {
	paths := map[string]string{} // hierarchy key -> our path within it
	data, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return nil, fmt.Errorf("read own cgroup: %w", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "":
			paths["cgroup2"] = parts[2]
		case parts[1] == "name=systemd":
			paths["name=systemd"] = parts[2]
		}
	}

	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, fmt.Errorf("read mount table: %w", err)
	}
	defer f.Close()
	var roots []string
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		// Fields: id parent maj:min root mountpoint opts [optional...] - fstype source superopts
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, f := range fields {
			if f == "-" {
				sep = i
				break
			}
		}
		if sep < 0 || sep+3 >= len(fields) || len(fields) < 5 {
			continue
		}
		fstype, superOpts := fields[sep+1], fields[sep+3]
		key := ""
		switch {
		case fstype == "cgroup2":
			key = "cgroup2"
		case fstype == "cgroup" && strings.Contains(","+superOpts+",", ",name=systemd,"):
			key = "name=systemd"
		default:
			continue
		}
		own, ok := paths[key]
		if !ok || seen[key] {
			continue
		}
		mountRoot, mp := unescapeMountinfo(fields[3]), unescapeMountinfo(fields[4])
		rel, ok := strings.CutPrefix(own, strings.TrimSuffix(mountRoot, "/"))
		if !ok {
			continue // our cgroup is outside what this mount shows
		}
		seen[key] = true
		roots = append(roots, filepath.Join(mp, rel))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read mount table: %w", err)
	}
	return roots, nil
}

// childrenOf lists the direct children of pid. /proc/PID/task/*/children is
// exact and cheap but needs CONFIG_PROC_CHILDREN; scanning every process's
// parent is the fallback.
func childrenOf(pid int) []int {
	var kids []int
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", pid))
	if err == nil && len(tasks) > 0 {
		if _, err := os.Stat(tasks[0]); err == nil {
			for _, t := range tasks {
				data, err := os.ReadFile(t)
				if err != nil {
					continue
				}
				for _, f := range strings.Fields(string(data)) {
					if n, err := strconv.Atoi(f); err == nil {
						kids = append(kids, n)
					}
				}
			}
			return kids
		}
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(n); ok && ppid == pid {
			kids = append(kids, n)
		}
	}
	return kids
}

// parentOf reads a process's parent from /proc/PID/stat, where the command
// name (field 2) may itself contain spaces and parentheses.
func parentOf(pid int) (int, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(s[i+1:])
	if len(fields) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(fields[1])
	return ppid, err == nil
}

// isNamespaceInit reports whether pid is PID 1 of a PID namespace nested in
// ours: its NSpid line lists its PID in each namespace, innermost last.
func isNamespaceInit(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "NSpid:"); ok {
			ids := strings.Fields(rest)
			return len(ids) >= 2 && ids[len(ids)-1] == "1"
		}
	}
	return false
}

// processAlive reports whether pid exists and is not a zombie.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return false
	}
	return s[i+2] != 'Z' && s[i+2] != 'X'
}

// otherNspawnRunning reports whether any systemd-nspawn process is alive,
// so shared state such as /run/systemd/nspawn is left for it.
func otherNspawnRunning() bool {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		comm, err := os.ReadFile(filepath.Join("/proc", e.Name(), "comm"))
		if err == nil && strings.TrimSpace(string(comm)) == "systemd-nspawn" {
			n, _ := strconv.Atoi(e.Name())
			if processAlive(n) {
				return true
			}
		}
	}
	return false
}

// tailFile returns the last n lines of a file, for error messages.
func tailFile(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", path, err)
	}
	return ui.Tail(string(data), n)
}

// sweepOrphanSnapshots removes -x copies of rootfs whose systemd-nspawn is
// gone: one killed while still copying (SIGTERM then is fatal; nspawn only
// installs its handlers after the copy) or killed outright never deletes its
// copy. nspawn holds a lock on ".#<copy>.lck" beside each copy from before
// the copy starts until it has removed it, so a copy whose lock file exists
// and is unlocked is an orphan, and a locked one belongs to a live container.
func sweepOrphanSnapshots(rootfs string) (removed []string, err error) {
	parent, prefix := filepath.Dir(rootfs), ".#machine."+filepath.Base(rootfs)
	entries, err := os.ReadDir(parent)
	if err != nil {
		return nil, fmt.Errorf("look for leftover snapshots: %w", err)
	}
	var errs []error
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
			continue
		}
		dir := filepath.Join(parent, e.Name())
		lock := filepath.Join(parent, ".#"+e.Name()+".lck")
		locked, err := fileLocked(lock)
		if err != nil || locked {
			continue // no lock file: not a copy this logic understands
		}
		if err := removeTree(dir); err != nil {
			errs = append(errs, err)
			continue
		}
		os.Remove(lock)
		removed = append(removed, dir)
	}
	return removed, errors.Join(errs...)
}

// fileLocked reports whether another process holds a write-conflicting
// record lock on path. nspawn uses open-file-description locks, which
// F_GETLK sees; the query takes no lock itself.
func fileLocked(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false, err
	}
	defer f.Close()
	lk := syscall.Flock_t{Type: syscall.F_WRLCK, Whence: 0}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_GETLK, &lk); err != nil {
		return false, fmt.Errorf("query lock on %s: %w", path, err)
	}
	return lk.Type != syscall.F_UNLCK, nil
}

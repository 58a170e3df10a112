// Package nspawn boots a real Debian systemd in a systemd-nspawn container,
// for system tests that must install, enable, start and stop real units.
//
// The container runs on a separate root filesystem built once with
// debootstrap (EnsureRootFS) and booted as a throwaway copy (-x), never on the
// machine's own root filesystem: systemd booted there empties /tmp and more.
// It shares the host's network namespace, so a unit inside reaches services
// on the host's 127.0.0.1 directly.
//
// Typical use:
//
//	nspawn.Require(t)
//	cache, _ := nspawn.CacheDir()
//	rootfs, err := nspawn.EnsureRootFS(ctx, cache, logFile)
//	c, err := nspawn.Boot(ctx, rootfs, nspawn.Options{Logf: t.Logf})
//	t.Cleanup(c.Stop)
//	out, _, err := c.Exec(ctx, "systemctl", "is-active", "foo.service")
package nspawn

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/labhub/cnpa/internal/ui"
	"github.com/labhub/cnpa/test/kit/tether"
)

// containerPATH is what commands run by Exec see; the host's PATH may name
// directories that do not exist inside.
const containerPATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// Bind makes a host path visible inside the container, read-only.
type Bind struct {
	Host      string // absolute path on the host; must exist
	Container string // absolute path inside the container
}

// Options tune Boot.
type Options struct {
	// Binds are mounted read-only (--bind-ro).
	Binds []Bind
	// LogPath receives the output of systemd-nspawn and the container's
	// console (systemd's boot and shutdown messages). Empty means a new file
	// in the temporary directory; Container.LogPath names it either way.
	LogPath string
	// Overlay boots the rootfs read-only under a tmpfs overlay
	// (--volatile=overlay) instead of from a -x copy. Both leave the rootfs
	// pristine; the overlay needs no copy, so boot does not depend on disk
	// speed (0.5 s vs 1-20 s for the -x copy on a busy disk), but everything
	// the container writes is held in RAM.
	Overlay bool
	// BootTimeout bounds the wait for the container's systemd to finish
	// booting; zero means 90 s.
	BootTimeout time.Duration
	// Logf, if set, receives progress and problems (boot state, failed
	// units, cleanup trouble); t.Logf fits.
	Logf func(format string, args ...any)
}

// Container is one booted systemd container.
type Container struct {
	// Name is the machine name, also the container's hostname.
	Name string
	// PID is the host PID of the container's PID 1 (systemd).
	PID int
	// LogPath is the file with nspawn's and the console's output.
	LogPath string
	// FailedUnits lists the units that had failed when boot finished
	// (the system state was "degraded"); empty when it was "running".
	FailedUnits []string

	rootfs   string
	opts     Options
	nsenter  string
	cmd      *exec.Cmd
	done     chan struct{} // closed when the nspawn process has been reaped
	cgroups  []string      // per-container cgroup dirs we created, one per hierarchy
	snapshot string        // the -x copy nspawn boots from

	stopOnce sync.Once
}

// Available reports whether containers can be booted here: as root, with
// systemd-nspawn, nsenter and debootstrap installed. When not, reason is one
// line saying what is missing and how to get it.
func Available() (reason string, ok bool) {
	var missing []string
	for _, tool := range []string{"systemd-nspawn", "nsenter", "debootstrap"} {
		if _, err := lookTool(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	uid := os.Geteuid()
	switch {
	case uid != 0 && len(missing) > 0:
		return fmt.Sprintf("systemd container tests need root (running as uid %d) and %s: run as root after `apt-get install -y systemd-container debootstrap` (or .ci/install-systemd.sh)", uid, strings.Join(missing, ", ")), false
	case uid != 0:
		return fmt.Sprintf("systemd container tests need root to run systemd-nspawn (running as uid %d)", uid), false
	case len(missing) > 0:
		return fmt.Sprintf("systemd container tests need %s, not found: run `apt-get install -y systemd-container debootstrap` (or .ci/install-systemd.sh)", strings.Join(missing, ", ")), false
	}
	return "", true
}

// TB is the part of testing.TB that Require uses; this package does not
// import testing because it is not itself a test.
type TB interface {
	Helper()
	Skip(args ...any)
	Fatal(args ...any)
}

// Require skips the test with Available's reason when containers cannot be
// booted here, except under CI=true, where it fails it instead: a suite
// that silently skips in CI is a defect, not a pass.
func Require(t TB) {
	t.Helper()
	reason, ok := Available()
	if ok {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("CI=true but " + reason)
	}
	t.Skip(reason)
}

// CacheEnv names the environment variable that moves the root filesystem's
// cache out of the repo: CI sets it to a place of the machine's, so that a
// fresh clone does not debootstrap again (.ci/run).
const CacheEnv = "CNPA_NSPAWN_CACHE"

// CacheDir is where the root filesystem is cached: $CNPA_NSPAWN_CACHE when
// set, else RepoCacheDir.
func CacheDir() (string, error) {
	if d := os.Getenv(CacheEnv); d != "" {
		return filepath.Abs(d)
	}
	return RepoCacheDir()
}

// RepoCacheDir returns <repo>/.cache/nspawn, the git-ignored place for the
// root filesystem, where <repo> is the cnpa module root found by walking up
// from the working directory to the go.mod that has test/kubebox beside it.
func RepoCacheDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find repo root: %w", err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		_, errMod := os.Stat(filepath.Join(d, "go.mod"))
		_, errKB := os.Stat(filepath.Join(d, "test", "kubebox"))
		if errMod == nil && errKB == nil {
			return filepath.Join(d, ".cache", "nspawn"), nil
		}
		if d == filepath.Dir(d) {
			return "", fmt.Errorf("find repo root: no go.mod with test/kubebox beside it above %s", dir)
		}
	}
}

// lookTool finds a tool on PATH or in the sbin directories a non-login or
// non-root PATH often lacks (debootstrap lives in /usr/sbin).
func lookTool(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, dir := range []string{"/usr/sbin", "/sbin", "/usr/bin", "/bin"} {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found on PATH or in /usr/sbin, /sbin", name)
}

var machineSeq atomic.Int64

// Boot starts systemd from a throwaway copy of rootfs (or an overlay, see
// Options.Overlay), so rootfs stays pristine and boots can follow one another
// or run side by side, and waits until the container's system state is
// "running" or "degraded". On error everything started is cleaned up and the
// returned Container is nil; Stop on a nil Container is a no-op, so
// `t.Cleanup(c.Stop)` is safe either way.
func Boot(ctx context.Context, rootfs string, opts Options) (*Container, error) {
	if reason, ok := Available(); !ok {
		return nil, errors.New(reason)
	}
	rootfs, err := filepath.Abs(rootfs)
	if err != nil {
		return nil, fmt.Errorf("rootfs path: %w", err)
	}
	if !rootfsComplete(rootfs) {
		return nil, fmt.Errorf("%s is not a complete root filesystem from EnsureRootFS (no current %s marker)", rootfs, markerName)
	}
	if opts.BootTimeout == 0 {
		opts.BootTimeout = 90 * time.Second
	}
	nspawnBin, err := lookTool("systemd-nspawn")
	if err != nil {
		return nil, err
	}
	nsenterBin, err := lookTool("nsenter")
	if err != nil {
		return nil, err
	}

	// The name carries our PID so that cgroups left by a killed test run can
	// be recognised as stale (see sweepStaleCgroups).
	c := &Container{
		Name:    fmt.Sprintf("cnpa-%d-%d", os.Getpid(), machineSeq.Add(1)),
		rootfs:  rootfs,
		opts:    opts,
		nsenter: nsenterBin,
		done:    make(chan struct{}),
	}

	// Either way the cached rootfs is never written: -x boots a copy that
	// nspawn removes on exit, the overlay keeps its writes in tmpfs.
	mode := "-x"
	if opts.Overlay {
		mode = "--volatile=overlay"
	}
	args := []string{
		"-D", rootfs,
		mode,
		"-b",
		"--machine=" + c.Name,
		// Both are required when the host's PID 1 is not systemd: without
		// them nspawn asks systemd-machined/the host manager over D-Bus and
		// fails with "Failed to open system bus".
		"--register=no", "--keep-unit",
		"--console=passive",
		// Plain text in the log instead of ANSI colour codes.
		"--setenv=SYSTEMD_COLORS=0",
	}
	for _, b := range opts.Binds {
		if !filepath.IsAbs(b.Host) || !filepath.IsAbs(b.Container) {
			return nil, fmt.Errorf("bind %s -> %s: both paths must be absolute", b.Host, b.Container)
		}
		if _, err := os.Stat(b.Host); err != nil {
			return nil, fmt.Errorf("bind %s -> %s: %w", b.Host, b.Container, err)
		}
		args = append(args, "--bind-ro="+escapeBindPath(b.Host)+":"+escapeBindPath(b.Container))
	}

	var logf *os.File
	if opts.LogPath != "" {
		logf, err = os.OpenFile(opts.LogPath, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	} else {
		logf, err = os.CreateTemp("", "nspawn-"+c.Name+"-*.log")
	}
	if err != nil {
		return nil, fmt.Errorf("create container log: %w", err)
	}
	c.LogPath = logf.Name()

	if removed, err := sweepOrphanSnapshots(rootfs); err != nil {
		c.logf("nspawn: %v", err)
	} else if len(removed) > 0 {
		c.logf("nspawn: removed snapshots left by killed containers: %s", strings.Join(removed, ", "))
	}

	// nspawn creates "payload" and "supervisor" cgroups under the cgroup it
	// starts in. Containers started from one cgroup would share them, i.e.
	// two systemd instances would manage (and kill!) each other's units, so
	// each container starts in a cgroup of its own. A tiny shell joins it and
	// execs nspawn: the move must happen before nspawn reads its cgroup, and
	// the named v1 hierarchy cannot be joined at clone time from Go.
	argv := append([]string{nspawnBin}, args...)
	if procs, err := c.makeCgroups(); err != nil {
		c.logf("nspawn: %v; starting from the current cgroup, so containers must not run concurrently", err)
		c.removeCgroups()
	} else if len(procs) > 0 {
		script := `while [ "$1" != -- ]; do echo $$ > "$1" || exit 1; shift; done; shift; exec "$@"`
		argv = append(append([]string{"/bin/sh", "-c", script, "sh"}, procs...), append([]string{"--"}, argv...)...)
	}

	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{
		// Own session and process group: no signals from the test's
		// terminal, and one group to kill as a last resort.
		Setsid: true,
	}
	c.cmd = cmd
	// If the test process dies, nspawn gets SIGTERM and powers the
	// container off.
	if err := tether.Start(cmd, syscall.SIGTERM); err != nil {
		logf.Close()
		c.removeCgroups()
		return nil, fmt.Errorf("start systemd-nspawn: %w", err)
	}
	go func() {
		cmd.Wait()
		logf.Close()
		close(c.done)
	}()
	c.logf("nspawn: booting %s from %s with %s (log %s)", c.Name, rootfs, mode, c.LogPath)

	if err := c.waitBooted(ctx); err != nil {
		c.Stop()
		return nil, err
	}
	c.findSnapshot()
	return c, nil
}

// escapeBindPath escapes what --bind-ro treats specially in a path.
func escapeBindPath(p string) string {
	return strings.NewReplacer(`\`, `\\`, `:`, `\:`).Replace(p)
}

func (c *Container) logf(format string, args ...any) {
	if c.opts.Logf != nil {
		c.opts.Logf(format, args...)
	}
}

// exited reports whether the nspawn process has ended (and been reaped).
func (c *Container) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// waitBooted finds the container's PID 1 and waits for its systemd to
// report a finished boot.
func (c *Container) waitBooted(ctx context.Context) error {
	deadline := time.Now().Add(c.opts.BootTimeout)
	last := "(no answer yet: container PID 1 not found)"
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("boot %s: %w", c.Name, err)
		}
		if c.exited() {
			return fmt.Errorf("boot %s: systemd-nspawn exited (%v); log %s:\n%s", c.Name, c.cmd.ProcessState, c.LogPath, tailFile(c.LogPath, 30))
		}
		if c.PID == 0 {
			// The first child may be nspawn's short-lived outer helper; the
			// container's init is the child that is PID 1 of a new namespace.
			for _, kid := range childrenOf(c.cmd.Process.Pid) {
				if isNamespaceInit(kid) {
					c.PID = kid
				}
			}
		}
		if c.PID != 0 {
			qctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			out, errOut, err := c.Exec(qctx, "systemctl", "is-system-running")
			cancel()
			state := strings.TrimSpace(out)
			switch state {
			case "running":
				c.logf("nspawn: %s is running (PID 1 = host PID %d)", c.Name, c.PID)
				return nil
			case "degraded":
				fctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				failed, _, _ := c.Exec(fctx, "systemctl", "--failed", "--no-legend", "--plain", "--full")
				cancel()
				for _, line := range strings.Split(strings.TrimSpace(failed), "\n") {
					if f := strings.Fields(line); len(f) > 0 {
						c.FailedUnits = append(c.FailedUnits, f[0])
					}
				}
				c.logf("nspawn: %s booted degraded; failed units: %s", c.Name, strings.Join(c.FailedUnits, ", "))
				return nil
			case "maintenance", "stopping":
				return fmt.Errorf("boot %s: system state %q; log %s:\n%s", c.Name, state, c.LogPath, tailFile(c.LogPath, 30))
			}
			last = strings.TrimSpace(out + " " + errOut)
			if last == "" && err != nil {
				last = err.Error()
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("boot %s: not booted after %s; last `systemctl is-system-running`: %q; log %s:\n%s",
				c.Name, c.opts.BootTimeout, last, c.LogPath, tailFile(c.LogPath, 30))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// findSnapshot records which directory beside the rootfs is this
// container's -x copy (the one that is the same inode as PID 1's root), so
// Leftovers can check that it is gone. nspawn deletes it on a clean exit;
// otherwise Stop's sweep of unlocked copies does.
func (c *Container) findSnapshot() {
	var root syscall.Stat_t
	if err := syscall.Stat(fmt.Sprintf("/proc/%d/root", c.PID), &root); err != nil {
		return
	}
	parent := filepath.Dir(c.rootfs)
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), ".#") {
			continue
		}
		var st syscall.Stat_t
		p := filepath.Join(parent, e.Name())
		if syscall.Stat(p, &st) == nil && st.Dev == root.Dev && st.Ino == root.Ino {
			c.snapshot = p
			return
		}
	}
}

// Exec runs a command inside the container (in all its namespaces but the
// cgroup one) and returns its output. A non-zero exit is an error that
// includes stderr; stdout and stderr are returned either way.
func (c *Container) Exec(ctx context.Context, args ...string) (stdout, stderr string, err error) {
	return c.ExecEnv(ctx, nil, args...)
}

// ExecEnv is Exec with extra environment variables ("K=V"). The command
// starts with PATH set for the container, HOME=/root and LANG=C.UTF-8; env
// may override them. Nothing of the test process's environment leaks in.
func (c *Container) ExecEnv(ctx context.Context, env []string, args ...string) (stdout, stderr string, err error) {
	return c.run(ctx, env, nil, args...)
}

func (c *Container) run(ctx context.Context, env []string, stdin []byte, args ...string) (string, string, error) {
	if c == nil || c.PID == 0 {
		return "", "", errors.New("container is not running")
	}
	if len(args) == 0 {
		return "", "", errors.New("exec in container: no command")
	}
	if c.exited() {
		return "", "", fmt.Errorf("exec %q in %s: container has stopped", strings.Join(args, " "), c.Name)
	}
	nsArgs := append([]string{"-t", strconv.Itoa(c.PID), "-m", "-u", "-i", "-n", "-p", "--"}, args...)
	cmd := exec.CommandContext(ctx, c.nsenter, nsArgs...)
	cmd.Env = append([]string{"PATH=" + containerPATH, "HOME=/root", "LANG=C.UTF-8"}, env...)
	if stdin != nil {
		cmd.Stdin = strings.NewReader(string(stdin))
	}
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	// nsenter forks to enter the PID namespace; on cancellation kill the
	// whole group so the command inside does not linger.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if err != nil {
		err = fmt.Errorf("exec %q in %s: %w; stderr: %s", strings.Join(args, " "), c.Name, err, ui.Tail(strings.TrimSpace(errOut.String()), 10))
	}
	return out.String(), errOut.String(), err
}

// WriteFile writes data to path inside the container with the given
// permissions, creating parent directories. It goes through the container's
// own view of the filesystem (not /proc/PID/root, where absolute symlinks
// would resolve on the host) and renames into place, so systemd never reads a
// half-written unit file.
func (c *Container) WriteFile(path string, data []byte, mode os.FileMode) error {
	if !filepath.IsAbs(path) {
		return fmt.Errorf("write %s in container: path must be absolute", path)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	script := `set -e; mkdir -p "$(dirname "$1")"; t="$1.cnpa-tmp.$$"; cat > "$t"; chmod "$2" "$t"; mv -f "$t" "$1"`
	if data == nil {
		data = []byte{}
	}
	_, _, err := c.run(ctx, nil, data, "/bin/sh", "-c", script, "sh", path, fmt.Sprintf("%o", mode.Perm()))
	if err != nil {
		return fmt.Errorf("write %s in container: %w", path, err)
	}
	return nil
}

// Stop powers the container off and removes what nspawn leaves behind on the
// host. It is idempotent, safe on a nil Container (after a failed Boot), and
// never fails: problems go to Options.Logf and show in Leftovers.
func (c *Container) Stop() {
	if c == nil {
		return
	}
	c.stopOnce.Do(c.stop)
}

func (c *Container) stop() {
	if c.snapshot == "" && c.PID != 0 && processAlive(c.PID) {
		// Boot failed before recording it; Leftovers wants to know it.
		c.findSnapshot()
	}
	if c.cmd != nil && c.cmd.Process != nil && !c.exited() {
		// A clean poweroff lets nspawn delete its -x copy itself.
		if c.PID != 0 {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			if _, _, err := c.Exec(ctx, "systemctl", "poweroff"); err != nil && !c.exited() {
				// E.g. systemd not yet taking commands; nspawn turns
				// SIGTERM into the same orderly shutdown.
				c.logf("nspawn: %s: systemctl poweroff: %v; sending SIGTERM to nspawn", c.Name, err)
				c.cmd.Process.Signal(syscall.SIGTERM)
			}
			cancel()
		} else {
			// Not booted far enough to take commands; nspawn turns
			// SIGTERM into a container shutdown.
			c.cmd.Process.Signal(syscall.SIGTERM)
		}
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			c.logf("nspawn: %s did not power off within 10s; killing it", c.Name)
			// Killing the namespace's init kills every process in the
			// container; nspawn alone would leave its child running.
			if c.PID != 0 && processAlive(c.PID) {
				syscall.Kill(c.PID, syscall.SIGKILL)
			}
			syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
			select {
			case <-c.done:
			case <-time.After(5 * time.Second):
				c.logf("nspawn: %s: systemd-nspawn (pid %d) still not reaped after SIGKILL", c.Name, c.cmd.Process.Pid)
			}
		}
	}
	if c.PID != 0 && processAlive(c.PID) {
		syscall.Kill(c.PID, syscall.SIGKILL)
	}

	if c.exited() && c.rootfs != "" {
		// Our copy, if nspawn could not remove it, is now unlocked; so is
		// any other orphan, which is swept along with it.
		if _, err := sweepOrphanSnapshots(c.rootfs); err != nil {
			c.logf("nspawn: %s: %v", c.Name, err)
		}
	}
	c.removeCgroups()
	c.removeRunState()
}

// Leftovers lists what of this container is still on the host: a live
// nspawn or init process, cgroup directories, the -x copy, its runtime
// directory. Empty after a successful Stop.
func (c *Container) Leftovers() []string {
	if c == nil {
		return nil
	}
	var left []string
	if c.cmd != nil && c.cmd.Process != nil && !c.exited() {
		left = append(left, fmt.Sprintf("systemd-nspawn process %d", c.cmd.Process.Pid))
	}
	if c.PID != 0 && processAlive(c.PID) {
		left = append(left, fmt.Sprintf("container init process %d", c.PID))
	}
	for _, p := range append(append([]string{}, c.cgroups...), c.snapshot, c.runDir()) {
		if p == "" {
			continue
		}
		if _, err := os.Lstat(p); err == nil {
			left = append(left, p)
		}
	}
	return left
}

// makeCgroups creates this container's cgroup in each hierarchy and returns
// the cgroup.procs files to join. It first removes empty cgroups left by
// test processes that were killed before they could clean up.
func (c *Container) makeCgroups() ([]string, error) {
	roots, err := cgroupRoots()
	if err != nil {
		return nil, err
	}
	var procs []string
	for _, r := range roots {
		sweepStaleCgroups(r)
		dir := filepath.Join(r, c.Name)
		if err := os.Mkdir(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create cgroup for the container: %w", err)
		}
		c.cgroups = append(c.cgroups, dir)
		procs = append(procs, filepath.Join(dir, "cgroup.procs"))
	}
	return procs, nil
}

// sweepStaleCgroups removes the cgroups of containers whose test process
// (the PID in the name) is gone. Only empty ones go; a live container's
// cgroups refuse rmdir.
func sweepStaleCgroups(root string) {
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		parts := strings.Split(e.Name(), "-")
		if !e.IsDir() || len(parts) != 3 || parts[0] != "cnpa" {
			continue
		}
		pid, err := strconv.Atoi(parts[1])
		if err != nil || pid == os.Getpid() || processAlive(pid) {
			continue
		}
		rmdirTree(filepath.Join(root, e.Name()))
	}
}

func (c *Container) removeCgroups() {
	for _, dir := range c.cgroups {
		if left := rmdirTreeWithin(dir, 3*time.Second); len(left) > 0 {
			c.logf("nspawn: %s: cgroups still in use, left in place: %s", c.Name, strings.Join(left, ", "))
		}
	}
}

// runDir is nspawn's per-machine runtime directory on the host.
func (c *Container) runDir() string {
	if c.Name == "" {
		return ""
	}
	return filepath.Join("/run/systemd/nspawn/propagate", c.Name)
}

// removeRunState removes /run/systemd/nspawn/propagate/NAME and, when no
// other nspawn is running, the then-empty /run/systemd/nspawn. rmdir only:
// a non-empty directory there is not ours to judge.
func (c *Container) removeRunState() {
	if d := c.runDir(); d != "" {
		if err := syscall.Rmdir(d); err != nil && !errors.Is(err, syscall.ENOENT) {
			c.logf("nspawn: %s: remove %s: %v", c.Name, d, err)
		}
	}
	if otherNspawnRunning() {
		return
	}
	for _, d := range []string{"/run/systemd/nspawn/propagate", "/run/systemd/nspawn/locks", "/run/systemd/nspawn"} {
		syscall.Rmdir(d)
	}
}

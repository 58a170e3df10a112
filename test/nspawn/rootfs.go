package nspawn

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/labhub/cnpa/internal/ui"
)

const (
	// rootfsName is the cached root filesystem's directory in the cache dir.
	rootfsName = "debian-bookworm"
	// markerName is written into the root filesystem as the last build step,
	// so a directory without it (or with an older recipe) is never booted.
	markerName = ".cnpa-nspawn-rootfs"
	// DefaultMirror is used when the machine's apt sources name no Debian mirror.
	DefaultMirror = "http://deb.debian.org/debian"
)

// debootstrapArgs builds the root filesystem, minus target and mirror.
var debootstrapArgs = []string{
	"--variant=minbase",
	"--include=systemd,systemd-sysv,dbus,procps,bash,jq",
	"bookworm",
}

// maskedUnits are enabled by the Debian packages but only add background
// work a throwaway test container never wants: timers that would start apt
// or fstrim mid-test, and a getty that writes login prompts into the log.
// Nothing in this image fails to start in a container (checked: with these
// enabled the boot still ends "running"; systemd-networkd and its
// wait-online unit are not installed by minbase at all).
var maskedUnits = []string{
	"apt-daily.timer",
	"apt-daily-upgrade.timer",
	"dpkg-db-backup.timer",
	"e2scrub_all.timer",
	"e2scrub_reap.service",
	"fstrim.timer",
	"console-getty.service",
}

// recipe is written into the marker; changing how the image is built must
// change it, so caches built by an older recipe are rebuilt.
var recipe = "v4 debootstrap " + strings.Join(debootstrapArgs, " ") +
	" masked=" + strings.Join(maskedUnits, ",") + " trimmed=apt-caches,doc,man,info,locale no-hostname"

// EnsureRootFS returns the path of a minimal Debian bookworm root filesystem
// with systemd, building it in cacheDir on first use (35-50 s, ~100 MB) and
// reusing it afterwards. Build progress goes to logw (may be nil).
//
// The build happens in a temporary directory beside the final one and is
// renamed into place only when complete, under an exclusive lock on the
// cache dir, so concurrent test processes build it once and an interrupted
// build is never booted. Boot with -x (as Boot does) keeps it pristine.
func EnsureRootFS(ctx context.Context, cacheDir string, logw io.Writer) (string, error) {
	if logw == nil {
		logw = io.Discard
	}
	cacheDir, err := filepath.Abs(cacheDir)
	if err != nil {
		return "", fmt.Errorf("rootfs cache dir: %w", err)
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return "", fmt.Errorf("create rootfs cache dir: %w", err)
	}
	unlock, err := lockDir(ctx, cacheDir)
	if err != nil {
		return "", err
	}
	defer unlock()

	final := filepath.Join(cacheDir, rootfsName)
	if rootfsComplete(final) {
		return final, nil
	}

	// Under the lock nobody else is building, so anything half-done here is
	// debris from an interrupted build or an older recipe.
	stale, _ := filepath.Glob(filepath.Join(cacheDir, rootfsName+".tmp-*"))
	if _, err := os.Lstat(final); err == nil {
		stale = append(stale, final)
	}
	for _, d := range stale {
		fmt.Fprintf(logw, "nspawn: removing stale rootfs %s\n", d)
		if err := removeTree(d); err != nil {
			return "", fmt.Errorf("remove stale rootfs: %w", err)
		}
	}

	tmp, err := os.MkdirTemp(cacheDir, rootfsName+".tmp-")
	if err != nil {
		return "", fmt.Errorf("create rootfs build dir: %w", err)
	}
	// MkdirTemp makes it 0700; as the container's "/" it must let service
	// users (messagebus, User= units) through.
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", fmt.Errorf("chmod rootfs build dir: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			if err := removeTree(tmp); err != nil {
				fmt.Fprintf(logw, "nspawn: cleaning up failed build: %v\n", err)
			}
		}
	}()

	start := time.Now()
	mirror := DebianMirror()
	if err := debootstrap(ctx, tmp, mirror, logw); err != nil {
		return "", err
	}
	if err := customize(tmp); err != nil {
		return "", fmt.Errorf("prepare rootfs: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		return "", fmt.Errorf("move built rootfs into place: %w", err)
	}
	ok = true
	fmt.Fprintf(logw, "nspawn: built %s from %s in %s\n", final, mirror, time.Since(start).Round(100*time.Millisecond))
	return final, nil
}

func rootfsComplete(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, markerName))
	return err == nil && strings.TrimSpace(string(data)) == recipe
}

func debootstrap(ctx context.Context, target, mirror string, logw io.Writer) error {
	bin, err := lookTool("debootstrap")
	if err != nil {
		return err
	}
	args := append(append([]string{}, debootstrapArgs...), target, mirror)
	cmd := exec.CommandContext(ctx, bin, args...)
	// debootstrap runs dpkg in a chroot; killing only debootstrap on
	// cancellation would leave those running, so kill its process group.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	tail := &tailWriter{max: 4096}
	cmd.Stdout = io.MultiWriter(logw, tail)
	cmd.Stderr = cmd.Stdout
	fmt.Fprintf(logw, "nspawn: %s %s\n", bin, strings.Join(args, " "))
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("debootstrap interrupted: %w", ctx.Err())
		}
		return fmt.Errorf("debootstrap bookworm from %s: %w\n%s", mirror, err, ui.Tail(tail.String(), 15))
	}
	return nil
}

// customize trims and tunes the fresh image; the marker goes last.
func customize(root string) error {
	// Package caches are ~90 MB that every -x boot would copy for nothing.
	debs, _ := filepath.Glob(filepath.Join(root, "var/cache/apt/archives/*.deb"))
	lists, _ := filepath.Glob(filepath.Join(root, "var/lib/apt/lists/*_*"))
	for _, p := range append(debs, lists...) {
		if err := os.Remove(p); err != nil {
			return fmt.Errorf("trim apt caches: %w", err)
		}
	}
	// Documentation and translations are another ~50 MB of copying per boot.
	// locale.alias stays: glibc reads it.
	for _, pat := range []string{"usr/share/doc/*", "usr/share/man/*", "usr/share/info/*", "usr/share/locale/*/"} {
		matches, _ := filepath.Glob(filepath.Join(root, pat))
		for _, p := range matches {
			if err := os.RemoveAll(p); err != nil {
				return fmt.Errorf("trim documentation: %w", err)
			}
		}
	}
	// Masking is a symlink to /dev/null; done directly so the build needs no
	// chroot and no systemctl on the host.
	sysDir := filepath.Join(root, "etc/systemd/system")
	for _, u := range maskedUnits {
		p := filepath.Join(sysDir, u)
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("mask %s: %w", u, err)
		}
		if err := os.Symlink("/dev/null", p); err != nil {
			return fmt.Errorf("mask %s: %w", u, err)
		}
	}
	// debootstrap copies the build host's /etc/hostname; without one the
	// container keeps the machine name nspawn gives it as hostname.
	if err := os.Remove(filepath.Join(root, "etc/hostname")); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove build host's hostname: %w", err)
	}
	// /etc/machine-id keeps the id debootstrap's systemd postinst wrote: an
	// empty one would make every boot a "first boot" that runs preset-all.
	// root has no password; tests reach in with nsenter, never by login.
	if err := os.WriteFile(filepath.Join(root, markerName), []byte(recipe+"\n"), 0o644); err != nil {
		return fmt.Errorf("write marker: %w", err)
	}
	return nil
}

// lockDir takes an exclusive flock on dir/.lock, polling so ctx can cancel
// the wait (another process may be in the middle of a 35 s build).
func lockDir(ctx context.Context, dir string) (func(), error) {
	p := filepath.Join(dir, ".lock")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open rootfs lock: %w", err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", p, err)
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, fmt.Errorf("waiting for rootfs lock %s: %w", p, ctx.Err())
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// DebianMirror returns the Debian mirror the machine's apt sources use, so the
// build goes through the same (possibly local or proxied) mirror apt does,
// falling back to DefaultMirror.
func DebianMirror() string {
	var files []string
	if _, err := os.Stat("/etc/apt/sources.list"); err == nil {
		files = append(files, "/etc/apt/sources.list")
	}
	for _, pat := range []string{"/etc/apt/sources.list.d/*.list", "/etc/apt/sources.list.d/*.sources"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		var m string
		if strings.HasSuffix(f, ".sources") {
			m = mirrorFromDeb822(string(data))
		} else {
			m = mirrorFromList(string(data))
		}
		if m != "" {
			return m
		}
	}
	return DefaultMirror
}

// debianSuites are the suite names that mark an entry as a Debian archive,
// as opposed to third-party repositories (nodesource, cloud-sdk, ...) and
// the security archive, which has no full bookworm to bootstrap from.
var debianSuites = map[string]bool{
	"buster": true, "bullseye": true, "bookworm": true, "trixie": true, "forky": true,
	"sid": true, "oldstable": true, "stable": true, "testing": true, "unstable": true,
}

// mirrorFromList parses one-line-style sources: `deb [opts] URI SUITE COMP...`.
func mirrorFromList(text string) string {
	for _, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		fields := strings.Fields(line)
		if len(fields) < 3 || fields[0] != "deb" {
			continue
		}
		fields = fields[1:]
		if strings.HasPrefix(fields[0], "[") {
			// Options may span several fields: [arch=amd64 signed-by=...].
			for len(fields) > 0 && !strings.HasSuffix(fields[0], "]") {
				fields = fields[1:]
			}
			if len(fields) > 0 {
				fields = fields[1:]
			}
		}
		if len(fields) >= 2 && usableMirror(fields[0]) && debianSuites[fields[1]] {
			return strings.TrimSuffix(fields[0], "/")
		}
	}
	return ""
}

// mirrorFromDeb822 parses deb822-style sources: blank-line separated stanzas
// with Types:, URIs: and Suites: fields.
func mirrorFromDeb822(text string) string {
	for _, stanza := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		fields := map[string]string{}
		sc := bufio.NewScanner(strings.NewReader(stanza))
		for sc.Scan() {
			line := sc.Text()
			if strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			if k, v, ok := strings.Cut(line, ":"); ok && !strings.HasPrefix(line, " ") && !strings.HasPrefix(line, "\t") {
				fields[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
			}
		}
		if !hasWord(fields["types"], "deb") || strings.EqualFold(fields["enabled"], "no") {
			continue
		}
		debian := false
		for _, s := range strings.Fields(fields["suites"]) {
			debian = debian || debianSuites[s]
		}
		if !debian {
			continue
		}
		for _, u := range strings.Fields(fields["uris"]) {
			if usableMirror(u) {
				return strings.TrimSuffix(u, "/")
			}
		}
	}
	return ""
}

func hasWord(s, w string) bool {
	for _, f := range strings.Fields(s) {
		if f == w {
			return true
		}
	}
	return false
}

// usableMirror accepts what debootstrap can fetch from.
func usableMirror(u string) bool {
	return strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") || strings.HasPrefix(u, "file:/")
}

// tailWriter keeps the last max bytes written, for error messages.
type tailWriter struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	if len(w.buf) > w.max {
		w.buf = w.buf[len(w.buf)-w.max:]
	}
	return len(p), nil
}

func (w *tailWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return string(w.buf)
}

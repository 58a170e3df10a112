package nspawn

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/ui"
)

// TestSystemdInContainer proves the container runs a real systemd that
// does what cnpa's setup steps rely on: unit files, enable --now, restart
// on crash, the journal, and read-only host binaries. It boots both ways
// (a -x copy and a tmpfs overlay) from the same cached rootfs.
func TestSystemdInContainer(t *testing.T) {
	Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()

	cache, err := CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	cold := !rootfsComplete(filepath.Join(cache, rootfsName))
	if cold {
		t.Logf("no cached rootfs in %s: building it with debootstrap (first run only, 35-50 s)", cache)
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	// Appended to, so a warm run does not wipe the last build's log.
	buildLog, err := os.OpenFile(filepath.Join(cache, "debootstrap.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	rootfs, err := EnsureRootFS(ctx, cache, buildLog)
	buildLog.Close()
	if err != nil {
		t.Fatalf("EnsureRootFS (full log %s): %v", buildLog.Name(), err)
	}
	temp := "warm (cached)"
	if cold {
		temp = "cold (debootstrap)"
	}
	t.Logf("timing: rootfs %s: %s", temp, time.Since(start).Round(10*time.Millisecond))

	for _, mode := range []struct {
		name    string
		overlay bool
	}{{"copy", false}, {"overlay", true}} {
		t.Run(mode.name, func(t *testing.T) {
			exerciseSystemd(ctx, t, rootfs, mode.overlay)
		})
	}
}

func exerciseSystemd(ctx context.Context, t *testing.T, rootfs string, overlay bool) {
	// A host directory to bind read-only, standing in for /opt/cnpa.
	hostDir := t.TempDir()
	if err := os.WriteFile(filepath.Join(hostDir, "marker.txt"), []byte("from-the-host\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	c, err := Boot(ctx, rootfs, Options{
		Binds:   []Bind{{Host: hostDir, Container: "/opt/cnpa"}},
		LogPath: filepath.Join(t.TempDir(), "container.log"),
		Overlay: overlay,
		Logf:    t.Logf,
	})
	t.Cleanup(c.Stop)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("timing: boot to %q: %s", "running", time.Since(start).Round(10*time.Millisecond))
	if len(c.FailedUnits) > 0 {
		t.Errorf("boot degraded; failed units: %v", c.FailedUnits)
	}

	run := func(t *testing.T, args ...string) string {
		t.Helper()
		out, _, err := c.Exec(ctx, args...)
		if err != nil {
			t.Fatal(err)
		}
		return strings.TrimSpace(out)
	}

	if got := run(t, "hostname"); got != c.Name {
		t.Errorf("container hostname %q, want the machine name %q", got, c.Name)
	}
	// Service users (messagebus, User= units) must be able to traverse "/".
	if got := run(t, "stat", "-c", "%a", "/"); got != "755" {
		t.Errorf("container / has mode %s, want 755", got)
	}

	t.Run("unit lifecycle", func(t *testing.T) {
		unit := `[Unit]
Description=hello test unit

[Service]
ExecStart=/bin/bash -c 'while true; do echo hello-from-unit; sleep 1; done'
Restart=always
RestartSec=1

[Install]
WantedBy=multi-user.target
`
		if err := c.WriteFile("/etc/systemd/system/hello.service", []byte(unit), 0o644); err != nil {
			t.Fatal(err)
		}
		run(t, "systemctl", "daemon-reload")
		run(t, "systemctl", "enable", "--now", "hello.service")
		if got := run(t, "systemctl", "is-enabled", "hello.service"); got != "enabled" {
			t.Fatalf("is-enabled = %q, want enabled", got)
		}
		if got := run(t, "systemctl", "is-active", "hello.service"); got != "active" {
			t.Fatalf("is-active = %q, want active", got)
		}
		first := run(t, "systemctl", "show", "-p", "MainPID", "--value", "hello.service")
		if first == "" || first == "0" {
			t.Fatalf("MainPID = %q, want a process", first)
		}

		run(t, "kill", "-9", first)
		deadline := time.Now().Add(10 * time.Second)
		var now string
		for {
			now = run(t, "systemctl", "show", "-p", "MainPID", "--value", "hello.service")
			if now != "" && now != "0" && now != first {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no new MainPID within 10s after killing %s (now %q); status:\n%s", first, now, statusOf(c, "hello.service"))
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("Restart=always replaced killed MainPID %s with %s", first, now)

		// The journal may lag a moment behind the unit's output.
		deadline = time.Now().Add(10 * time.Second)
		for {
			j := run(t, "journalctl", "-u", "hello", "--no-pager")
			if strings.Contains(j, "hello-from-unit") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("journalctl -u hello has no hello-from-unit:\n%s", ui.Tail(j, 20))
			}
			time.Sleep(200 * time.Millisecond)
		}
	})

	t.Run("read-only bind", func(t *testing.T) {
		if got := run(t, "cat", "/opt/cnpa/marker.txt"); got != "from-the-host" {
			t.Fatalf("bound file reads %q, want from-the-host", got)
		}
		for _, script := range []string{
			"echo changed > /opt/cnpa/marker.txt",
			"touch /opt/cnpa/new-file",
		} {
			_, stderr, err := c.Exec(ctx, "/bin/sh", "-c", script)
			if err == nil {
				t.Errorf("%q succeeded inside the container; the bind must be read-only", script)
			} else if !strings.Contains(stderr, "Read-only file system") {
				t.Errorf("%q failed, but not for being read-only: %s", script, stderr)
			}
		}
		if data, _ := os.ReadFile(filepath.Join(hostDir, "marker.txt")); string(data) != "from-the-host\n" {
			t.Errorf("host file changed to %q", data)
		}
		if _, err := os.Stat(filepath.Join(hostDir, "new-file")); err == nil {
			t.Errorf("a file appeared in the host dir")
		}
	})

	start = time.Now()
	nspawnPID, initPID := c.cmd.Process.Pid, c.PID
	c.Stop()
	t.Logf("timing: stop: %s", time.Since(start).Round(10*time.Millisecond))
	if left := c.Leftovers(); len(left) > 0 {
		t.Errorf("after Stop, still on the host: %s", strings.Join(left, "; "))
	}
	for _, pid := range []int{nspawnPID, initPID} {
		if processAlive(pid) {
			t.Errorf("process %d still alive after Stop", pid)
		}
	}
	if snaps, _ := filepath.Glob(filepath.Join(filepath.Dir(rootfs), ".#*"+rootfsName+"*")); len(snaps) > 0 {
		t.Errorf("-x snapshot copies left beside the rootfs: %v", snaps)
	}
	if !rootfsComplete(rootfs) {
		t.Errorf("cached rootfs lost its marker: the boot must not have touched it")
	}
	if _, err := os.Stat(filepath.Join(rootfs, "etc/systemd/system/hello.service")); err == nil {
		t.Errorf("hello.service leaked into the cached rootfs; it must stay pristine")
	}
	c.Stop() // idempotent
}

func statusOf(c *Container, unit string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, _, _ := c.Exec(ctx, "systemctl", "status", "--no-pager", unit)
	return out
}

func TestStopNil(t *testing.T) {
	var c *Container
	c.Stop() // after a failed Boot; must not panic
	if left := c.Leftovers(); left != nil {
		t.Fatalf("nil container has leftovers: %v", left)
	}
}

func TestMirrorFromSources(t *testing.T) {
	deb822 := `Types: deb
# http://snapshot.debian.org/archive/debian/20250520T000000Z
URIs: http://mirror.example/debian/
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
`
	if got := mirrorFromDeb822(deb822); got != "http://mirror.example/debian" {
		t.Errorf("deb822: got %q", got)
	}
	thirdParty := "Types: deb\nURIs: https://deb.nodesource.com/node_20.x\nSuites: nodistro\nComponents: main\n"
	if got := mirrorFromDeb822(thirdParty); got != "" {
		t.Errorf("deb822 third-party: got %q, want none", got)
	}
	disabled := "Enabled: no\nTypes: deb\nURIs: http://a.example/debian\nSuites: bookworm\n"
	if got := mirrorFromDeb822(disabled); got != "" {
		t.Errorf("deb822 disabled: got %q, want none", got)
	}
	list := `# comment
deb https://packages.cloud.google.com/apt cloud-sdk-bookworm main
deb-src http://src.example/debian bookworm main
deb [arch=amd64 signed-by=/usr/share/keyrings/k.gpg] http://local.example:3142/debian bookworm main contrib
`
	if got := mirrorFromList(list); got != "http://local.example:3142/debian" {
		t.Errorf("list: got %q", got)
	}
}

func TestAvailableReasonIsOneLine(t *testing.T) {
	reason, ok := Available()
	if ok {
		if reason != "" {
			t.Errorf("ok with reason %q", reason)
		}
		return
	}
	if reason == "" || strings.Contains(reason, "\n") {
		t.Errorf("reason must be one non-empty line, got %q", reason)
	}
}

package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/labhub/cnpa/test/kit/cluster"
)

// TestMakeCluster runs `make cluster` as a learner does in a terminal: it
// starts a real control plane in the foreground and prints the exports;
// the printed lines, pasted, give a kubectl that works against it and a
// cnpa whose steps 1–4 pass there (step 4 leaves the service running).
// Ctrl-C, a SIGINT to the whole foreground process group as a terminal
// sends it, then stops everything: make exits, and no process that names
// the cluster's state dir (the control plane, the service) nor the dir
// itself is left.
func TestMakeCluster(t *testing.T) {
	kubebox, err := cluster.KubeboxPath()
	if err != nil {
		t.Fatal(err)
	}
	root := moduleRoot(t)
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.Command("make", "-s", "cluster", "CNPA_KUBEBOX="+kubebox)
	cmd.Dir = root
	cmd.Env = cleanEnv("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "KUBECONFIG", "CNPA_DIR", "CNPA_UNIT_DIR")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	exited := make(chan error, 1)
	// Whatever fails below, the group goes with the test.
	t.Cleanup(func() {
		syscall.Kill(-pgid, syscall.SIGKILL)
	})

	// Read until the last line of the banner, keeping what it printed.
	var banner strings.Builder
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		io.Copy(io.Discard, stdout)
		exited <- cmd.Wait()
	}()
	deadline := time.After(5 * time.Minute) // a cold machine builds cnpa first
	for ready := false; !ready; {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("make cluster ended before it was ready:\n%s\nstderr:\n%s", banner.String(), stderr.String())
			}
			banner.WriteString(l + "\n")
			ready = strings.HasPrefix(l, "Ctrl-C here")
		case <-deadline:
			t.Fatalf("make cluster not ready after 5m:\n%s\nstderr:\n%s", banner.String(), stderr.String())
		}
	}
	go func() {
		for range lines {
		}
	}()
	exports := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^  export (\w+)=(.*)$`).FindAllStringSubmatch(banner.String(), -1) {
		exports[m[1]] = m[2]
	}
	for _, k := range []string{"KUBECONFIG", "PATH", "CNPA_DIR", "CNPA_UNIT_DIR"} {
		if exports[k] == "" {
			t.Fatalf("make cluster printed no `export %s=…`:\n%s", k, banner.String())
		}
	}
	stateDir := filepath.Dir(exports["KUBECONFIG"])
	if !strings.HasPrefix(exports["CNPA_DIR"], stateDir+"/") {
		t.Errorf("CNPA_DIR %s is not inside the cluster's state dir %s, which Ctrl-C removes", exports["CNPA_DIR"], stateDir)
	}

	// The pasted lines, in a shell, as the learner would.
	shell := func(script string) string {
		t.Helper()
		var b strings.Builder
		for _, k := range []string{"KUBECONFIG", "PATH", "CNPA_DIR", "CNPA_UNIT_DIR"} {
			b.WriteString("export " + k + "=" + exports[k] + "\n")
		}
		sh := exec.CommandContext(ctx, "bash", "-ec", b.String()+script)
		sh.Dir = t.TempDir()
		sh.Env = cleanEnv("KUBECONFIG", "CNPA_DIR", "CNPA_UNIT_DIR")
		out, err := sh.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", script, err, out)
		}
		return string(out)
	}
	if out := shell("kubectl get namespace kube-system -o name"); strings.TrimSpace(out) != "namespace/kube-system" {
		t.Errorf("kubectl against make cluster's control plane: got %q, want namespace/kube-system", out)
	}
	if out := shell("kubectl version -o yaml"); !strings.Contains(out, "serverVersion:") {
		t.Errorf("kubectl version: no server version:\n%s", out)
	}
	shell("cnpa step 1 -q && cnpa step 2 -q && cnpa step 3 -q && cnpa step 4 -q")
	pidData, err := os.ReadFile(filepath.Join(exports["CNPA_DIR"], "cnpa-op.pid"))
	if err != nil {
		t.Fatalf("step 4 left no running service: %v", err)
	}
	servicePid, _ := strconv.Atoi(strings.TrimSpace(string(pidData)))
	if servicePid <= 0 || !running(servicePid) {
		t.Fatalf("the service (pid %q) is not running after step 4", pidData)
	}
	if _, err := os.Stat(filepath.Join(exports["CNPA_UNIT_DIR"], "cnpa-op.service")); err != nil {
		t.Errorf("the unit is not in CNPA_UNIT_DIR: %v", err)
	}

	// Ctrl-C.
	if err := syscall.Kill(-pgid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("make cluster: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatalf("make cluster still running 1m after SIGINT\nstderr:\n%s", stderr.String())
	}
	for _, want := range []string{"stopped cnpa-op.service", "removed"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("make cluster's stderr after Ctrl-C does not say %q:\n%s", want, stderr.String())
		}
	}
	if _, err := os.Stat(stateDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the cluster's state dir %s is still there after Ctrl-C (stat: %v)", stateDir, err)
	}
	// Everything stopped synchronously before make exited; a process still
	// naming the dir is one left behind.
	if left := processesNaming(stateDir); len(left) > 0 {
		t.Errorf("processes left behind after Ctrl-C:\n%s", strings.Join(left, "\n"))
	}
	if running(servicePid) {
		stat, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(servicePid), "stat"))
		t.Errorf("the service (pid %d) is still running after Ctrl-C: %s", servicePid, stat)
	} else if syscall.Kill(servicePid, 0) == nil {
		t.Logf("the service (pid %d) has exited; a zombie until its parent reaps it", servicePid)
	}
}

// running tells whether pid is a live process. A zombie is not: it has
// exited, and only waits for its parent (here the machine's init, the
// detached service's parent once it is orphaned) to reap it.
func running(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses: "pid (comm) S …".
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}

// processesNaming lists the processes whose command line contains s.
func processesNaming(s string) []string {
	var out []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue // gone meanwhile
		}
		if line := strings.ReplaceAll(string(cmdline), "\x00", " "); strings.Contains(line, s) {
			out = append(out, e.Name()+": "+line)
		}
	}
	return out
}

// cleanEnv is the test's environment without the named variables.
func cleanEnv(drop ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, d := range drop {
			keep = keep && name != d
		}
		if keep {
			env = append(env, kv)
		}
	}
	return env
}

// moduleRoot is the cnpa module's root, where the Makefile is.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

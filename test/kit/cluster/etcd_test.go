package cluster

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestEtcdOnlyForItsUser is N9 of issue 40: etcd has no authentication
// here, so it listens on no TCP port (as nobody, `curl -X POST
// 127.0.0.1:<port>/v3/kv/put` was cluster-admin), only on a unix socket
// in a 0700 dir, which the API server is pointed at; and the kubeconfig
// verifies the API server.
func TestEtcdOnlyForItsUser(t *testing.T) {
	c := Shared(t)
	if c.Datastore != DatastoreEtcd {
		t.Skipf("the shared cluster's datastore is %s", c.Datastore)
	}
	sock := filepath.Join(c.Dir, "run", "etcd.sock")
	if fi, err := os.Lstat(sock); err != nil || fi.Mode()&os.ModeSocket == 0 {
		t.Errorf("etcd's client endpoint %s: %v, %v: want a unix socket", sock, fi, err)
	}
	if fi, err := os.Lstat(filepath.Dir(sock)); err != nil || fi.Mode().Perm() != 0o700 || !fi.IsDir() {
		t.Errorf("etcd's socket dir: %v, %v: want a directory of mode 0700", fi, err)
	}
	if !slices.Contains(c.apiServerArgs, "--etcd-servers=unix://"+sock) {
		t.Errorf("the API server's args do not point at the socket: %q", c.apiServerArgs)
	}
	// The kubeconfig verifies the API server with the certificate it made,
	// rather than skipping verification on a port freed before the API
	// server bound it (whoever bound it first would get the token).
	if kc, err := os.ReadFile(c.Kubeconfig); err != nil || !strings.Contains(string(kc), "certificate-authority-data: ") || strings.Contains(string(kc), "insecure-skip-tls-verify") {
		t.Errorf("the kubeconfig does not verify the API server with its certificate (%v):\n%s", err, kc)
	}
	c.mu.Lock()
	p := c.procs["etcd"]
	c.mu.Unlock()
	if p == nil {
		t.Fatal("no etcd process")
	}
	pid := p.cmd.Process.Pid
	fds, err := os.ReadDir(filepath.Join("/proc", strconv.Itoa(pid), "fd"))
	if err != nil {
		t.Fatal(err)
	}
	inodes := map[string]bool{}
	for _, fd := range fds {
		if l, err := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "fd", fd.Name())); err == nil && strings.HasPrefix(l, "socket:[") {
			inodes[strings.TrimSuffix(strings.TrimPrefix(l, "socket:["), "]")] = true
		}
	}
	for _, table := range []string{"tcp", "tcp6"} {
		data, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "net", table))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			f := strings.Fields(line)
			if len(f) > 9 && f[3] == "0A" && inodes[f[9]] {
				t.Errorf("etcd listens on TCP (%s %s): any local user reaches it", table, f[1])
			}
		}
	}
}

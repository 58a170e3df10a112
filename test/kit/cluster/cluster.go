// Package cluster starts a real Kubernetes control plane for tests:
// kube-apiserver and kube-controller-manager from the kubebox binary
// (test/kubebox, built by `make kubebox`), each in its own process, on
// 127.0.0.1 with free ports and one temporary state directory. The
// datastore is embedded etcd in a process of its own, or kine over SQLite
// inside the kube-apiserver process, as k3s runs it by default.
//
// Nothing here is faked: generation bumps, the status subresource, garbage
// collection, namespace deletion and the ResourceQuota controller are the
// real ones from k8s.io/kubernetes v1.37.2.
package cluster

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/labhub/cnpa/internal/ui"
	"github.com/labhub/cnpa/test/kit/tether"
)

// Cluster is one running control plane.
type Cluster struct {
	// Dir is the state directory; everything the cluster writes is under it.
	Dir string
	// Kubeconfig is the path of an admin kubeconfig for the cluster.
	Kubeconfig string
	// Server is the API server URL, https://127.0.0.1:PORT.
	Server string
	// Token is the admin bearer token.
	Token string
	// BinDir holds a `kubectl` (the kubebox one, v1.37.2); prepend it to PATH
	// so scripts never use whatever kubectl the machine has.
	BinDir string
	// Datastore is what kube-apiserver stores into: DatastoreEtcd or
	// DatastoreKine.
	Datastore string

	kubebox       string
	durable       bool
	apiServerArgs []string
	apiPort       int
	mu            sync.Mutex
	procs         map[string]*proc
	ownedDir      bool
	userTokens    map[string]string // Options.Users → token
}

type proc struct {
	cmd  *exec.Cmd
	done chan struct{}
}

// The datastores Start offers.
const (
	// DatastoreEtcd is embedded etcd in a process of its own.
	DatastoreEtcd = "etcd"
	// DatastoreKine is kine over SQLite (state in Dir/kine/state.db),
	// running inside the kube-apiserver process as in k3s: StopAPIServer
	// stops both and StartAPIServer starts both.
	DatastoreKine = "kine"
)

// DatastoreEnv names the environment variable Main reads the datastore
// from, so that a whole test run can switch: CNPA_DATASTORE=kine go test ./...
const DatastoreEnv = "CNPA_DATASTORE"

// kineSQLiteParams are the SQLite options k3s has long passed to kine:
// write-ahead log and a shared cache.
const kineSQLiteParams = "?_journal=WAL&cache=shared"

// Options tune Start.
type Options struct {
	// Dir is the state directory; empty means a new temporary one, removed by Stop.
	Dir string
	// Datastore is DatastoreEtcd (also when empty) or DatastoreKine.
	Datastore string
	// ExtraAPIServerFlags are appended to kube-apiserver's flags.
	ExtraAPIServerFlags []string
	// Audit makes kube-apiserver record every write request in AuditLog:
	// who wrote what, read back with AuditSince.
	Audit bool
	// AuditAllOf are users whose every request is recorded, reads and
	// watches too (a watch when it starts): what a test derives a role's
	// verbs from. Implies Audit.
	AuditAllOf []string
	// Users are extra admin users (group system:masters) with tokens of
	// their own, so that the audit log tells apart clients that would
	// otherwise all be "admin"; UserKubeconfig gives each a kubeconfig.
	Users []string
	// Durable runs the control plane as a real one runs: etcd fsyncs every
	// write and each component uses every core. make bench sets it, since
	// it measures what a controller costs beside a real control plane.
	// Without it (the tests, make lab, make cluster) etcd never fsyncs and
	// each component runs with GOMAXPROCS=1 (see lean).
	Durable bool
}

// lean is how a test control plane runs unless Options.Durable: make test
// runs about nine of them at once on two cores. There, every Go process's
// spare P runs the collector's idle mark workers and spins looking for
// work, which the kernel cannot tell from real work, and etcd's fsync of
// every write waits on the disk; none of it is what a test is about. A
// test cluster's data never needs to outlive a crash of the machine, and
// the API server's behaviour does not depend on how many cores it has.
func lean(component string) (env []string, args []string) {
	if _, set := os.LookupEnv("GOMAXPROCS"); !set {
		env = []string{"GOMAXPROCS=1"}
	}
	if component == "etcd" {
		args = []string{"--unsafe-no-fsync"}
	}
	return env, args
}

// KubeboxPath finds the kubebox binary: $CNPA_KUBEBOX, else .bin/kubebox at
// the root of the cnpa module (found by walking up from the working dir).
func KubeboxPath() (string, error) {
	if p := os.Getenv("CNPA_KUBEBOX"); p != "" {
		return p, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			if _, err := os.Stat(filepath.Join(dir, "test", "kubebox")); err == nil {
				p := filepath.Join(dir, ".bin", "kubebox")
				if _, err := os.Stat(p); err != nil {
					return "", fmt.Errorf("kubebox binary %s is missing: run `make kubebox` (the Makefile's test target builds it)", p)
				}
				return p, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("cannot find the cnpa module root from the working directory; set CNPA_KUBEBOX")
		}
		dir = parent
	}
}

// KubectlBeside is the kubectl that goes with the kubebox binary at
// kubebox: kubebox-kubectl in the same directory (`make kubebox` builds
// both), else kubebox itself, which is kubectl when called by that name.
// Both are k8s.io/kubectl v1.37.2 from test/kubebox's go.mod; the one of
// its own starts in about a third of the CPU time, without the init of
// the API server, controller-manager and etcd linked into kubebox, and
// the tests' scripts run kubectl thousands of times.
func KubectlBeside(kubebox string) string {
	p := filepath.Join(filepath.Dir(kubebox), "kubebox-kubectl")
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
		return p
	}
	return kubebox
}

// ParseDatastore checks a datastore name: empty means DatastoreEtcd.
func ParseDatastore(s string) (string, error) {
	switch s {
	case "", DatastoreEtcd:
		return DatastoreEtcd, nil
	case DatastoreKine:
		return DatastoreKine, nil
	}
	return "", fmt.Errorf("unknown datastore %q: want %s or %s", s, DatastoreEtcd, DatastoreKine)
}

// bootSlots bounds how many control planes boot at once on the machine,
// across test processes: make test runs four packages side by side, and
// test/lab, test/learners and test/system each start several clusters at
// once. Booting is the costly part of a cluster's life (etcd, the API
// server's post-start hooks and RBAC bootstrap, the controller-manager's
// first syncs) and each phase has 90 s: eight at once on two busy cores
// missed that, while two at a time, the others waiting their turn, boot
// them about as soon. A slot is a flock on a file in the user's runtime
// dir (lockDir), so a process that dies lets go of its slot, and no other
// user can hold the slots.
const bootSlots = 2

// lockDir is where the boot slots' lock files live: $XDG_RUNTIME_DIR
// when set, else cnpa-testcluster-<uid> in the temp dir, made 0700; never
// fixed names in the shared temp dir, which another user could make
// first and hold.
func lockDir() (string, error) {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		if err := ownPrivate(d); err == nil {
			return d, nil
		}
	}
	d := filepath.Join(os.TempDir(), fmt.Sprintf("cnpa-testcluster-%d", os.Getuid()))
	return d, privateDir(d)
}

// privateDir makes dir (mode 0700) if missing and checks that it is a
// directory (not a symlink) of this user's that no one else can enter.
func privateDir(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return err
	}
	return ownPrivate(dir)
}

func ownPrivate(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s is not a directory", dir)
	case !ok || int(st.Uid) != os.Getuid():
		return fmt.Errorf("%s belongs to another user", dir)
	case fi.Mode().Perm()&0o077 != 0:
		return fmt.Errorf("%s is open to other users (mode %v): chmod 700 %s", dir, fi.Mode().Perm(), dir)
	}
	return nil
}

// bootTurn waits for a free boot slot and returns what frees it.
func bootTurn(ctx context.Context) (release func(), err error) {
	for {
		for i := 0; i < bootSlots; i++ {
			dir, err := lockDir()
			if err != nil {
				return nil, fmt.Errorf("boot slot: %w", err)
			}
			f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("cnpa-testcluster-boot-%d.lock", i)), os.O_CREATE|os.O_RDWR|syscall.O_NOFOLLOW, 0o600)
			if err != nil {
				return nil, fmt.Errorf("boot slot: %w", err)
			}
			if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err == nil {
				return func() { f.Close() }, nil
			}
			f.Close()
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("waiting for a turn to boot a control plane: %w", ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// Start boots the datastore, kube-apiserver and kube-controller-manager and
// returns once /readyz answers and the controller-manager has done real work
// (the default ServiceAccount exists). On error everything started is stopped.
// At most bootSlots control planes boot at a time on the machine; the
// others wait their turn.
func Start(ctx context.Context, opts Options) (_ *Cluster, err error) {
	datastore, err := ParseDatastore(opts.Datastore)
	if err != nil {
		return nil, err
	}
	kb, err := KubeboxPath()
	if err != nil {
		return nil, err
	}
	release, err := bootTurn(ctx)
	if err != nil {
		return nil, err
	}
	defer release()
	c := &Cluster{Dir: opts.Dir, Datastore: datastore, kubebox: kb, durable: opts.Durable, procs: map[string]*proc{}}
	if c.Dir == "" {
		if c.Dir, err = os.MkdirTemp("", "cnpa-cluster-"); err != nil {
			return nil, err
		}
		c.ownedDir = true
	}
	defer func() {
		if err != nil {
			c.Stop()
		}
	}()
	if err = c.prepare(opts.Users); err != nil {
		return nil, err
	}
	ports, err := FreePorts(1)
	if err != nil {
		return nil, err
	}
	c.apiPort = ports[0]
	c.Server = "https://127.0.0.1:" + strconv.Itoa(c.apiPort)

	var storage []string
	switch c.Datastore {
	case DatastoreEtcd:
		// etcd has no authentication here: on loopback TCP every local
		// user could read and write /registry, cluster-admin. Its client
		// and peer sockets are unix sockets in a 0700 dir (as kine's is):
		// only this user reaches them. The peer socket's name is relative
		// (etcd's unix://NAME form), to etcd's working dir, that same dir.
		sockDir := filepath.Join(c.Dir, "run")
		if err = privateDir(sockDir); err != nil {
			return nil, err
		}
		etcdURL := "unix://" + filepath.Join(sockDir, "etcd.sock")
		if err = c.startIn(sockDir, "etcd", "etcd", "--data-dir", filepath.Join(c.Dir, "etcd"),
			"--client-url", etcdURL, "--peer-url", "unix://etcd-peer.sock"); err != nil {
			return nil, err
		}
		storage = []string{"--etcd-servers=" + etcdURL}
	case DatastoreKine:
		// kubebox starts kine in the kube-apiserver process and points
		// --etcd-servers at this socket; k3s uses unix://kine.sock in its
		// server dir.
		storage = []string{
			"--kine-endpoint=sqlite://" + filepath.Join(c.Dir, "kine", "state.db") + kineSQLiteParams,
			"--kine-listen=unix://" + filepath.Join(c.Dir, "kine.sock"),
		}
	}
	c.apiServerArgs = append(storage, c.apiServerArgsBase()...)
	if opts.Audit || len(opts.AuditAllOf) > 0 {
		flags, err := c.auditFlags(opts.AuditAllOf)
		if err != nil {
			return nil, err
		}
		c.apiServerArgs = append(c.apiServerArgs, flags...)
	}
	c.apiServerArgs = append(c.apiServerArgs, opts.ExtraAPIServerFlags...)
	if err = c.StartAPIServer(ctx); err != nil {
		return nil, err
	}
	if err = c.writeKubeconfig(); err != nil {
		return nil, err
	}
	if err = c.start("kube-controller-manager", "kube-controller-manager",
		"--kubeconfig", c.Kubeconfig,
		"--authentication-kubeconfig", c.Kubeconfig,
		"--authorization-kubeconfig", c.Kubeconfig,
		"--bind-address=127.0.0.1", "--secure-port=0", "--leader-elect=false",
		"--service-account-private-key-file", filepath.Join(c.Dir, "sa.key"),
		"--root-ca-file", filepath.Join(c.Dir, "certs", "apiserver.crt"),
		"--controllers=*",
		// Fast resyncs keep GC and quota status prompt, as on a busy k3s.
		"--concurrent-gc-syncs=5",
	); err != nil {
		return nil, err
	}
	if err = c.waitControllerManager(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Cluster) prepare(users []string) error {
	for _, d := range []string{c.Datastore, "certs", "logs", "bin"} {
		if err := os.MkdirAll(filepath.Join(c.Dir, d), 0o700); err != nil {
			return err
		}
	}
	c.BinDir = filepath.Join(c.Dir, "bin")
	if err := os.Symlink(KubectlBeside(c.kubebox), filepath.Join(c.BinDir, "kubectl")); err != nil && !os.IsExist(err) {
		return err
	}
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return err
	}
	c.Token = fmt.Sprintf("%x", b)
	tokens := c.Token + ",admin,admin,system:masters\n"
	c.userTokens = map[string]string{}
	for _, u := range users {
		if _, err := rand.Read(b); err != nil {
			return err
		}
		c.userTokens[u] = fmt.Sprintf("%x", b)
		tokens += c.userTokens[u] + "," + u + "," + u + ",system:masters\n"
	}
	if err := os.WriteFile(filepath.Join(c.Dir, "tokens.csv"), []byte(tokens), 0o600); err != nil {
		return err
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(c.Dir, "sa.key"),
		pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(c.Dir, "sa.pub"),
		pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o600)
}

func (c *Cluster) apiServerArgsBase() []string {
	return []string{
		"--bind-address=127.0.0.1",
		"--secure-port=" + strconv.Itoa(c.apiPort),
		"--cert-dir=" + filepath.Join(c.Dir, "certs"),
		"--token-auth-file=" + filepath.Join(c.Dir, "tokens.csv"),
		"--authorization-mode=RBAC",
		"--service-account-key-file=" + filepath.Join(c.Dir, "sa.pub"),
		"--service-account-signing-key-file=" + filepath.Join(c.Dir, "sa.key"),
		"--service-account-issuer=https://kubernetes.default.svc",
		"--service-cluster-ip-range=10.96.0.0/16",
		"--advertise-address=127.0.0.1",
		// Loopback cannot be published as the kubernetes Service endpoint; no
		// pod ever needs it here.
		"--endpoint-reconciler-type=none",
	}
}

// StartAPIServer starts kube-apiserver (again, after StopAPIServer; on
// DatastoreKine with kine) and waits for /readyz.
func (c *Cluster) StartAPIServer(ctx context.Context) error {
	if err := c.start("kube-apiserver", "kube-apiserver", c.apiServerArgs...); err != nil {
		return err
	}
	return c.waitReady(ctx)
}

// StopAPIServer stops kube-apiserver, for fault tests. The controller-manager
// keeps running, and so does etcd; kine, like k3s's, lives in the API
// server's process and stops with it.
func (c *Cluster) StopAPIServer() { c.stop("kube-apiserver") }

// Stop stops every component and removes a temporary state directory.
// It is safe to call more than once.
func (c *Cluster) Stop() {
	for _, name := range []string{"kube-controller-manager", "kube-apiserver", "etcd"} {
		c.stop(name)
	}
	if c.ownedDir && os.Getenv("CNPA_KEEP_CLUSTER") == "" {
		os.RemoveAll(c.Dir)
	}
}

// Env returns os.Environ with KUBECONFIG set to the cluster and the kubebox
// kubectl first on PATH.
func (c *Cluster) Env() []string {
	env := []string{"KUBECONFIG=" + c.Kubeconfig, "PATH=" + c.BinDir + string(os.PathListSeparator) + os.Getenv("PATH")}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KUBECONFIG=") && !strings.HasPrefix(kv, "PATH=") {
			env = append(env, kv)
		}
	}
	return env
}

// Kubectl is the path of the kubebox kubectl (v1.37.2). exec.Command looks
// names up in the test process's PATH, not in Env, so use this path.
func (c *Cluster) Kubectl() string { return filepath.Join(c.BinDir, "kubectl") }

// Log returns what a component printed so far, for failure messages.
func (c *Cluster) Log(component string) string {
	b, _ := os.ReadFile(filepath.Join(c.Dir, "logs", component+".log"))
	return string(b)
}

func (c *Cluster) start(name, component string, args ...string) error {
	return c.startIn("", name, component, args...)
}

// startIn is start with the component's working directory dir ("" for
// this process's).
func (c *Cluster) startIn(dir, name, component string, args ...string) error {
	logf, err := os.OpenFile(filepath.Join(c.Dir, "logs", name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(c.kubebox, append([]string{component}, args...)...)
	cmd.Dir = dir
	if !c.durable {
		env, extra := lean(component)
		cmd.Env = append(os.Environ(), env...)
		cmd.Args = append(cmd.Args, extra...)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// The child dies with us even when a test binary panics or is killed:
	// no orphan control plane survives a test run.
	if err := tether.Start(cmd, syscall.SIGKILL); err != nil {
		logf.Close()
		return fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); logf.Close(); close(p.done) }()
	c.mu.Lock()
	c.procs[name] = p
	c.mu.Unlock()
	return nil
}

func (c *Cluster) stop(name string) {
	c.mu.Lock()
	p := c.procs[name]
	delete(c.procs, name)
	c.mu.Unlock()
	if p == nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
}

// readyWait bounds each wait for a component to be ready. On a quiet
// machine a control plane is up in 5-7 s; a brand-new 2-core CI machine
// running make test's four packages at once once took over 90 s.
const readyWait = 3 * time.Minute

// verifiedClient is an HTTP client that verifies the API server with
// the certificate it wrote in its --cert-dir, nil until it has written it:
// the token is never sent to whoever may hold the port before the API
// server binds it.
func (c *Cluster) verifiedClient() *http.Client {
	ca, err := os.ReadFile(filepath.Join(c.Dir, "certs", "apiserver.crt"))
	pool := x509.NewCertPool()
	if err != nil || !pool.AppendCertsFromPEM(ca) {
		return nil
	}
	return &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
}

func (c *Cluster) waitReady(ctx context.Context) error {
	deadline := time.Now().Add(readyWait)
	var last string
	for time.Now().Before(deadline) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if c.exited("kube-apiserver") {
			return fmt.Errorf("kube-apiserver exited:\n%s", ui.Tail(c.Log("kube-apiserver"), 30))
		}
		client := c.verifiedClient()
		if client == nil {
			last = "no certificate in " + filepath.Join(c.Dir, "certs") + " yet"
			time.Sleep(200 * time.Millisecond)
			continue
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.Server+"/readyz", nil)
		req.Header.Set("Authorization", "Bearer "+c.Token)
		resp, err := client.Do(req)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = fmt.Sprintf("HTTP %d: %s", resp.StatusCode, ui.Tail(string(body), 5))
		} else {
			last = err.Error()
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("kube-apiserver /readyz not ok after %s (last: %s)\n%s", readyWait, last, ui.Tail(c.Log("kube-apiserver"), 30))
}

// waitControllerManager waits for proof that kube-controller-manager works:
// its serviceaccount controller creates the `default` ServiceAccount.
func (c *Cluster) waitControllerManager(ctx context.Context) error {
	client := c.verifiedClient()
	if client == nil {
		return fmt.Errorf("no API server certificate in %s", filepath.Join(c.Dir, "certs"))
	}
	deadline := time.Now().Add(readyWait)
	for time.Now().Before(deadline) {
		if err := ctx.Err(); err != nil {
			return err
		}
		if c.exited("kube-controller-manager") {
			return fmt.Errorf("kube-controller-manager exited:\n%s", ui.Tail(c.Log("kube-controller-manager"), 30))
		}
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.Server+"/api/v1/namespaces/default/serviceaccounts/default", nil)
		req.Header.Set("Authorization", "Bearer "+c.Token)
		if resp, err := client.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("kube-controller-manager did not create the default ServiceAccount within %s\n%s", readyWait, ui.Tail(c.Log("kube-controller-manager"), 30))
}

func (c *Cluster) exited(name string) bool {
	c.mu.Lock()
	p := c.procs[name]
	c.mu.Unlock()
	if p == nil {
		return true
	}
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

func (c *Cluster) writeKubeconfig() error {
	c.Kubeconfig = filepath.Join(c.Dir, "kubeconfig")
	return os.WriteFile(c.Kubeconfig, []byte(c.kubeconfigFor(c.Token)), 0o600)
}

// kubeconfigFor is a kubeconfig for token that verifies the API server
// with the self-signed certificate it wrote in its --cert-dir: the port
// is freed (FreePorts) before the API server binds it, and whoever bound
// it first would get the token from a kubeconfig that skips
// verification. Before the API server has written it, KubeconfigFor.
func (c *Cluster) kubeconfigFor(token string) string {
	ca, err := os.ReadFile(filepath.Join(c.Dir, "certs", "apiserver.crt"))
	if err != nil {
		return KubeconfigFor(c.Server, token)
	}
	return strings.Replace(KubeconfigFor(c.Server, token), "    insecure-skip-tls-verify: true\n",
		"    certificate-authority-data: "+base64.StdEncoding.EncodeToString(ca)+"\n", 1)
}

// UserKubeconfig writes a kubeconfig for one of Options.Users and returns
// its path.
func (c *Cluster) UserKubeconfig(user string) (string, error) {
	token, ok := c.userTokens[user]
	if !ok {
		return "", fmt.Errorf("no user %q: name it in Options.Users", user)
	}
	p := filepath.Join(c.Dir, "kubeconfig-"+user)
	return p, os.WriteFile(p, []byte(c.kubeconfigFor(token)), 0o600)
}

// KubeconfigFor renders a kubeconfig for a bearer token against server. The
// API server's certificate is self-signed, so TLS verification is skipped.
func KubeconfigFor(server, token string) string {
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: kubebox
  cluster:
    server: %s
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    token: %s
contexts:
- name: kubebox
  context:
    cluster: kubebox
    user: admin
current-context: kubebox
`, server, token)
}

// FreePorts returns n distinct loopback ports that were free a moment ago.
func FreePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

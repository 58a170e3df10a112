package stress

import (
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/labhub/cnpa/internal/stress"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/osuser"
)

// asOther runs script with sh as osuser's second local user and returns
// what it printed and its error (a refusal is what these tests want).
func asOther(t *testing.T, script string) (string, error) {
	t.Helper()
	uid, gid := osuser.Ensure(t)
	cmd := exec.Command("setpriv", "--reuid="+strconv.Itoa(uid), "--regid="+strconv.Itoa(gid), "--clear-groups", "--", "sh", "-c", script)
	cmd.Dir = "/"
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent"}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// otherKubectl is a copy of the cluster's kubectl that the second user
// may run (the cluster's own lies in a 0700 temp dir).
func otherKubectl(t *testing.T, lab *kit.Lab) string {
	data, err := os.ReadFile(lab.Cluster.Kubectl())
	if err != nil {
		t.Error(err)
		return "kubectl"
	}
	dir, err := os.MkdirTemp("", "cnpa-test-kubectl-")
	if err == nil {
		err = os.Chmod(dir, 0o755)
	}
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "kubectl"), data, 0o755)
	}
	if err != nil {
		t.Error(err)
		return "kubectl"
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "kubectl")
}

// proxyKubeconfig is the kubeconfig of a stress run under way in lab's
// evidence dir, once it is there (within d).
func proxyKubeconfig(lab *kit.Lab, d time.Duration) string {
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if m, _ := filepath.Glob(filepath.Join(lab.Dir, ".cnpa", "cnpa-stress-*", "kubeconfig")); len(m) == 1 {
			return m[0]
		}
	}
	return ""
}

// private is R4-1 while a stress run is under way: its proxy's kubeconfig
// is 0600 in a 0700 directory, root's, not in /tmp; the second local user
// can neither read it nor list its directory, and the proxy refuses that
// user's requests without the token or with a guessed one (401
// Unauthorized: the request reached the proxy and was refused, not a
// connection error; kubectl, given no token at all, answers the 401 by
// asking for a username), over TLS only. It returns the run's token, which
// the caller looks for in the logs afterwards.
func private(t *testing.T, lab *kit.Lab) (token string) {
	kc := proxyKubeconfig(lab, 3*time.Minute)
	if kc == "" {
		t.Errorf("no proxy kubeconfig in %s/.cnpa while cnpa stress runs", lab.Dir)
		return ""
	}
	for path, want := range map[string]os.FileMode{kc: 0o600, filepath.Dir(kc): 0o700 | os.ModeDir} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Errorf("stat %s: %v", path, err)
			continue
		}
		if fi.Mode() != want || fi.Sys().(*syscall.Stat_t).Uid != uint32(os.Geteuid()) {
			t.Errorf("%s: %v owned by %d, want %v owned by the service's user %d", path, fi.Mode(), fi.Sys().(*syscall.Stat_t).Uid, want, os.Geteuid())
		}
	}
	if strings.HasPrefix(kc, "/tmp/cnpa-stress") || strings.HasPrefix(kc, os.TempDir()+"/cnpa-stress") {
		t.Errorf("the proxy's kubeconfig is %s: in the shared temp dir, where anyone can create a name", kc)
	}
	cfg, err := clientcmd.LoadFromFile(kc)
	if err != nil {
		t.Errorf("the proxy's kubeconfig: %v", err)
		return ""
	}
	ctx := cfg.Contexts[cfg.CurrentContext]
	server, token := cfg.Clusters[ctx.Cluster].Server, cfg.AuthInfos[ctx.AuthInfo].Token
	if !strings.HasPrefix(server, "https://127.0.0.1:") || token == "" || strings.Contains(server, token) {
		t.Errorf("the proxy's kubeconfig: server %q, a token %t: want https on loopback, the token apart from the URL", server, token != "")
	}
	if out, err := asOther(t, "cat "+kc); err == nil || strings.Contains(out, token) {
		t.Errorf("%s read the proxy's kubeconfig: %v\n%s", osuser.Name, err, out)
	}
	if out, err := asOther(t, "ls "+filepath.Dir(kc)); err == nil {
		t.Errorf("%s listed the proxy's kubeconfig's dir: %s", osuser.Name, out)
	}
	kubectl := otherKubectl(t, lab)
	for _, guess := range []string{"", "--token=" + strings.Repeat("0", len(token)), "--token=" + token[:len(token)-1]} {
		out, err := asOther(t, kubectl+" --kubeconfig=/dev/null --server="+server+" --insecure-skip-tls-verify "+guess+" get --raw /apis/platform.labhub.io/v1alpha1/teamspaces")
		// 401 Unauthorized; without any token kubectl answers a 401 by
		// asking for a username (basic auth), which stdin's EOF ends.
		if err == nil || !strings.Contains(out, "Unauthorized") && !strings.Contains(out, "Please enter Username") {
			t.Errorf("%s through the proxy with %q: %v, want refused as Unauthorized\n%s", osuser.Name, guess, err, out)
		}
	}
	if out, err := asOther(t, kubectl+" --kubeconfig=/dev/null --server="+strings.Replace(server, "https:", "http:", 1)+" get --raw /version"); err == nil {
		t.Errorf("%s reached the proxy over plain HTTP:\n%s", osuser.Name, out)
	}
	return token
}

// tokenNowhere: the run's token is in no log or file it leaves (the
// service's log, which the Go engine writes its start line to, and
// stress.json, which a submission carries).
func tokenNowhere(t *testing.T, lab *kit.Lab, token string) {
	if token == "" {
		return
	}
	for _, f := range []string{filepath.Join(lab.Dir, "cnpa-op.log"), filepath.Join(lab.Dir, ".cnpa", "stress.json")} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if strings.Contains(string(data), token) {
			t.Errorf("%s holds the proxy's token", f)
		}
	}
	if m, _ := filepath.Glob(filepath.Join(lab.Dir, ".cnpa", "cnpa-stress-*")); len(m) > 0 {
		t.Errorf("the run's kubeconfig dirs are left: %v", m)
	}
}

// dropIn is where process mode's stress drop-in is.
func dropIn(lab *kit.Lab) string {
	return filepath.Join(lab.UnitDir, "cnpa-op.service.d", "50-cnpa-stress.conf")
}

// serviceEnv is the running service's environment.
func serviceEnv(t *testing.T, lab *kit.Lab) map[string]string {
	t.Helper()
	pid, err := os.ReadFile(filepath.Join(lab.Dir, "cnpa-op.pid"))
	if err != nil {
		t.Fatal(err)
	}
	environ, err := os.ReadFile(filepath.Join("/proc", strings.TrimSpace(string(pid)), "environ"))
	if err != nil {
		t.Fatal(err)
	}
	env := map[string]string{}
	for _, kv := range strings.Split(string(environ), "\x00") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	return env
}

// killed is R4-2: cnpa stress killed with SIGKILL mid-run (no cleanup at
// all) leaves its drop-in, but nothing another user can take over: the
// kubeconfig it names lies where that user cannot create a name, even
// once it is gone; a server that takes the proxy's port gets no request
// (the service's client pins the proxy's own certificate); and every
// command that looks at the service (service status, doctor, check,
// step) says so, removes the drop-in and restarts the service on its own
// kubeconfig. It returns the leftover's bytes, for the next stress run.
func killed(t *testing.T, lab *kit.Lab) []byte {
	cmd := exec.Command(lab.Bin, "--kubeconfig", lab.Cluster.Kubeconfig, "--dir", lab.Dir, "--no-color",
		"stress", "--faults", "latency", "--unit-dir", lab.UnitDir, "--service-manager", "process")
	cmd.Env = lab.Cluster.Env()
	var out lockedOutput
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(2 * time.Minute); !strings.Contains(out.String(), "fault latency"); time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("cnpa stress did not reach its fault in 2m:\n%s", out.String())
		}
	}
	cmd.Process.Kill() // kill -9: no cleanup runs
	cmd.Wait()
	t.Cleanup(func() { dropTemps(t, lab) })
	leftover, err := os.ReadFile(dropIn(lab))
	if err != nil {
		t.Fatalf("no drop-in after kill -9 (so nothing to repair here): %v", err)
	}
	var kc string
	for _, l := range strings.Split(string(leftover), "\n") {
		if _, v, ok := strings.Cut(strings.Trim(l, `"`), stress.KubeconfigVar+"="); ok {
			kc = strings.TrimSuffix(v, `"`)
		}
	}
	if kc == "" {
		t.Fatalf("the drop-in names no %s:\n%s", stress.KubeconfigVar, leftover)
	}
	cfg, err := clientcmd.LoadFromFile(kc)
	if err != nil {
		t.Fatal(err)
	}
	server := cfg.Clusters[cfg.Contexts[cfg.CurrentContext].Cluster].Server
	// A squatter on the dead proxy's port: a TLS server with a
	// certificate of its own. The service keeps trying the port; it must
	// never send a request (its token) to anyone but the proxy.
	var conns, requests atomic.Int64
	sq := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		if a := r.Header.Get("Authorization"); a != "" {
			t.Errorf("the squatter on %s got an Authorization header", server)
		}
	}))
	ln, err := net.Listen("tcp", strings.TrimPrefix(server, "https://"))
	if err != nil {
		t.Fatalf("take the dead proxy's port %s: %v", server, err)
	}
	sq.Listener = ln
	sq.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	sq.TLS = &tls.Config{}
	sq.StartTLS()
	for deadline := time.Now().Add(20 * time.Second); conns.Load() < 2 && time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
	}
	sq.Close()
	if conns.Load() == 0 {
		t.Errorf("the service never tried the dead proxy's port %s in 20 s: nothing proved", server)
	}
	if requests.Load() > 0 {
		t.Errorf("the squatter on %s was sent %d requests: the service took it for the proxy", server, requests.Load())
	}
	// The kubeconfig's directory gone (a reboot, a cleaner): no one else
	// can create it again.
	if err := os.RemoveAll(filepath.Dir(kc)); err != nil {
		t.Fatal(err)
	}
	if out, err := asOther(t, "mkdir -p "+filepath.Dir(kc)+" && echo made"); err == nil {
		t.Errorf("%s created %s, which the leftover drop-in names:\n%s", osuser.Name, filepath.Dir(kc), out)
	}

	svc := []string{"--unit-dir", lab.UnitDir, "--service-manager", "process"}
	for i, args := range [][]string{
		append([]string{"service", "status"}, svc...),
		{"doctor"},
		append([]string{"check", "--step", "1"}, svc...),
		append([]string{"step", "1"}, svc...),
	} {
		if i > 0 {
			if err := os.MkdirAll(filepath.Dir(dropIn(lab)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dropIn(lab), leftover, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		r := lab.Cnpa(args...)
		if !strings.Contains(r.Output, "ended without its cleanup") || !strings.Contains(r.Output, dropIn(lab)) {
			t.Errorf("cnpa %s with a leftover drop-in does not say so:\n%s", strings.Join(args, " "), r)
		}
		if _, err := os.Stat(dropIn(lab)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("cnpa %s left the drop-in (stat: %v)", strings.Join(args, " "), err)
		}
		if env := serviceEnv(t, lab); env[stress.KubeconfigVar] != "" || strings.Contains(env["KUBECONFIG"], "cnpa-stress-") {
			t.Errorf("after cnpa %s the service still runs on the proxy's kubeconfig: KUBECONFIG=%s %s=%s", strings.Join(args, " "), env["KUBECONFIG"], stress.KubeconfigVar, env[stress.KubeconfigVar])
		}
	}
	return leftover
}

// dropTemps removes the TeamSpaces a killed stress run left (one holds a
// foreign finalizer, which only the run would have dropped).
func dropTemps(t *testing.T, lab *kit.Lab) {
	kubectl := []string{"--kubeconfig", lab.Cluster.Kubeconfig}
	r := lab.Run(nil, lab.Cluster.Kubectl(), append(kubectl, "get", "teamspaces", "-o", "name")...)
	for _, n := range strings.Fields(r.Stdout) {
		if strings.Contains(n, "cnpa-check-") {
			lab.Run(nil, lab.Cluster.Kubectl(), append(kubectl, "patch", n, "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)...)
			lab.Run(nil, lab.Cluster.Kubectl(), append(kubectl, "delete", n, "--wait=false")...)
		}
	}
}

// neverConverges: a learner's edge-triggered loop that serves updates
// only (a TeamSpace never edited is never served) does not converge even
// without faults. cnpa stress fails (exit 1) with a verdict that says so
// and why, each fault not run; it also notices the drop-in a killed run
// left (leftover), and puts the service back before it starts.
func neverConverges(t *testing.T, lab *kit.Lab, leftover []byte) {
	data, err := os.ReadFile(filepath.Join("testdata", "updates-only.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(lab.Dir, "reconcile.sh"), data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(dropIn(lab)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dropIn(lab), leftover, 0o644); err != nil {
		t.Fatal(err)
	}
	r := lab.Cnpa("stress", "--faults", "conflict,error", "--bound", "10s", "--unit-dir", lab.UnitDir, "--service-manager", "process")
	t.Logf("cnpa stress on a controller that never converges:\n%s", r)
	if r.Code != 1 {
		t.Errorf("cnpa stress: exit %d, want 1 (a failure)", r.Code)
	}
	for _, want := range []string{"ended without its cleanup", "never converged in the quiet baseline", "✗ baseline", "not run: the controller never converged"} {
		if !strings.Contains(r.Output, want) {
			t.Errorf("cnpa stress does not say %q", want)
		}
	}
	if _, err := os.Stat(dropIn(lab)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the drop-in is there after the run (stat: %v)", err)
	}
}

// cnpa controller reads the kubeconfig a stress drop-in names as data
// only (R4-2): a command to run, a file to read, another server or TLS
// unverified, or a file another user may write, is refused with a line
// that names it and the fix (exit 2), and nothing it names is run.
func TestStressKubeconfigRefused(t *testing.T) {
	bin := kit.CnpaBinary(t)
	dir := t.TempDir()
	marker := filepath.Join(dir, "exec-ran")
	const ca = "certificate-authority-data: " + "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJrVENDQVRlZ0F3SUJBZ0lJCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K"
	write := func(name, cluster, user string) string {
		p := filepath.Join(dir, name)
		doc := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n" + cluster +
			"users:\n- name: u\n  user:\n" + user +
			"contexts:\n- name: x\n  context: {cluster: c, user: u}\ncurrent-context: x\n"
		if err := os.WriteFile(p, []byte(doc), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := "    server: https://127.0.0.1:1\n    " + ca + "\n"
	cases := []struct{ name, path, want string }{
		{"exec", write("exec", good, "    token: t\n    exec:\n      apiVersion: client.authentication.k8s.io/v1\n      command: /bin/sh\n      args: [-c, \"touch "+marker+"\"]\n      interactiveMode: Never\n"), "exec"},
		{"tokenFile", write("tokenfile", good, "    tokenFile: /etc/shadow\n"), "tokenFile"},
		{"client-certificate", write("cert", good, "    token: t\n    client-certificate: /etc/ssl/x.pem\n    client-key: /etc/ssl/x.key\n"), "client-certificate"},
		{"auth-provider", write("authprovider", good, "    token: t\n    auth-provider: {name: oidc, config: {}}\n"), "auth-provider"},
		{"certificate-authority", write("cafile", "    server: https://127.0.0.1:1\n    certificate-authority: /etc/ssl/ca.pem\n", "    token: t\n"), "certificate-authority"},
		{"insecure", write("insecure", "    server: https://127.0.0.1:1\n    insecure-skip-tls-verify: true\n", "    token: t\n"), "insecure-skip-tls-verify"},
		{"another host", write("host", "    server: https://10.0.0.1:6443\n    "+ca+"\n", "    token: t\n"), "https://10.0.0.1:6443"},
		{"plain http", write("http", "    server: http://127.0.0.1:1\n", "    token: t\n"), "http://127.0.0.1:1"},
		{"no token", write("notoken", good, "    {}\n"), "token"},
	}
	if os.Geteuid() == 0 {
		uid, gid := osuser.Ensure(t)
		theirs := filepath.Join(dir, "theirs")
		if err := os.Mkdir(theirs, 0o755); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(theirs, "kubeconfig")
		if err := os.Rename(write("theirs.tmp", good, "    token: t\n"), p); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(theirs, uid, gid); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct{ name, path, want string }{"another user's dir", p, theirs})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(bin, "controller", "--once", "--archive-dir", t.TempDir())
			cmd.Env = append(os.Environ(), stress.KubeconfigVar+"="+c.path)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 2 {
				t.Errorf("cnpa controller: %v, want exit 2\n%s", err, out)
			}
			for _, want := range []string{stress.KubeconfigVar + "=" + c.path, c.want, "cnpa doctor"} {
				if !strings.Contains(string(out), want) {
					t.Errorf("cnpa controller's refusal does not name %q:\n%s", want, out)
				}
			}
		})
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("cnpa controller ran the exec plugin of a stress kubeconfig")
	}
}

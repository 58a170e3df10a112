package lab

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
	"github.com/labhub/cnpa/test/labassert"
)

// deadServer is an address nothing answers on.
const deadServer = "https://127.0.0.1:1"

// TestContextAndOddPaths runs the whole lab and `cnpa check` with
// `--context good` against a kubeconfig whose current-context is a dead
// server, with the evidence dir and the kubeconfig on paths built to break
// quoting (kit.OddDir: a space, `%`, `$(touch …)`, `}`, a quote). The
// shell engine runs reconcile.sh's kubectl and jq; the Go engine cnpa
// controller; the own engine a learner's script that knows nothing of
// contexts (it must follow KUBECONFIG, which cnpa sets); all as a
// process-mode service. Anything cnpa writes or
// starts that lost the context would talk to the dead server; anything
// that lost the quoting would fail or run the embedded touch. The engines
// run one after the other on one control plane, with `cnpa reset` between.
func TestContextAndOddPaths(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	cl, err := cluster.Start(ctx, cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Stop)
	base := t.TempDir()

	kcDir, kcMarker := kit.OddDir(filepath.Join(base, "kube"))
	kubeconfig := filepath.Join(kcDir, "two contexts")
	writeTwoContexts(t, cl.Kubeconfig, kubeconfig)
	// The environment's KUBECONFIG is the same file: whatever falls back
	// on it without the context meets the dead server too.
	env := []string{"KUBECONFIG=" + kubeconfig}
	for _, kv := range cl.Env() {
		if !strings.HasPrefix(kv, "KUBECONFIG=") {
			env = append(env, kv)
		}
	}

	for _, engine := range []string{"go", "shell", "own"} {
		t.Run(engine, func(t *testing.T) {
			dir, marker := kit.OddDir(filepath.Join(base, engine))
			if engine == "own" {
				writeOwnScript(t, dir)
			}
			unitDir := filepath.Join(base, engine+"-systemd")
			cnpaIn := func(ctx context.Context, args ...string) ([]byte, error) {
				cmd := exec.CommandContext(ctx, cnpaBin, append([]string{"--kubeconfig", kubeconfig, "--context", "good", "--dir", dir, "--no-color"}, args...)...)
				cmd.Env = env
				var out bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &out
				err := cmd.Run()
				return out.Bytes(), err
			}
			cnpa := func(args ...string) ([]byte, error) { return cnpaIn(ctx, args...) }
			// The next engine starts on a clean cluster, whatever this one
			// left (reset stops the service too).
			t.Cleanup(func() {
				if out, err := cnpaIn(context.Background(), "reset", "--yes"); err != nil {
					t.Errorf("cnpa reset --yes: %v\n%s", err, out)
				}
			})

			start := time.Now()
			out, err := cnpa("step", "all", "--engine", engine, "--service-manager", "process", "--unit-dir", unitDir)
			t.Logf("cnpa --context good step all (%s engine) took %s", engine, time.Since(start).Round(time.Millisecond))
			if err != nil {
				logs, _ := cnpa("service", "logs", "-n", "40")
				t.Fatalf("cnpa --context good step all: %v\n%s\nservice log:\n%s", err, out, logs)
			}
			if engine == "own" && !bytes.Contains(out, []byte(`sets current-context "good"`)) {
				t.Errorf("step 3 (own engine) does not say how the learner's script gets the context:\n%s", out)
			}
			if bytes.Contains(out, []byte(deadServer)) {
				t.Errorf("step all mentions the dead server %s:\n%s", deadServer, out)
			}
			labassert.Lab(ctx, t, cl.Kubeconfig, dir)

			start = time.Now()
			if out, err := cnpa("check", "--timeout", "90s"); err != nil {
				t.Errorf("cnpa --context good check: %v\n%s", err, out)
			} else {
				t.Logf("cnpa check passed in %s", time.Since(start).Round(time.Millisecond))
			}
			if logs, err := os.ReadFile(filepath.Join(dir, "cnpa-op.log")); err != nil {
				t.Errorf("the service's log: %v", err)
			} else if bytes.Contains(logs, []byte("127.0.0.1:1")) {
				t.Errorf("the service talked to the dead server:\n%s", logs)
			}
			kit.NoMarker(t, marker)
		})
	}
	kit.NoMarker(t, kcMarker)
}

// writeTwoContexts writes to path a copy of the kubeconfig at from with
// two contexts: good (the cluster of from) and dead (deadServer), the
// current one.
func writeTwoContexts(t *testing.T, from, path string) {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(from)
	if err != nil {
		t.Fatal(err)
	}
	good := cfg.Contexts[cfg.CurrentContext]
	if good == nil {
		t.Fatalf("%s has no current context", from)
	}
	cfg.Contexts = map[string]*clientcmdapi.Context{
		"good": good,
		"dead": {Cluster: "dead", AuthInfo: good.AuthInfo},
	}
	cfg.Clusters["dead"] = &clientcmdapi.Cluster{Server: deadServer, InsecureSkipTLSVerify: true}
	cfg.CurrentContext = "dead"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
}

// writeOwnScript writes a learner's reconcile.sh into dir: cnpa's kubectl
// and jq reference as it ships (no context, no kubeconfig pinned), run
// with the finalizer on and the archive beside the script, as LAB.md step
// 6 asks. Only KUBECONFIG, which cnpa sets, can point its kubectl at the
// context.
func writeOwnScript(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "reference.sh"), assets.ReconcileScript, 0o644); err != nil {
		t.Fatal(err)
	}
	const script = `#!/usr/bin/env bash
here=$(cd "$(dirname "$0")" && pwd)
CNPA_FINALIZER=true CNPA_ARCHIVE_DIR="$here/archive" exec bash "$here/reference.sh"
`
	if err := os.WriteFile(filepath.Join(dir, "reconcile.sh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

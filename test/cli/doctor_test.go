package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/doctor"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// TestDoctorSkewAndNothingCreated runs `cnpa doctor` against the real
// API server (v1.37.2) with two real kubectls first on PATH: kubebox's
// own v1.37.2, within kubectl's ±1 skew, and the machine's, when it has
// one more than a minor version away. Doctor warns about the second only,
// and creates no evidence dir either way.
func TestDoctorSkewAndNothingCreated(t *testing.T) {
	c := cluster.Shared(t)
	bin := kit.CnpaBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	serverVersion := kubectlVersion(t, c.Kubectl(), "--kubeconfig", c.Kubeconfig)

	kubectls := map[string]string{"kubebox": c.Kubectl()}
	for _, p := range []string{"/usr/bin/kubectl", "/usr/local/bin/kubectl"} {
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			kubectls["machine"] = p
			break
		}
	}
	for name, kubectl := range kubectls {
		t.Run(name, func(t *testing.T) {
			client := kubectlVersion(t, kubectl, "--client")
			want := doctor.Skew(client, serverVersion)
			if name == "kubebox" && want != "" {
				t.Fatalf("kubebox's kubectl %s against its own server %s: want no skew, the policy says %q", client, serverVersion, want)
			}
			if name == "machine" && want == "" {
				t.Skipf("the machine's kubectl %s is within one minor of server %s: no skew to see", client, serverVersion)
			}
			pathDir := t.TempDir()
			if err := os.Symlink(kubectl, filepath.Join(pathDir, "kubectl")); err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(t.TempDir(), "lab", "cnpa-op")
			env := []string{"HOME=" + t.TempDir(), "NO_COLOR=1", "PATH=" + pathDir + ":" + os.Getenv("PATH")}
			code, stdout, stderr := run(ctx, t, bin, env, "--kubeconfig", c.Kubeconfig, "--dir", dir, "doctor", "-o", "json")
			var rep doctor.Report
			if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
				t.Fatalf("cnpa doctor -o json (exit %d) does not parse: %v\n%s%s", code, err, stdout, stderr)
			}
			var got *doctor.Result
			for i := range rep.Results {
				if rep.Results[i].Name == "kubectl" {
					got = &rep.Results[i]
				}
			}
			if got == nil || !got.OK {
				t.Fatalf("doctor's kubectl line: got %+v, want ok", got)
			}
			if got.Warning != want {
				t.Errorf("kubectl %s against server %s: doctor warns %q, want %q", client, serverVersion, got.Warning, want)
			}
			if want != "" {
				_, text, _ := run(ctx, t, bin, env, "--kubeconfig", c.Kubeconfig, "--dir", dir, "doctor")
				if !strings.Contains(text, "warn kubectl") || !strings.Contains(text, "skew") {
					t.Errorf("cnpa doctor shows no skew warning for kubectl %s against %s:\n%s", client, serverVersion, text)
				}
			}
			if _, err := os.Stat(filepath.Dir(dir)); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("cnpa doctor created %s (stat: %v), want nothing created", filepath.Dir(dir), err)
			}
		})
	}
}

// kubectlVersion is the gitVersion `kubectl version -o json` reports: the
// server's with a kubeconfig, the client's with --client.
func kubectlVersion(t *testing.T, kubectl string, args ...string) string {
	t.Helper()
	out, err := exec.Command(kubectl, append([]string{"version", "-o", "json"}, args...)...).Output()
	if err != nil {
		t.Fatalf("%s version %v: %v\n%s", kubectl, args, err, out)
	}
	var v struct {
		Client struct{ GitVersion string } `json:"clientVersion"`
		Server struct{ GitVersion string } `json:"serverVersion"`
	}
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("%s version: %v\n%s", kubectl, err, out)
	}
	if len(args) > 0 && args[0] == "--client" {
		return v.Client.GitVersion
	}
	return v.Server.GitVersion
}

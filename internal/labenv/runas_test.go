package labenv

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/service"
)

// The learner's script is graded under the identity it runs under: once
// step 4 has written the service's kubeconfig under the own identity, step
// 3 and `cnpa check` run it as process mode runs the service (the user
// running cnpa, the unit's environment with that kubeconfig), and say
// whom as, Unix user and Kubernetes user; before, or under the admin
// identity, with the learner's kubeconfig. (Under systemd, as cnpa-op in
// the unit's sandbox: TestTransientRun, and test/system's own lab.)
func TestScriptRunsAsTheService(t *testing.T) {
	dir := t.TempDir()
	kc := filepath.Join(t.TempDir(), "admin.kubeconfig")
	for path, data := range map[string]string{
		kc:                             "admin",
		filepath.Join(dir, ScriptName): "#!/bin/sh\necho \"KUBECONFIG=$KUBECONFIG ARCHIVE=$CNPA_ARCHIVE_DIR PATH=$PATH\"\n",
	} {
		if err := os.WriteFile(path, []byte(data), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		identity   string
		credential bool
		kubeconfig string
		as         string
	}{
		{"own", false, kc, "as Unix user root with your kubeconfig"},
		{"own", true, filepath.Join(dir, CredentialFile), "as Unix user root and Kubernetes user system:serviceaccount:kube-system:cnpa-controller (cnpa-op.kubeconfig), as cnpa-op.service runs it in process mode"},
		{"admin", true, kc, "as Unix user root with your kubeconfig"},
	} {
		os.Remove(filepath.Join(dir, CredentialFile))
		if tc.credential {
			if err := os.WriteFile(filepath.Join(dir, CredentialFile), []byte("identity"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		mgr, err := service.New("process", t.TempDir(), dir)
		if err != nil {
			t.Fatal(err)
		}
		e := &Env{Dir: dir, Target: &kube.Target{Path: kc}, State: &State{ServiceIdentity: tc.identity}, Engine: EngineOwn, Service: mgr}
		out, as, err := e.RunScriptAsService(context.Background())
		if err != nil {
			t.Fatalf("%s identity, credential %v: %v\n%s", tc.identity, tc.credential, err, out)
		}
		if !strings.Contains(out, "KUBECONFIG="+tc.kubeconfig+" ") || !strings.HasPrefix(as, tc.as) {
			t.Errorf("%s identity, credential %v: ran with %q, said %q; want KUBECONFIG=%s and %q", tc.identity, tc.credential, out, as, tc.kubeconfig, tc.as)
		}
		// As the process-mode service: with the unit's PATH too.
		if tc.identity == "own" && tc.credential && !strings.Contains(out, "PATH="+toolPath()) {
			t.Errorf("own identity: ran with %q, want the unit's PATH=%s", out, toolPath())
		}
	}
}

// Step 3 shows the command it runs, so that a learner can replay it: under
// systemd with the own identity that is the systemd-run of the service's
// sandbox, not `KUBECONFIG=… reconcile.sh` (which runs as root, outside
// it). The shown line, read back by bash, is word for word the argv run.
// (Running it needs systemd: test/system's lab does, in nspawn.)
func TestShownScriptRunIsTheRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lab dir") // a space: the line must quote it
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	kc := filepath.Join(t.TempDir(), "admin.kubeconfig")
	for path, data := range map[string]string{
		kc:                                 "admin",
		filepath.Join(dir, ScriptName):     "#!/bin/sh\necho ran\n",
		filepath.Join(dir, CredentialFile): "identity",
	} {
		if err := os.WriteFile(path, []byte(data), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		manager, identity, prefix string
	}{
		{"systemd", "own", "systemd-run --quiet --wait --pipe --collect --service-type=exec --unit=cnpa-op-run-"},
		{"process", "own", "KUBECONFIG='" + filepath.Join(dir, CredentialFile) + "' CNPA_LOG_REQUESTS=1 '" + filepath.Join(dir, ScriptName) + "'"},
		{"systemd", "admin", "CNPA_LOG_REQUESTS=1 '" + filepath.Join(dir, ScriptName) + "'"},
	} {
		mgr, err := service.New(tc.manager, t.TempDir(), dir)
		if err != nil {
			t.Fatal(err)
		}
		e := &Env{Dir: dir, Target: &kube.Target{Path: kc}, State: &State{ServiceIdentity: tc.identity}, Engine: EngineShell, Service: mgr, CnpaPath: "/usr/local/bin/cnpa"}
		run, err := e.PrepareScriptRun(context.Background(), "CNPA_LOG_REQUESTS=1")
		if err != nil {
			t.Fatalf("%s, %s identity: %v", tc.manager, tc.identity, err)
		}
		if !strings.HasPrefix(run.Shown, tc.prefix) {
			t.Errorf("%s, %s identity: shown %q, want it to start with %q", tc.manager, tc.identity, run.Shown, tc.prefix)
		}
		if tc.manager != "systemd" || tc.identity != "own" {
			continue
		}
		// bash reads the shown line back into the very argv that runs.
		out, err := exec.Command("bash", "-c", `for w in `+run.Shown+`; do printf '%s\0' "$w"; done`).Output()
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
		if want := append([]string{"systemd-run"}, run.cmd.Args[1:]...); !slices.Equal(got, want) {
			t.Errorf("shown %q\nreads as %q\nwant the argv run %q", run.Shown, got, want)
		}
		if !strings.Contains(run.Shown, "--setenv=CNPA_LOG_REQUESTS=1") || !strings.HasSuffix(run.Shown, "-- '"+filepath.Join(dir, ScriptName)+"'") {
			t.Errorf("shown %q lacks the extra environment or the script", run.Shown)
		}
	}
}

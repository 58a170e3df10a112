package labenv

import (
	"context"
	"os"
	"path/filepath"
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

package labenv

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/kube"
)

// The learner's script is graded under the identity it runs under: once
// step 4 has written the service's kubeconfig under the own identity, step
// 3 and `cnpa check` run it with that kubeconfig, and say so; before, or
// under the admin identity, with the learner's.
func TestScriptRunsAsTheService(t *testing.T) {
	dir := t.TempDir()
	kc := filepath.Join(t.TempDir(), "admin.kubeconfig")
	for path, data := range map[string]string{
		kc:                             "admin",
		filepath.Join(dir, ScriptName): "#!/bin/sh\necho \"KUBECONFIG=$KUBECONFIG ARCHIVE=$CNPA_ARCHIVE_DIR\"\n",
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
		{"own", false, kc, "as root with your kubeconfig"},
		{"own", true, filepath.Join(dir, CredentialFile), "as the service's identity system:serviceaccount:kube-system:cnpa-controller"},
		{"admin", true, kc, "as root with your kubeconfig"},
	} {
		os.Remove(filepath.Join(dir, CredentialFile))
		if tc.credential {
			if err := os.WriteFile(filepath.Join(dir, CredentialFile), []byte("identity"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		e := &Env{Dir: dir, Target: &kube.Target{Path: kc}, State: &State{ServiceIdentity: tc.identity}}
		out, as, err := e.RunScriptAsService(context.Background())
		if err != nil {
			t.Fatalf("%s identity, credential %v: %v\n%s", tc.identity, tc.credential, err, out)
		}
		if !strings.Contains(out, "KUBECONFIG="+tc.kubeconfig+" ") || !strings.HasPrefix(as, tc.as) {
			t.Errorf("%s identity, credential %v: ran with %q, said %q; want KUBECONFIG=%s and %q", tc.identity, tc.credential, out, as, tc.kubeconfig, tc.as)
		}
	}
}

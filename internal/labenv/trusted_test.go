package labenv

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/safefs"
	"github.com/labhub/cnpa/test/kit/osuser"
)

// TestRootRunsNoScriptAnotherUserCanChange is the review's L3 with a real
// second user: root (step 3, cnpa check: RunScript) must not execute a
// reconcile.sh that another user owns, nor one in a dir group or others
// may write, nor read a kubeconfig from such a dir; each refusal names the
// part and the fix, and the script never ran (its marker file is absent).
// A dir and script of root's, 0755, run as before.
func TestRootRunsNoScriptAnotherUserCanChange(t *testing.T) {
	uid, gid := osuser.Ensure(t)
	cases := []struct {
		name    string
		prepare func(dir, script, kc string)
		fix     string
	}{
		{"script owned by another user", func(dir, script, kc string) { os.Chown(script, uid, gid) }, "chown root "},
		{"evidence dir writable by others", func(dir, script, kc string) { os.Chmod(dir, 0o777) }, "chmod go-w "},
		{"evidence dir owned by another user", func(dir, script, kc string) { os.Chown(dir, uid, gid) }, "chown root "},
		{"kubeconfig in the evidence dir owned by another user", func(dir, script, kc string) {
			os.Chown(kc, uid, gid)
		}, "chown root "},
		{"trusted", func(dir, script, kc string) {}, ""},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			base := t.TempDir()
			os.Chmod(base, 0o755)
			dir, kcDir := filepath.Join(base, "cnpa-op"), filepath.Join(base, "kube")
			for _, d := range []string{dir, kcDir} {
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			kc := filepath.Join(kcDir, "config")
			if strings.HasPrefix(tt.name, "kubeconfig in the evidence dir") {
				kc = filepath.Join(dir, "admin.kubeconfig")
			}
			os.WriteFile(kc, []byte("apiVersion: v1\nkind: Config\n"), 0o600)
			marker := filepath.Join(base, "ran")
			script := filepath.Join(dir, ScriptName)
			os.WriteFile(script, []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
			tt.prepare(dir, script, kc)
			e := &Env{Dir: dir, Target: &kube.Target{Path: kc}}
			_, err := e.RunScript(context.Background())
			_, ranErr := os.Stat(marker)
			if tt.fix == "" {
				if err != nil || ranErr != nil {
					t.Fatalf("a trusted script: RunScript %v, marker %v; want it run", err, ranErr)
				}
				return
			}
			var u *safefs.UntrustedError
			if !errors.As(err, &u) || !strings.Contains(err.Error(), tt.fix) {
				t.Errorf("RunScript: got %v, want a refusal naming the fix %q", err, tt.fix)
			}
			if ranErr == nil {
				t.Errorf("root ran %s although another user can change it", script)
			}
		})
	}
}

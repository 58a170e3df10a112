package lab

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// TestRBACAsUsed derives the requests cnpa's engines make under the
// service's identity from the API server's audit log (every request of
// that ServiceAccount, reads and watches included) over a whole lab, `cnpa
// step all` then `cnpa check`, for the go and the shell engine (drift in
// step 5, deletion and archive in step 6), and holds assets/rbac.yaml to
// it: a rule granting a verb that no request used fails, and so does a
// request no rule covers.
func TestRBACAsUsed(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cl, err := cluster.Start(ctx, cluster.Options{AuditAllOf: []string{identity.Username}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Stop)
	for _, engine := range []string{"go", "shell"} {
		dir := filepath.Join(t.TempDir(), "cnpa-op")
		cnpa := func(args ...string) ([]byte, error) {
			cmd := exec.CommandContext(ctx, cnpaBin, append([]string{"--kubeconfig", cl.Kubeconfig, "--dir", dir, "--no-color"}, args...)...)
			cmd.Env = cl.Env()
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			err := cmd.Run()
			return out.Bytes(), err
		}
		unitDir := filepath.Join(t.TempDir(), "systemd")
		if out, err := cnpa("step", "all", "--engine", engine, "--service-manager", "process", "--unit-dir", unitDir); err != nil {
			logs, _ := cnpa("service", "logs", "-n", "40")
			t.Fatalf("cnpa step all --engine %s: %v\n%s\nservice log:\n%s", engine, err, out, logs)
		}
		if out, err := cnpa("check", "--timeout", "90s"); err != nil {
			t.Errorf("cnpa check (%s engine): %v\n%s", engine, err, out)
		}
		if out, err := cnpa("reset", "--yes"); err != nil {
			t.Fatalf("cnpa reset after the %s engine's lab: %v\n%s", engine, err, out)
		}
	}
	events, err := cl.AuditSince(0, identity.Username)
	if err != nil {
		t.Fatal(err)
	}
	if len(events) == 0 {
		t.Fatalf("no request by %s in the audit log", identity.Username)
	}
	grants, err := kit.Grants(identity.Manifests()...)
	if err != nil {
		t.Fatal(err)
	}
	unused, uncovered := kit.RBACUnused(grants, events)
	if len(unused) > 0 {
		t.Errorf("assets/rbac.yaml grants %d verbs no request of a whole lab used (go and shell engines, check included); remove them:\n%s",
			len(unused), strings.Join(unused, "\n"))
	}
	if len(uncovered) > 0 {
		t.Errorf("%d kinds of request of %s no rule of assets/rbac.yaml covers:\n%s", len(uncovered), identity.Username, strings.Join(uncovered, "\n"))
	}
	t.Logf("%d requests by %s held to %d grants", len(events), identity.Username, len(grants))
}

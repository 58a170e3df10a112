package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// TestShellPassOverATeamSpaceGoneMeanwhile: a TeamSpace deleted while
// reconcile.sh's pass is on it (after its namespace and quota, before its
// status) is no failure of the pass: the real API server answers the
// status write NotFound, and the pass exits 0 without an error line (the
// shell engine's passing step 4 used to show "Error from server
// (NotFound)" for its probe). A kubectl in front of the real one deletes
// the TeamSpace right before the status write, so the race always happens.
func TestShellPassOverATeamSpaceGoneMeanwhile(t *testing.T) {
	c := cluster.Shared(t)
	e := kit.New(t, c)
	name := fmt.Sprintf("cli-gone-%d", time.Now().UnixNano()%1_000_000)
	e.Kubectl([]byte("apiVersion: platform.labhub.io/v1alpha1\nkind: TeamSpace\nmetadata:\n  name: "+name+"\nspec:\n  pods: 1\n"), "apply", "-f", "-")

	work := t.TempDir()
	shim := filepath.Join(work, "bin")
	if err := os.MkdirAll(shim, 0o755); err != nil {
		t.Fatal(err)
	}
	kubectl := `#!/usr/bin/env bash
for a in "$@"; do
  if [ "$a" = --subresource=status ]; then "$REAL_KUBECTL" delete teamspace "$GONE" --wait=true >/dev/null; break; fi
done
exec "$REAL_KUBECTL" "$@"
`
	if err := os.WriteFile(filepath.Join(shim, "kubectl"), []byte(kubectl), 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(work, "reconcile.sh")
	if err := os.WriteFile(script, assets.ReconcileScript, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Env = append(c.Env(), "PATH="+shim+":"+c.BinDir+":"+os.Getenv("PATH"), "REAL_KUBECTL="+c.Kubectl(), "GONE="+name,
		"CNPA_ARCHIVE_DIR="+filepath.Join(work, "archive"), "HOME="+work)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if err != nil || strings.Contains(out.String(), "Error from server") {
		t.Errorf("reconcile.sh over %s, deleted before its status write: %v, want exit 0 and no error line:\n%s", name, err, out.String())
	}
	if got := e.Kubectl(nil, "get", "teamspace", name, "--ignore-not-found", "-o", "name"); strings.TrimSpace(got) != "" {
		t.Fatalf("the shim did not delete %s before the status write (still %q): the race did not happen\n%s", name, got, out.String())
	}
	if !strings.Contains(out.String(), "quota") {
		t.Errorf("reconcile.sh did not get to %s's quota before its status:\n%s", name, out.String())
	}
}

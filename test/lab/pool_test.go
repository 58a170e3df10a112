package lab

import (
	"context"
	"fmt"
	"os/exec"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/testcluster"
	"github.com/labhub/cnpa/test/kit"
)

// pool keeps the control planes of the tests that run the lab from step 1
// on a cluster with nothing of it (kit.Pool): such a test takes one and,
// when it ends, `cnpa reset --yes --purge` must leave it as it booted.
var pool = &kit.Pool{}

// pooledCluster is a clean control plane for t from the pool. When t ends,
// after the cleanups t registers later (its service's stop), the cluster is
// reset on dir and unitDir (the service's) and given back; anything
// reset leaves fails t.
func pooledCluster(ctx context.Context, t *testing.T, dir, unitDir string) *testcluster.Cluster {
	t.Helper()
	c := pool.Take(ctx, t, nil)
	t.Cleanup(func() {
		pool.GiveBack(t, c, func(ctx context.Context) error {
			cmd := exec.CommandContext(ctx, cnpaBin, "--kubeconfig", c.Cluster.Kubeconfig, "--dir", dir, "--no-color",
				"reset", "--yes", "--purge", "--timeout", "2m", "--service-manager", "process", "--unit-dir", unitDir)
			cmd.Env = c.Cluster.Env()
			cmd.WaitDelay = 5 * time.Second
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("%v\n%s", err, out)
			}
			return nil
		}, true)
	})
	return c.Cluster
}

// Package stress runs `cnpa stress` against the real control plane: every
// fault on cnpa's go and shell engines, and for each a controller in a
// learner's style that fails it by name and one that passes it
// (testdata/), the proxy's privacy and what a killed run leaves (R4-1,
// R4-2). Each controller runs as the lab's service in process mode
// through the proxy (test/system runs one under real systemd).
//
// A stress run is mostly waiting: a fault's hold, the bound, whole passes
// of a 3 s loop before a fault is stable. So each top-level test boots a
// control plane of its own (labCluster) and runs beside another
// (t.Parallel, two at a time under go test's default -parallel on two
// cores): the lab's names are fixed (alpha, beta), so two labs cannot
// share one cluster at once. Inside a test, cases run one after another
// on its cluster, each ending in `cnpa reset --yes`.
package stress

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/labhub/cnpa/test/kit/cluster"
)

// labCluster marks t parallel and starts a control plane for it alone,
// stopped when t ends.
func labCluster(t *testing.T) *cluster.Cluster {
	t.Helper()
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Options{Datastore: os.Getenv(cluster.DatastoreEnv)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	return c
}

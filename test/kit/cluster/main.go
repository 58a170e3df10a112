package cluster

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// shared is the cluster TestMain started for this test package.
var shared *Cluster

// Main is a TestMain body: it starts one cluster for the whole package, runs
// the tests, and stops the cluster, also on SIGINT/SIGTERM. Tests reach it
// with Shared. Tests must use unique TeamSpace names, since they share it.
// The cluster's datastore is $CNPA_DATASTORE (etcd when unset).
//
//	func TestMain(m *testing.M) { cluster.Main(m) }
func Main(m *testing.M) { MainWith(m, Options{}) }

// MainWith is Main with the shared cluster started with opts (its
// Datastore, when empty, from $CNPA_DATASTORE).
func MainWith(m *testing.M, opts Options) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	start := time.Now()
	if opts.Datastore == "" {
		opts.Datastore = os.Getenv(DatastoreEnv)
	}
	c, err := Start(ctx, opts)
	cancel()
	if err != nil {
		fmt.Fprintf(os.Stderr, "cluster: %v\n", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "cluster: control plane on %s ready at %s in %s\n", c.Datastore, c.Server, time.Since(start).Round(time.Millisecond))
	shared = c
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		s := <-sig
		c.Stop()
		fmt.Fprintf(os.Stderr, "cluster: stopped on %s\n", s)
		os.Exit(1)
	}()
	code := m.Run()
	c.Stop()
	os.Exit(code)
}

// Shared returns the package's cluster started by Main.
func Shared(t testing.TB) *Cluster {
	t.Helper()
	if shared == nil {
		t.Fatal("cluster.Shared: no cluster; call cluster.Main from TestMain")
	}
	return shared
}

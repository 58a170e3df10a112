// Command labrun runs the whole lab end to end on the embedded real control
// plane (kubebox), for a machine without k3s: it starts the datastore (etcd,
// or kine over SQLite as in k3s), kube-apiserver and kube-controller-manager,
// runs `cnpa doctor`, `cnpa step all` and `cnpa check` against them with the
// service in process mode, and stops everything. `make lab` runs it.
//
//	labrun [-engine go|shell] [-datastore etcd|kine] [-dir DIR] [-keep]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/labhub/cnpa/internal/testcluster"
)

func main() {
	engine := flag.String("engine", "go", "engine: go or shell")
	datastore := flag.String("datastore", testcluster.DatastoreEtcd, "datastore: "+testcluster.DatastoreEtcd+" or "+testcluster.DatastoreKine+" (k3s's default, SQLite)")
	dir := flag.String("dir", "", "evidence dir (default: a new temp dir)")
	cnpa := flag.String("cnpa", ".bin/cnpa", "cnpa binary")
	keep := flag.Bool("keep", false, "keep the cluster running until Ctrl-C after the lab")
	verbose := flag.Bool("verbose", false, "run the steps with --verbose: every file and manifest in full")
	flag.Parse()
	if _, err := testcluster.ParseDatastore(*datastore); err != nil {
		fmt.Fprintln(os.Stderr, "labrun: -datastore:", err)
		os.Exit(2)
	}
	os.Exit(run(*engine, *datastore, *dir, *cnpa, *keep, *verbose))
}

func run(engine, datastore, dir, cnpa string, keep, verbose bool) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	c, err := testcluster.Start(ctx, testcluster.Options{Datastore: datastore})
	if err != nil {
		fmt.Fprintln(os.Stderr, "labrun:", err)
		return 2
	}
	defer c.Stop()
	fmt.Printf("labrun: real control plane on %s at %s ready in %s (kubeconfig %s)\n\n", c.Datastore, c.Server, time.Since(start).Round(time.Millisecond), c.Kubeconfig)
	if dir == "" {
		dir = filepath.Join(c.Dir, "cnpa-op")
	}
	cnpa, _ = filepath.Abs(cnpa)
	unitDir := filepath.Join(c.Dir, "systemd")
	env := append(c.Env(), "CNPA_DIR="+dir)
	var cnpaIn func(ctx context.Context, args ...string) int
	cnpaRun := func(args ...string) int { return cnpaIn(ctx, args...) }
	cnpaIn = func(ctx context.Context, args ...string) int {
		fmt.Printf("$ cnpa %s\n", strings.Join(args, " "))
		cmd := exec.CommandContext(ctx, cnpa, append([]string{"--kubeconfig", c.Kubeconfig}, args...)...)
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			if ee, ok := err.(*exec.ExitError); ok {
				return ee.ExitCode()
			}
			return 1
		}
		return 0
	}
	// Whatever happens, stop the controller service before the cluster,
	// also after Ctrl-C (ctx is cancelled then).
	defer cnpaIn(context.Background(), "service", "stop")
	code := 0
	stepAll := []string{"step", "all", "--engine", engine, "--service-manager", "process", "--unit-dir", unitDir}
	if verbose {
		stepAll = append(stepAll, "--verbose")
	}
	for _, args := range [][]string{{"doctor"}, stepAll, {"check"}} {
		if code = cnpaRun(args...); code != 0 {
			fmt.Fprintf(os.Stderr, "labrun: `cnpa %s` exited %d\n", strings.Join(args, " "), code)
			break
		}
	}
	fmt.Printf("\nlabrun: evidence in %s, whole run %s\n", dir, time.Since(start).Round(time.Second))
	if keep {
		fmt.Println("labrun: cluster kept running; Ctrl-C to stop")
		<-ctx.Done()
	}
	return code
}

// Command labrun runs the whole lab end to end on the embedded real control
// plane (kubebox), for a machine without k3s: it starts the datastore (etcd,
// or kine over SQLite as in k3s), kube-apiserver and kube-controller-manager,
// runs `cnpa doctor`, `cnpa step all` and `cnpa check` against them with the
// service in process mode, and stops everything. `make lab` runs it.
//
//	labrun [-engine go|shell] [-datastore etcd|kine] [-dir DIR] [-keep]
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/labhub/cnpa/test/kit/cluster"
)

// checkOut is -check-out: a file for `cnpa check`'s whole output, which
// test/lab holds to 80 columns as it holds the steps'.
var checkOut string

func main() {
	engine := flag.String("engine", "go", "engine: go or shell")
	datastore := flag.String("datastore", cluster.DatastoreEtcd, "datastore: "+cluster.DatastoreEtcd+" or "+cluster.DatastoreKine+" (k3s's default, SQLite)")
	dir := flag.String("dir", "", "evidence dir (default: a new temp dir)")
	cnpa := flag.String("cnpa", ".bin/cnpa", "cnpa binary")
	keep := flag.Bool("keep", false, "keep the cluster running until Ctrl-C after the lab")
	verbose := flag.Bool("verbose", false, "run the steps with --verbose: every file and manifest in full")
	flag.StringVar(&checkOut, "check-out", "", "write `cnpa check`'s whole output to this file too (what it prints is unchanged)")
	flag.Parse()
	if _, err := cluster.ParseDatastore(*datastore); err != nil {
		fmt.Fprintln(os.Stderr, "labrun: -datastore:", err)
		os.Exit(2)
	}
	os.Exit(run(*engine, *datastore, *dir, *cnpa, *keep, *verbose))
}

// summarised runs `cnpa doctor` or `cnpa check` (cmd). All of its output
// is printed when it fails, or with -verbose; when it passes, one line
// (check's summary, doctor's count): the steps' own output shows every
// value already, and `make lab VERBOSE=1` shows the rest.
func summarised(ctx context.Context, cnpaIn func(context.Context, io.Writer, ...string) int, verbose bool, cmd string) int {
	if verbose {
		return cnpaIn(ctx, os.Stdout, cmd)
	}
	var out bytes.Buffer
	code := cnpaIn(ctx, &out, cmd)
	if cmd == "check" && checkOut != "" {
		if err := os.WriteFile(checkOut, out.Bytes(), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "labrun: -check-out:", err)
			return 2
		}
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if code != 0 || len(lines) == 0 {
		os.Stdout.Write(out.Bytes())
		fmt.Fprintf(os.Stderr, "labrun: `cnpa %s` exited %d\n", cmd, code)
		return code
	}
	summary := lines[len(lines)-1]
	if cmd == "doctor" {
		summary = fmt.Sprintf("all %d preflight checks ok", len(lines))
		for _, l := range lines {
			if strings.HasPrefix(l, "warn") {
				summary += "; " + strings.Join(strings.Fields(l), " ")
			}
		}
	}
	fmt.Printf("  %s (all of it: `make lab VERBOSE=1`)\n", summary)
	return 0
}

func run(engine, datastore, dir, cnpa string, keep, verbose bool) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	c, err := cluster.Start(ctx, cluster.Options{Datastore: datastore})
	if err != nil {
		fmt.Fprintln(os.Stderr, "labrun:", err)
		return 2
	}
	defer c.Stop()
	fmt.Printf("labrun: real control plane on %s at %s ready in %s (kubeconfig %s)\n", c.Datastore, c.Server, time.Since(start).Round(time.Millisecond), c.Kubeconfig)
	if dir == "" {
		dir = filepath.Join(c.Dir, "cnpa-op")
	}
	cnpa, _ = filepath.Abs(cnpa)
	unitDir := filepath.Join(c.Dir, "systemd")
	env := append(c.Env(), "CNPA_DIR="+dir)
	var cnpaIn func(ctx context.Context, stdout io.Writer, args ...string) int
	cnpaRun := func(args ...string) int { return cnpaIn(ctx, os.Stdout, args...) }
	cnpaIn = func(ctx context.Context, stdout io.Writer, args ...string) int {
		fmt.Printf("$ cnpa %s\n", strings.Join(args, " "))
		cmd := exec.CommandContext(ctx, cnpa, append([]string{"--kubeconfig", c.Kubeconfig}, args...)...)
		cmd.Env = env
		cmd.Stdout, cmd.Stderr = stdout, os.Stderr
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
	defer cnpaIn(context.Background(), os.Stdout, "service", "stop")
	code := 0
	stepAll := []string{"step", "all", "--engine", engine, "--service-manager", "process", "--unit-dir", unitDir}
	if verbose {
		stepAll = append(stepAll, "--verbose")
	}
	code = summarised(ctx, cnpaIn, verbose, "doctor")
	if code == 0 {
		if code = cnpaRun(stepAll...); code != 0 {
			fmt.Fprintf(os.Stderr, "labrun: `cnpa %s` exited %d\n", strings.Join(stepAll, " "), code)
		}
	}
	if code == 0 {
		code = summarised(ctx, cnpaIn, verbose, "check")
	}
	if dir == filepath.Join(c.Dir, "cnpa-op") && !keep {
		fmt.Printf("\nlabrun: whole run %s; the evidence went with the cluster (-dir DIR keeps it; `make cluster` gives a cluster of your own)\n",
			time.Since(start).Round(time.Second))
	} else {
		fmt.Printf("\nlabrun: evidence in %s, whole run %s\n", dir, time.Since(start).Round(time.Second))
	}
	if keep {
		fmt.Println("labrun: cluster kept running; Ctrl-C to stop")
		<-ctx.Done()
	}
	return code
}

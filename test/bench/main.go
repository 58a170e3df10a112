// Command bench runs cnpa's reconcile engines side by side with the
// controller-runtime anchor and a raw floor, each on fresh real control
// planes (test/kit/cluster: etcd, kube-apiserver, kube-controller-manager),
// and prints one Markdown table; the same numbers go to
// test/bench/results/bench-<date>.json.
//
// Contenders (-contenders):
//   - cnpa: the Go engine, `cnpa controller --finalizer=true` as a process;
//   - shell: assets/reconcile.sh in `while true; do bash reconcile.sh; sleep 3; done`,
//     as cnpa-op.service runs it (at -shell-n and -shell-bulk: a kubectl+jq
//     pass over hundreds of TeamSpaces is too slow to sample);
//   - peer: the controller-runtime anchor, built from -peer-dir
//     ($CNPA_PEER_DIR, default ../shared/peer beside the module); skipped,
//     with the reason, when it is missing or does not build;
//   - raw: the floor, a plain client-go client in the harness making exactly
//     the requests one TeamSpace needs (create, finalizer patch, namespace
//     create, quota apply, status patch), no controller;
//   - cnpa-inproc (not by default): internal/controller in the harness, for
//     profiling (-cpuprofile) and for the client rate limiter's wait time;
//   - cnpa-min (not by default): test/bench/minctl, the controller alone in
//     a binary of its own, with a heap profile taken at each RSS read.
//
// Every contender is timed the same way, from outside: one observer watches
// teamspaces, namespaces and resourcequotas, and a measurement ends at the
// arrival of the watch event that shows the result. Nothing is polled.
//
// Per contender, control plane 1: warm-up TeamSpace; convergence (-samples)
// and drift (-drift-samples of restore and of revert) with no others;
// -n-background TeamSpaces created by -creators concurrent creators;
// convergence and drift again; idle cost (apiserver_request_total over -idle
// with the contender running, minus the same window with it frozen by
// SIGSTOP); peak RSS. Control plane 2: warm-up, then -bulk TeamSpaces by
// -creators creators, timed until all are in sync; peak RSS.
//
// Timing targets are printed, never asserted; bench_test.go is a smoke run.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/labhub/cnpa/internal/controller"
)

// config is the command line.
type config struct {
	nBackground       int
	bulk              int
	samples           int
	driftSamples      int
	idle              time.Duration
	contenders        []string
	shellN            int
	shellBulk         int
	creators          int
	workers           int
	gap               time.Duration
	sampleTimeout     time.Duration
	warmTimeout       time.Duration
	perTeamSpace      time.Duration
	peerDir           string
	peerBuild         time.Duration
	cnpaBin           string
	minctlBin         string
	resultsDir        string
	workDir           string
	keep              bool
	parallel          bool
	quiet             time.Duration
	settleMax         time.Duration
	steady, bulkPhase bool
	scalePhase        bool
	// classPhase: `cnpa class grade` live and offline (class.go).
	classPhase                  bool
	classLearners, classOffline int
	classEngine                 string
	scaleSizes                  []int
	// startupPhase: cnpa's start-up against the build before the
	// catalogs (startup.go).
	startupPhase  bool
	startupBefore string
	startupRuns   int
	// stressPhase: `cnpa stress` of each engine (stress.go).
	stressPhase   bool
	stressEngines []string
	// watchPhase: `cnpa watch`, save to verdict (watch.go).
	watchPhase bool
	// checkPhase: `cnpa check` on an own-engine lab against the build of
	// checkBefore (checktime.go).
	checkPhase   bool
	checkBefore  string
	checkRuns    int
	scaleProfile time.Duration
	cpuProfile   string
	inprocQPS    float64
	inprocBurst  int
	pairedFloor  bool
}

func parseFlags(args []string, stderr io.Writer) (*config, error) {
	cfg := &config{}
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var contenders, phases, scaleSizes string
	fs.IntVar(&cfg.nBackground, "n-background", 500, "TeamSpaces present for the N rows (convergence, drift, idle, RSS)")
	fs.IntVar(&cfg.bulk, "bulk", 1000, "TeamSpaces created in the bulk scenario")
	fs.IntVar(&cfg.samples, "samples", 30, "convergence samples at each N")
	fs.IntVar(&cfg.driftSamples, "drift-samples", 20, "drift samples of each kind (restore, revert) at each N")
	fs.DurationVar(&cfg.idle, "idle", 60*time.Second, "idle window (measured twice: contender running, contender frozen)")
	fs.StringVar(&contenders, "contenders", "cnpa,shell,peer,raw", "comma-separated contenders: "+strings.Join(knownContenders, ", "))
	fs.IntVar(&cfg.shellN, "shell-n", 20, "the shell engine's N (its column only)")
	fs.IntVar(&cfg.shellBulk, "shell-bulk", 100, "the shell engine's bulk size (its column only)")
	fs.IntVar(&cfg.creators, "creators", 8, "concurrent creators for the background and the bulk")
	fs.IntVar(&cfg.workers, "workers", controller.DefaultWorkers, "cnpa controller --workers")
	fs.DurationVar(&cfg.gap, "gap", 200*time.Millisecond, "pause between samples, so one sample's trailing work does not overlap the next")
	fs.DurationVar(&cfg.sampleTimeout, "sample-timeout", 2*time.Minute, "give up on one sample after this")
	fs.DurationVar(&cfg.warmTimeout, "warm-timeout", 2*time.Minute, "give up on the warm-up TeamSpace (contender start) after this")
	fs.DurationVar(&cfg.perTeamSpace, "per-teamspace-timeout", time.Second, "a batch of n may take warm-timeout + n × this")
	fs.StringVar(&cfg.peerDir, "peer-dir", os.Getenv("CNPA_PEER_DIR"), "the peer's module (default $CNPA_PEER_DIR, else ../shared/peer beside the cnpa module)")
	fs.DurationVar(&cfg.peerBuild, "peer-build-timeout", 10*time.Minute, "give up building the peer after this (and skip its column)")
	fs.StringVar(&cfg.cnpaBin, "cnpa", "", "a prebuilt cnpa binary, e.g. .bin/cnpa (default: go build ./cmd/cnpa)")
	fs.StringVar(&cfg.minctlBin, "minctl", "", "a prebuilt test/bench/minctl for cnpa-min (default: go build ./test/bench/minctl)")
	fs.StringVar(&cfg.resultsDir, "results", "", "directory for bench-<date>.json (default test/bench/results in the module; \"-\" for none)")
	fs.StringVar(&cfg.workDir, "work", "", "directory for logs and binaries (default: a temporary one, kept when something failed)")
	fs.BoolVar(&cfg.keep, "keep", false, "keep the work directory")
	fs.StringVar(&phases, "phases", "steady,bulk,class,startup,stress,watch,check", "which control planes to run per contender: steady (convergence, drift, idle, RSS at N), bulk, scale (the same at each -scale-sizes, on one growing control plane); and, once, class (`cnpa class grade` live, one learner at a time and all at once, and offline), startup (`cnpa version` and `cnpa explain 5` in English and Japanese against -startup-before, no control plane) and stress (`cnpa stress` of the go and shell engines, each after `cnpa step all` on a control plane of its own), watch (`cnpa watch`: 10 saves of reconcile.sh, each to its verdict, on step 3) and check (`cnpa check` on an own-engine lab against -check-before)")
	fs.StringVar(&cfg.startupBefore, "startup-before", defaultStartupBefore, "the startup phase's build to compare with: a git revision of this repository")
	fs.IntVar(&cfg.startupRuns, "startup-runs", 40, "the startup phase's runs of each build, per command and locale")
	fs.StringVar(&cfg.checkBefore, "check-before", defaultCheckBefore, "the check phase's build to compare with: a git revision of this repository")
	fs.IntVar(&cfg.checkRuns, "check-runs", 3, "the check phase's runs of `cnpa check` with each build")
	stressEngines := fs.String("stress-engines", "go,shell", "the stress phase's engines, each on a control plane of its own, one after the other")
	fs.IntVar(&cfg.classLearners, "class-learners", 3, "the class phase's learners, each on a control plane of their own")
	fs.StringVar(&cfg.classEngine, "class-engine", "shell", "the class phase's learners' engine: shell (a reconcile.sh loop, as most learners write one: grading waits on it) or go")
	fs.IntVar(&cfg.classOffline, "class-offline", 1000, "synthetic submissions the class phase grades offline")
	fs.StringVar(&scaleSizes, "scale-sizes", "0,1000,10000,20000", "background populations of the scale phase, ascending")
	fs.DurationVar(&cfg.scaleProfile, "scale-profile", 0, "at each scale size, a CPU profile of this long during the samples, from contenders that serve pprof (cnpa-min)")
	fs.BoolVar(&cfg.parallel, "parallel", false, "run the contenders at the same time (smoke runs only: the timings are then not comparable)")
	fs.DurationVar(&cfg.quiet, "quiet", 3*time.Second, "before the samples, the idle window and the last RSS read, wait for this long without a write by the contender or a watch event")
	fs.DurationVar(&cfg.settleMax, "settle-max", 2*time.Minute, "measure anyway when the contender is still busy after this long (after a large background, kube-controller-manager's quota status updates trail for minutes)")
	fs.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write a CPU profile of cnpa-inproc's bulk to this file")
	fs.BoolVar(&cfg.pairedFloor, "paired-floor", true, "after each convergence sample of a controller, take one of the raw floor on the same control plane with the controller frozen (SIGSTOP)")
	fs.Float64Var(&cfg.inprocQPS, "inproc-qps", 0, "cnpa-inproc client QPS (0: as cnpa, 100; negative: unlimited)")
	fs.IntVar(&cfg.inprocBurst, "inproc-burst", 200, "cnpa-inproc client burst, with -inproc-qps")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	cfg.stressEngines = strings.Split(*stressEngines, ",")
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	for _, c := range strings.Split(contenders, ",") {
		if c = strings.TrimSpace(c); c == "" {
			continue
		}
		if !contains(knownContenders, c) {
			return nil, fmt.Errorf("-contenders: unknown %q (known: %s)", c, strings.Join(knownContenders, ", "))
		}
		if !contains(cfg.contenders, c) {
			cfg.contenders = append(cfg.contenders, c)
		}
	}
	for _, p := range strings.Split(phases, ",") {
		switch strings.TrimSpace(p) {
		case "steady":
			cfg.steady = true
		case "bulk":
			cfg.bulkPhase = true
		case "scale":
			cfg.scalePhase = true
		case "class":
			cfg.classPhase = true
		case "startup":
			cfg.startupPhase = true
		case "stress":
			cfg.stressPhase = true
		case "watch":
			cfg.watchPhase = true
		case "check":
			cfg.checkPhase = true
		case "":
		default:
			return nil, fmt.Errorf("-phases: unknown %q (known: steady, bulk, scale, class, startup, stress, watch, check)", p)
		}
	}
	for _, f := range strings.Split(scaleSizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 || len(cfg.scaleSizes) > 0 && n < cfg.scaleSizes[len(cfg.scaleSizes)-1] {
			return nil, fmt.Errorf("-scale-sizes: %q is not an ascending list of populations", scaleSizes)
		}
		cfg.scaleSizes = append(cfg.scaleSizes, n)
	}
	switch {
	case !cfg.steady && !cfg.bulkPhase && !cfg.scalePhase && !cfg.classPhase && !cfg.startupPhase && !cfg.stressPhase && !cfg.watchPhase && !cfg.checkPhase:
		return nil, errors.New("-phases is empty")
	case cfg.checkPhase && cfg.checkRuns < 1:
		return nil, errors.New("-check-runs must be at least 1")
	case cfg.startupPhase && cfg.startupRuns < 1:
		return nil, errors.New("-startup-runs must be at least 1")
	case cfg.classPhase && (cfg.classLearners < 1 || cfg.classOffline < 0 || cfg.classEngine != "go" && cfg.classEngine != "shell"):
		return nil, errors.New("-class-learners must be at least 1, -class-offline at least 0, -class-engine go or shell")
	case len(cfg.contenders) == 0:
		return nil, errors.New("-contenders is empty")
	case cfg.samples < 1 || cfg.driftSamples < 1:
		return nil, errors.New("-samples and -drift-samples must be at least 1")
	case cfg.nBackground < 0 || cfg.bulk < 1 || cfg.shellN < 0 || cfg.shellBulk < 1 || cfg.creators < 1:
		return nil, errors.New("sizes must be positive")
	case cfg.idle <= 0:
		return nil, errors.New("-idle must be positive")
	}
	return cfg, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	rep, err := run(ctx, cfg, os.Stdout, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	for _, c := range rep.Contenders {
		if len(c.Errors) > 0 {
			os.Exit(1)
		}
	}
}

// run builds what the contenders need, runs each on its own control planes,
// and writes the table to out and the JSON file. Progress goes to logw.
func run(ctx context.Context, cfg *config, out, logw io.Writer) (*Report, error) {
	var logMu sync.Mutex
	logf := func(format string, args ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		fmt.Fprintf(logw, "%s bench: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
	}
	root, err := moduleRoot()
	if err != nil {
		return nil, err
	}
	work := cfg.workDir
	if work == "" {
		if work, err = os.MkdirTemp("", "cnpa-bench-"); err != nil {
			return nil, err
		}
	}
	failed := false
	defer func() {
		if cfg.keep || failed || cfg.workDir != "" {
			logf("work directory (logs): %s", work)
			return
		}
		os.RemoveAll(work)
	}()

	rep := &Report{Date: time.Now(), Cores: runtime.NumCPU(), GoVersion: runtime.Version(), Skipped: map[string]string{},
		Sizes: Sizes{NBackground: cfg.nBackground, Bulk: cfg.bulk, Samples: cfg.samples, DriftSamples: cfg.driftSamples,
			IdleSeconds: cfg.idle.Seconds(), ShellN: cfg.shellN, ShellBulk: cfg.shellBulk, Creators: cfg.creators,
			Workers: cfg.workers, GapMS: float64(cfg.gap) / float64(time.Millisecond), ShellInterval: "3s", Parallel: cfg.parallel,
			Phases: strings.Join(slices.DeleteFunc([]string{"steady", "bulk", "scale"}, func(p string) bool {
				return p == "steady" && !cfg.steady || p == "bulk" && !cfg.bulkPhase || p == "scale" && !cfg.scalePhase
			}), ",")}}
	if cfg.classPhase {
		rep.Sizes.Phases = strings.TrimPrefix(rep.Sizes.Phases+",class", ",")
	}
	if cfg.startupPhase {
		rep.Sizes.Phases = strings.TrimPrefix(rep.Sizes.Phases+",startup", ",")
	}
	if cfg.stressPhase {
		rep.Sizes.Phases = strings.TrimPrefix(rep.Sizes.Phases+",stress", ",")
	}
	if cfg.watchPhase {
		rep.Sizes.Phases = strings.TrimPrefix(rep.Sizes.Phases+",watch", ",")
	}
	if cfg.checkPhase {
		rep.Sizes.Phases = strings.TrimPrefix(rep.Sizes.Phases+",check", ",")
	}
	if cfg.scalePhase {
		rep.Sizes.ScaleSizes = cfg.scaleSizes
	}
	rep.LoadAverage = []string{loadAverage()}
	if !cfg.steady && !cfg.bulkPhase && !cfg.scalePhase {
		// No contender runs (the class or start-up phase alone): build
		// none of theirs but cnpa.
		cfg.contenders = slices.DeleteFunc(cfg.contenders, func(c string) bool { return c != nameCnpa })
	}
	bin, err := prepare(ctx, cfg, root, work, rep.Skipped, logf)
	if err != nil {
		failed = true
		return nil, err
	}
	b := &bench{cfg: cfg, bin: bin, work: work, logf: logf}
	if cfg.startupPhase {
		logf("[startup] starting")
		rep.Startup = b.runStartup(ctx, root)
		failed = failed || len(rep.Startup.Errors) > 0
		writeStartupMarkdown(out, rep.Startup)
	}
	if cfg.stressPhase {
		logf("[stress] starting")
		rep.Stress = b.runStress(ctx)
		failed = failed || len(rep.Stress.Errors) > 0
		writeStressMarkdown(out, rep.Stress)
	}
	if cfg.watchPhase {
		logf("[watch] starting")
		rep.Watch = b.runWatch(ctx)
		failed = failed || len(rep.Watch.Errors) > 0
		writeWatchMarkdown(out, rep.Watch)
	}
	if cfg.checkPhase {
		logf("[check] starting")
		rep.Check = b.runCheck(ctx, root)
		failed = failed || len(rep.Check.Errors) > 0
		writeCheckMarkdown(out, rep.Check)
	}
	if cfg.classPhase {
		logf("[class] starting")
		rep.Class = b.runClass(ctx)
		failed = failed || len(rep.Class.Errors) > 0
		writeClassMarkdown(out, rep.Class)
	}
	var names []string
	for _, name := range cfg.contenders {
		if !cfg.steady && !cfg.bulkPhase && !cfg.scalePhase {
			break // the class or start-up phase alone
		}
		if reason, ok := rep.Skipped[name]; ok {
			logf("[%s] skipped: %s", name, reason)
			continue
		}
		names = append(names, name)
	}
	one := func(name string) *Result {
		logf("[%s] starting", name)
		res := b.runContender(ctx, name)
		logf("[%s] done in %s (load average %s → %s)", name, time.Duration(res.Seconds*float64(time.Second)).Round(time.Second),
			res.LoadAverage[0], res.LoadAverage[len(res.LoadAverage)-1])
		return res
	}
	rep.Contenders = make([]*Result, len(names))
	if cfg.parallel {
		var wg sync.WaitGroup
		for i, name := range names {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rep.Contenders[i] = one(name)
			}()
		}
		wg.Wait()
	} else {
		for i, name := range names {
			if rep.Contenders[i] = one(name); ctx.Err() != nil {
				break
			}
		}
	}
	if ctx.Err() != nil {
		failed = true
		return nil, ctx.Err()
	}
	for _, res := range rep.Contenders {
		failed = failed || len(res.Errors) > 0
	}
	rep.LoadAverage = append(rep.LoadAverage, loadAverage())
	if cfg.steady || cfg.bulkPhase {
		rep.Targets = evaluateTargets(rep)
		writeMarkdown(out, rep)
	}
	writeScaleMarkdown(out, rep)

	dir := cfg.resultsDir
	if dir == "" {
		dir = filepath.Join(root, "test", "bench", "results")
	}
	if dir != "-" {
		// A scale run's file is kept in git (see .gitignore): issue 27
		// wants the numbers behind the README's scale table committed.
		prefix := "bench-"
		if !cfg.steady && !cfg.bulkPhase && cfg.scalePhase {
			prefix = "scale-"
		}
		path := filepath.Join(dir, prefix+rep.Date.Format("2006-01-02T150405")+".json")
		if err := writeJSON(path, rep); err != nil {
			return rep, err
		}
		logf("results written to %s", path)
	}
	return rep, nil
}

// prepare builds cnpa and the peer as needed and finds the shell engine.
// A peer that is missing or does not build is skipped with the reason.
func prepare(ctx context.Context, cfg *config, root, work string, skipped map[string]string, logf func(string, ...any)) (*binaries, error) {
	bin := &binaries{cnpa: cfg.cnpaBin, script: filepath.Join(root, "assets", "reconcile.sh")}
	binDir := filepath.Join(work, "bin")
	if err := os.MkdirAll(binDir, 0o755); err != nil {
		return nil, err
	}
	if bin.cnpa != "" {
		abs, err := filepath.Abs(bin.cnpa)
		if err != nil {
			return nil, err
		}
		if _, err := os.Stat(abs); err != nil {
			return nil, fmt.Errorf("-cnpa: %w", err)
		}
		bin.cnpa = abs
	}
	if contains(cfg.contenders, nameCnpa) && bin.cnpa == "" {
		bin.cnpa = filepath.Join(binDir, "cnpa")
		logf("building cnpa")
		if err := goBuild(ctx, root, bin.cnpa, "./cmd/cnpa"); err != nil {
			return nil, fmt.Errorf("build cnpa: %w", err)
		}
	}
	if contains(cfg.contenders, nameMin) && cfg.minctlBin != "" {
		abs, err := filepath.Abs(cfg.minctlBin)
		if err != nil {
			return nil, err
		}
		bin.minctl = abs
	} else if contains(cfg.contenders, nameMin) {
		bin.minctl = filepath.Join(binDir, "minctl")
		logf("building minctl (cnpa-min)")
		if err := goBuild(ctx, root, bin.minctl, "./test/bench/minctl"); err != nil {
			return nil, fmt.Errorf("build minctl: %w", err)
		}
	}
	if contains(cfg.contenders, nameShell) {
		if _, err := os.Stat(bin.script); err != nil {
			return nil, fmt.Errorf("shell engine: %w", err)
		}
		for _, tool := range []string{"bash", "jq"} {
			if _, err := exec.LookPath(tool); err != nil {
				skipped[nameShell] = tool + " is not on PATH"
			}
		}
	}
	if contains(cfg.contenders, namePeer) {
		dir := cfg.peerDir
		if dir == "" {
			dir = filepath.Join(filepath.Dir(root), "shared", "peer")
		}
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
			skipped[namePeer] = fmt.Sprintf("peer module not found at %s (set -peer-dir or CNPA_PEER_DIR)", dir)
		} else {
			bin.peer = filepath.Join(binDir, "peer")
			logf("building the peer from %s", dir)
			bctx, cancel := context.WithTimeout(ctx, cfg.peerBuild)
			err := goBuild(bctx, dir, bin.peer, "./cmd/peer")
			cancel()
			if err != nil {
				skipped[namePeer] = fmt.Sprintf("peer at %s does not build: %v", dir, firstLine(err.Error()))
			}
		}
	}
	return bin, nil
}

func goBuild(ctx context.Context, dir, out, pkg string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Dir = dir
	if b, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("go build %s: %w", pkg, ctx.Err())
		}
		return fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
	}
	return nil
}

// moduleRoot finds the cnpa module from the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if f, err := os.Open(filepath.Join(dir, "go.mod")); err == nil {
			s := bufio.NewScanner(f)
			first := ""
			if s.Scan() {
				first = strings.TrimSpace(s.Text())
			}
			f.Close()
			if first == "module github.com/labhub/cnpa" {
				return dir, nil
			}
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("run the bench from inside the cnpa module (github.com/labhub/cnpa)")
		}
		dir = parent
	}
}

// loadAverage is the first three fields of /proc/loadavg.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

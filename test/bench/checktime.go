package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/labhub/cnpa/test/kit/cluster"
)

// The check phase (issue 50): `cnpa check` on an own-engine lab, the
// learner corpus's valid-create-patch reconcile.sh run by the lab's loop
// every 3 s, timed against the build of -check-before on the same lab,
// runs of the two builds interleaved so that the machine's load falls on
// both alike. The target is at most 15 s.

// defaultCheckBefore is the last commit before issue 50's faster check.
const defaultCheckBefore = "5bd1268"

// checkCase is the corpus case whose script is the learner's controller.
const checkCase = "valid-create-patch"

// CheckResult is the check phase's numbers: wall seconds of each run.
type CheckResult struct {
	Before        string    `json:"before"`
	Case          string    `json:"case"`
	Runs          int       `json:"runs"`
	BeforeSeconds []float64 `json:"beforeSeconds"`
	AfterSeconds  []float64 `json:"afterSeconds"`
	BeforeMedian  float64   `json:"beforeMedian"`
	AfterMedian   float64   `json:"afterMedian"`
	AfterMax      float64   `json:"afterMax"`
	Errors        []string  `json:"errors,omitempty"`
}

// runCheck runs the check phase. Phases:
//  1. cnpa as it was at -check-before, built from git in the work dir;
//  2. one control plane, the lab on it with the corpus's script
//     (`cnpa step all --engine own`, the service as a process);
//  3. `cnpa check` -check-runs times with each build, in turns, the
//     order swapped each run; every run must pass. Each run's output,
//     its lines stamped with the seconds since it began, goes to
//     check-<build>-<i>.log in the work dir, to see where the time goes.
func (b *bench) runCheck(ctx context.Context, root string) *CheckResult {
	res := &CheckResult{Before: b.cfg.checkBefore, Case: checkCase, Runs: b.cfg.checkRuns}
	fail := func(format string, a ...any) { res.Errors = append(res.Errors, fmt.Sprintf(format, a...)) }
	work := filepath.Join(b.work, "check")
	old := filepath.Join(work, "before", "cnpa")
	if err := os.MkdirAll(filepath.Dir(old), 0o755); err != nil {
		fail("%v", err)
		return res
	}
	b.logf("[check] building cnpa at %s", b.cfg.checkBefore)
	archive := exec.CommandContext(ctx, "bash", "-c", `git -C "$1" archive --format=tar "$2" | tar -x -C "$3"`, "bash", root, b.cfg.checkBefore, filepath.Dir(old))
	if out, err := archive.CombinedOutput(); err != nil {
		fail("the tree at %s (git history needed; a shallow clone has none): %v: %s", b.cfg.checkBefore, err, firstLine(string(out)))
		return res
	}
	if err := goBuild(ctx, filepath.Dir(old), old, "./cmd/cnpa"); err != nil {
		fail("build cnpa at %s: %v", b.cfg.checkBefore, err)
		return res
	}
	script, err := os.ReadFile(filepath.Join(root, "test", "learners", "cases", checkCase, "reconcile.sh"))
	if err != nil {
		fail("%v", err)
		return res
	}
	dir, unitDir := filepath.Join(work, "cnpa-op"), filepath.Join(work, "systemd")
	if err := os.MkdirAll(dir, 0o755); err == nil {
		err = os.WriteFile(filepath.Join(dir, "reconcile.sh"), script, 0o755)
	}
	if err != nil {
		fail("%v", err)
		return res
	}
	c, err := cluster.Start(ctx, cluster.Options{Durable: true})
	if err != nil {
		fail("start control plane: %v", err)
		return res
	}
	defer c.Stop()
	cnpa := func(bin string, log io.Writer, args ...string) error {
		cmd := exec.CommandContext(ctx, bin, append([]string{"--kubeconfig", c.Kubeconfig, "--dir", dir, "--no-color"}, args...)...)
		cmd.Env = c.Env()
		cmd.Stdout, cmd.Stderr = log, log
		return cmd.Run()
	}
	var setup strings.Builder
	if err := cnpa(b.bin.cnpa, &setup, "step", "all", "--engine", "own", "--service-manager", "process", "--unit-dir", unitDir, "--quiet", "--timeout", "2m"); err != nil {
		fail("cnpa step all --engine own: %v\n%s", err, tailString(setup.String(), 1500))
		return res
	}
	defer func() {
		// The control plane goes next; a loop left running dies with it.
		_ = cnpa(b.bin.cnpa, io.Discard, "service", "stop", "--service-manager", "process", "--unit-dir", unitDir)
	}()
	b.logf("[check] the lab is done with %s's reconcile.sh", checkCase)
	builds := []struct {
		name, bin string
		took      *[]float64
	}{{"before", old, &res.BeforeSeconds}, {"after", b.bin.cnpa, &res.AfterSeconds}}
	for i := 0; i < b.cfg.checkRuns && ctx.Err() == nil; i++ {
		turn := slices.Clone(builds)
		if i%2 == 1 {
			slices.Reverse(turn)
		}
		for _, t := range turn {
			logPath := filepath.Join(work, fmt.Sprintf("check-%s-%d.log", t.name, i+1))
			f, err := os.Create(logPath)
			if err != nil {
				fail("%v", err)
				return res
			}
			start := time.Now()
			pr, pw := io.Pipe()
			done := make(chan struct{})
			var tail strings.Builder
			go func() {
				defer close(done)
				sc := bufio.NewScanner(pr)
				for sc.Scan() {
					line := fmt.Sprintf("%6.2f %s\n", time.Since(start).Seconds(), sc.Text())
					f.WriteString(line)
					tail.WriteString(line)
				}
			}()
			err = cnpa(t.bin, pw, "check", "--service-manager", "process", "--unit-dir", unitDir)
			took := time.Since(start).Seconds()
			pw.Close()
			<-done
			f.Close()
			if err != nil {
				fail("cnpa check (%s build, run %d): %v\n%s", t.name, i+1, err, tailString(tail.String(), 2500))
				return res
			}
			*t.took = append(*t.took, took)
			b.logf("[check] %s build, run %d: %.1f s (%s)", t.name, i+1, took, logPath)
		}
	}
	res.BeforeMedian, res.AfterMedian = median(res.BeforeSeconds), median(res.AfterSeconds)
	if len(res.AfterSeconds) > 0 {
		res.AfterMax = slices.Max(res.AfterSeconds)
	}
	return res
}

// writeCheckMarkdown prints the check phase's table.
func writeCheckMarkdown(w io.Writer, r *CheckResult) {
	fmt.Fprintf(w, "\n## `cnpa check` on an own-engine lab (%s's reconcile.sh, 3 s loop)\n\n", r.Case)
	fmt.Fprintf(w, "| build | runs | median (s) | each (s) |\n|---|---|---|---|\n")
	each := func(xs []float64) string {
		var s []string
		for _, x := range xs {
			s = append(s, fmt.Sprintf("%.1f", x))
		}
		return strings.Join(s, ", ")
	}
	fmt.Fprintf(w, "| %s (before) | %d | %.1f | %s |\n", r.Before, len(r.BeforeSeconds), r.BeforeMedian, each(r.BeforeSeconds))
	mark := ""
	if r.AfterMax > 15 {
		mark = " ✗ (target: at most 15 s)"
	}
	fmt.Fprintf(w, "| now | %d | %.1f | %s%s |\n", len(r.AfterSeconds), r.AfterMedian, each(r.AfterSeconds), mark)
	for _, e := range r.Errors {
		fmt.Fprintf(w, "\nerror: %s\n", e)
	}
}

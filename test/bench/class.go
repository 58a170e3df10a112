package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/labhub/cnpa/test/kit/classfixture"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// The class phase (issue 26): `cnpa class grade --live` of a class of
// -class-learners, each on a control plane of their own, one learner at a
// time and then all at once (--parallel N), and the offline grading of
// -class-offline synthetic submissions.

// ClassResult is the class phase's numbers.
type ClassResult struct {
	Learners int    `json:"learners"`
	Engine   string `json:"engine"`
	// SingleSeconds is each learner graded live alone, in turn.
	SingleSeconds []float64 `json:"singleSeconds"`
	// SerialSeconds is their sum: one-at-a-time grading of the class.
	SerialSeconds float64 `json:"serialSeconds"`
	// ParallelSeconds is the class graded live with --parallel Learners.
	ParallelSeconds float64 `json:"parallelSeconds"`
	// ParallelOverSlowest is ParallelSeconds ÷ the slowest single learner;
	// the target is ≤ 1.5.
	ParallelOverSlowest float64 `json:"parallelOverSlowest"`
	// Offline: OfflineN synthetic submissions graded offline (-o csv).
	OfflineN          int      `json:"offlineN"`
	OfflineSeconds    float64  `json:"offlineSeconds"`
	OfflineCPUSeconds float64  `json:"offlineCpuSeconds"`
	OfflineMaxRSSMiB  float64  `json:"offlineMaxRssMiB"`
	OfflineBytes      int64    `json:"offlineBytes"`
	LoadAverage       []string `json:"loadAverage"`
	Errors            []string `json:"errors,omitempty"`
}

// runClass runs the class phase. Phases:
//  1. -class-learners control planes at once, the lab on each (`cnpa step
//     all` with -class-engine), then `cnpa submit`;
//  2. each learner graded live alone, one after another;
//  3. the class graded live at once, --parallel the class size;
//  4. -class-offline synthetic submissions graded offline.
func (b *bench) runClass(ctx context.Context) *ClassResult {
	cfg := b.cfg
	res := &ClassResult{Learners: cfg.classLearners, Engine: cfg.classEngine, OfflineN: cfg.classOffline, LoadAverage: []string{loadAverage()}}
	fail := func(format string, a ...any) { res.Errors = append(res.Errors, fmt.Sprintf(format, a...)) }
	work := filepath.Join(b.work, "class")
	subs := filepath.Join(work, "submissions")
	if err := os.MkdirAll(subs, 0o755); err != nil {
		fail("%v", err)
		return res
	}
	type learner struct {
		name, dir, unitDir string
		cluster            *cluster.Cluster
	}
	ls := make([]*learner, cfg.classLearners)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range ls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			l := &learner{name: fmt.Sprintf("learner%02d", i+1)}
			base := filepath.Join(work, l.name)
			l.dir, l.unitDir = filepath.Join(base, "cnpa-op"), filepath.Join(base, "systemd")
			c, err := cluster.Start(ctx, cluster.Options{Durable: true})
			if err != nil {
				mu.Lock()
				fail("%s: start control plane: %v", l.name, err)
				mu.Unlock()
				return
			}
			l.cluster = c
			cnpa := func(args ...string) error {
				cmd := exec.CommandContext(ctx, b.bin.cnpa, append([]string{"--kubeconfig", c.Kubeconfig, "--dir", l.dir, "--no-color"}, args...)...)
				cmd.Env = c.Env()
				out, err := cmd.CombinedOutput()
				if err != nil {
					return fmt.Errorf("cnpa %v: %v\n%s", args, err, tailString(string(out), 1500))
				}
				return nil
			}
			engine := []string{"--engine", cfg.classEngine}
			if err := cnpa(append([]string{"step", "all", "--service-manager", "process", "--unit-dir", l.unitDir, "--quiet", "--timeout", "2m"}, engine...)...); err != nil {
				mu.Lock()
				fail("%s: %v", l.name, err)
				mu.Unlock()
				return
			}
			if err := cnpa("submit", "--learner", l.name, "--out", filepath.Join(subs, l.name+".json"), "--service-manager", "process", "--unit-dir", l.unitDir); err != nil {
				mu.Lock()
				fail("%s: %v", l.name, err)
				mu.Unlock()
				return
			}
			mu.Lock()
			ls[i] = l
			mu.Unlock()
			b.logf("[class] %s: lab done and submitted", l.name)
		}()
	}
	wg.Wait()
	defer func() {
		for _, l := range ls {
			if l != nil && l.cluster != nil {
				stop := exec.Command(b.bin.cnpa, "--kubeconfig", l.cluster.Kubeconfig, "--dir", l.dir, "service", "stop", "--service-manager", "process", "--unit-dir", l.unitDir)
				_ = stop.Run() // the cluster goes next; a loop left running dies with its kubeconfig
				l.cluster.Stop()
			}
		}
	}()
	if len(res.Errors) > 0 {
		return res
	}
	classFile := func(name string, only ...*learner) string {
		p := filepath.Join(work, name)
		s := "learners:\n"
		for _, l := range only {
			s += fmt.Sprintf("- {name: %s, kubeconfig: %s}\n", l.name, l.cluster.Kubeconfig)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			fail("%v", err)
		}
		return p
	}
	grade := func(args ...string) (time.Duration, *syscall.Rusage, error) {
		cmd := exec.CommandContext(ctx, b.bin.cnpa, append([]string{"--no-color", "-o", "csv", "class", "grade"}, args...)...)
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = io.Discard, &stderr
		start := time.Now()
		err := cmd.Run()
		took := time.Since(start)
		if err != nil {
			return took, nil, fmt.Errorf("cnpa class grade %v: %v\n%s", args, err, tailString(stderr.String(), 1500))
		}
		ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		return took, ru, nil
	}
	slowest := 0.0
	for _, l := range ls {
		took, _, err := grade("--live", classFile("class-"+l.name+".yaml", l), "--parallel", "1", filepath.Join(subs, l.name+".json"))
		if err != nil {
			fail("%v", err)
			return res
		}
		res.SingleSeconds = append(res.SingleSeconds, took.Seconds())
		res.SerialSeconds += took.Seconds()
		slowest = max(slowest, took.Seconds())
		b.logf("[class] %s graded live alone in %s", l.name, took.Round(time.Millisecond))
	}
	took, _, err := grade("--live", classFile("class.yaml", ls...), "--parallel", fmt.Sprint(len(ls)), subs)
	if err != nil {
		fail("%v", err)
		return res
	}
	res.ParallelSeconds = took.Seconds()
	res.ParallelOverSlowest = res.ParallelSeconds / slowest
	b.logf("[class] the class of %d graded live at once in %s (%.2f× the slowest alone, serial %.1f s)", len(ls), took.Round(time.Millisecond),
		res.ParallelOverSlowest, res.SerialSeconds)

	if cfg.classOffline > 0 {
		dir := filepath.Join(work, "offline")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			fail("%v", err)
			return res
		}
		for i := 0; i < cfg.classOffline; i++ {
			c, err := classfixture.Good(fmt.Sprintf("synthetic%04d", i), i+1)
			if err == nil {
				_, err = classfixture.Write(dir, c)
			}
			if err != nil {
				fail("synthetic submission %d: %v", i, err)
				return res
			}
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if fi, err := e.Info(); err == nil {
				res.OfflineBytes += fi.Size()
			}
		}
		took, ru, err := grade(dir)
		if err != nil {
			fail("%v", err)
			return res
		}
		res.OfflineSeconds = took.Seconds()
		if ru != nil {
			res.OfflineCPUSeconds = time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
			res.OfflineMaxRSSMiB = float64(ru.Maxrss) / 1024 // kilobytes on Linux
		}
		b.logf("[class] %d synthetic submissions (%.1f MiB) graded offline in %s, CPU %.1f s, max RSS %.1f MiB", cfg.classOffline,
			float64(res.OfflineBytes)/(1<<20), took.Round(time.Millisecond), res.OfflineCPUSeconds, res.OfflineMaxRSSMiB)
	}
	res.LoadAverage = append(res.LoadAverage, loadAverage())
	return res
}

// writeClassMarkdown prints the class phase's table.
func writeClassMarkdown(w io.Writer, r *ClassResult) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "\n### Class: live grading of %d learners (%s engine), offline grading of %d submissions\n\n", r.Learners, r.Engine, r.OfflineN)
	for _, e := range r.Errors {
		fmt.Fprintf(w, "- error: %s\n", e)
	}
	if len(r.SingleSeconds) == 0 {
		return
	}
	fmt.Fprintln(w, "| measure | seconds |")
	fmt.Fprintln(w, "|---|---|")
	for i, s := range r.SingleSeconds {
		fmt.Fprintf(w, "| learner %d alone, live | %.1f |\n", i+1, s)
	}
	fmt.Fprintf(w, "| one at a time (sum) | %.1f |\n", r.SerialSeconds)
	mark := ""
	if r.ParallelOverSlowest > 1.5 {
		mark = " ✗"
	}
	fmt.Fprintf(w, "| all at once, --parallel %d | %.1f (**%.2f×** the slowest alone; target ≤ 1.5×%s) |\n", r.Learners, r.ParallelSeconds, r.ParallelOverSlowest, mark)
	if r.OfflineN > 0 {
		fmt.Fprintf(w, "| %d submissions offline (%.1f MiB) | %.1f (CPU %.1f s, max RSS %.1f MiB) |\n", r.OfflineN, float64(r.OfflineBytes)/(1<<20),
			r.OfflineSeconds, r.OfflineCPUSeconds, r.OfflineMaxRSSMiB)
	}
	fmt.Fprintf(w, "\nload average %s → %s\n", r.LoadAverage[0], r.LoadAverage[len(r.LoadAverage)-1])
}

func tailString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

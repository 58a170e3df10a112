package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
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

// The watch phase (issue 50): `cnpa watch -o json` on step 3 of a lab
// run to step 3 by cnpa's shell engine; reconcile.sh is saved
// watchSaves times as an editor saves (a temporary file renamed over),
// broken and fixed in turn, and each save is timed to the verdict of
// step3.rerun_writes_nothing that says so. The broken script is the
// shell engine's with a label written on alpha in every pass.

// watchSaves is how many saves are timed.
const watchSaves = 10

// watchTarget is the longest a save may take to its verdict.
const watchTarget = 5 * time.Second

// watchCheck is the verdict timed.
const watchCheck = "step3.rerun_writes_nothing"

// WatchResult is the phase's numbers.
type WatchResult struct {
	// Seconds are each save's, save to verdict, in order (broken first).
	Seconds       []float64 `json:"seconds"`
	MedianSeconds float64   `json:"medianSeconds"`
	MaxSeconds    float64   `json:"maxSeconds"`
	// CPUSeconds are cnpa watch's own (user + system), the whole run.
	CPUSeconds  float64  `json:"cpuSeconds"`
	LoadAverage []string `json:"loadAverage"`
	Errors      []string `json:"errors,omitempty"`
}

// runWatch runs the phase on a control plane of its own.
func (b *bench) runWatch(ctx context.Context) *WatchResult {
	res := &WatchResult{LoadAverage: []string{loadAverage()}}
	if err := b.watchSaves(ctx, res); err != nil {
		res.Errors = append(res.Errors, err.Error())
	}
	res.LoadAverage = append(res.LoadAverage, loadAverage())
	if len(res.Seconds) > 0 {
		s := slices.Clone(res.Seconds)
		slices.Sort(s)
		res.MedianSeconds = (s[(len(s)-1)/2] + s[len(s)/2]) / 2
		res.MaxSeconds = s[len(s)-1]
		b.logf("[watch] save to verdict: median %.2f s, max %.2f s over %d saves", res.MedianSeconds, res.MaxSeconds, len(s))
	}
	return res
}

func (b *bench) watchSaves(ctx context.Context, res *WatchResult) error {
	c, err := cluster.Start(ctx, cluster.Options{})
	if err != nil {
		return fmt.Errorf("start control plane: %w", err)
	}
	defer c.Stop()
	base := filepath.Join(b.work, "watch")
	dir, unitDir := filepath.Join(base, "cnpa-op"), filepath.Join(base, "systemd")
	cnpa := func(ctx context.Context, args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, b.bin.cnpa, append([]string{"--kubeconfig", c.Kubeconfig, "--dir", dir, "--no-color"}, args...)...)
		cmd.Env = c.Env()
		return cmd
	}
	svc := []string{"--service-manager", "process", "--unit-dir", unitDir}
	for _, step := range [][]string{{"1"}, {"2"}, {"3", "--engine", "shell"}} {
		if out, err := cnpa(ctx, append(append([]string{"step"}, step...), append([]string{"--quiet", "--timeout", "2m"}, svc...)...)...).CombinedOutput(); err != nil {
			return fmt.Errorf("cnpa step %s: %v\n%s", step[0], err, tailString(string(out), 1500))
		}
	}
	script := filepath.Join(dir, "reconcile.sh")
	fixed, err := os.ReadFile(script)
	if err != nil {
		return err
	}
	first, rest, _ := strings.Cut(string(fixed), "\n")
	broken := first + "\nkubectl label teamspace alpha --overwrite cnpa-bench-stamp=\"$RANDOM$RANDOM\" >/dev/null\n" + rest
	save := func(content string) error {
		tmp := filepath.Join(dir, ".reconcile.sh.swp")
		if err := os.WriteFile(tmp, []byte(content), 0o755); err != nil {
			return err
		}
		return os.Rename(tmp, script)
	}

	wctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
	defer cancel()
	cmd := cnpa(wctx, append([]string{"watch", "-o", "json"}, svc...)...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() {
		_, _ = io.WriteString(stdin, "q")
		_ = cmd.Wait()
		if cmd.ProcessState != nil {
			res.CPUSeconds = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
		}
	}()
	type verdict struct {
		ID, Status string
	}
	verdicts := make(chan verdict, 100)
	go func() {
		defer close(verdicts)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var v verdict
			if json.Unmarshal(sc.Bytes(), &v) == nil && v.ID == watchCheck {
				verdicts <- v
			}
		}
	}()
	await := func(want string) error {
		for {
			select {
			case v, ok := <-verdicts:
				if !ok {
					return fmt.Errorf("cnpa watch ended before %s was %s\n%s", watchCheck, want, tailString(stderr.String(), 1500))
				}
				if v.Status == want {
					return nil
				}
			case <-wctx.Done():
				return fmt.Errorf("no %s %s: %w\n%s", watchCheck, want, wctx.Err(), tailString(stderr.String(), 1500))
			}
		}
	}
	// Watch starts on step 4 after step 3 (the first step not done):
	// the learner goes back to 3, as its key does.
	if _, err := io.WriteString(stdin, "3"); err != nil {
		return err
	}
	if err := await("pass"); err != nil {
		return errors.New("the first judgement: " + err.Error())
	}
	for i := range watchSaves {
		content, want := broken, "fail"
		if i%2 == 1 {
			content, want = string(fixed), "pass"
		}
		if err := save(content); err != nil {
			return err
		}
		start := time.Now()
		if err := await(want); err != nil {
			return fmt.Errorf("save %d: %w", i+1, err)
		}
		res.Seconds = append(res.Seconds, time.Since(start).Seconds())
	}
	return nil
}

// writeWatchMarkdown prints the phase's table.
func writeWatchMarkdown(w io.Writer, r *WatchResult) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "\n### Watch: `cnpa watch`, a save of reconcile.sh to its verdict (target ≤ %s)\n\n", watchTarget)
	fmt.Fprintln(w, "| saves | median | max | each (s) | cnpa watch CPU | load average |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|")
	mark := ""
	if r.MaxSeconds > watchTarget.Seconds() {
		mark = " ✗"
	}
	var each []string
	for _, s := range r.Seconds {
		each = append(each, fmt.Sprintf("%.2f", s))
	}
	fmt.Fprintf(w, "| %d | %.2f s | %.2f s%s | %s | %.1f s | %v |\n", len(r.Seconds), r.MedianSeconds, r.MaxSeconds, mark,
		strings.Join(each, " "), r.CPUSeconds, r.LoadAverage)
	for _, e := range r.Errors {
		fmt.Fprintf(w, "\nwatch: %s\n", e)
	}
}

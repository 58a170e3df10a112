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
	CPUSeconds float64 `json:"cpuSeconds"`
	// EvidenceSeconds are saves of an evidence file (reconcile.json,
	// wrong and right in turn), each to its rule's verdict (target 1 s).
	EvidenceSeconds []float64 `json:"evidenceSeconds,omitempty"`
	// ControllerSeconds are saves of reconcile.sh with the learner on
	// step 5 and the service running, each to the verdict of the drift
	// probe of the running controller (target 5 s).
	ControllerSeconds []float64 `json:"controllerSeconds,omitempty"`
	LoadAverage       []string  `json:"loadAverage"`
	Errors            []string  `json:"errors,omitempty"`
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
	verdicts := make(chan verdict, 1000)
	go func() {
		defer close(verdicts)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var v verdict
			if json.Unmarshal(sc.Bytes(), &v) == nil {
				select {
				case verdicts <- v:
				default:
				}
			}
		}
	}()
	// awaitID reads verdicts until id's is want ("": any).
	awaitID := func(id, want string) error {
		for {
			select {
			case v, ok := <-verdicts:
				if !ok {
					return fmt.Errorf("cnpa watch ended before %s was %s\n%s", id, want, tailString(stderr.String(), 1500))
				}
				if v.ID == id && (want == "" || v.Status == want) {
					return nil
				}
			case <-wctx.Done():
				return fmt.Errorf("no %s %s: %w\n%s", id, want, wctx.Err(), tailString(stderr.String(), 1500))
			}
		}
	}
	await := func(want string) error { return awaitID(watchCheck, want) }
	drain := func() {
		for {
			select {
			case <-verdicts:
			default:
				return
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

	// An evidence file: reconcile.json saved wrong and right in turn, each
	// timed to its rule's verdict.
	evidence := filepath.Join(dir, "reconcile.json")
	right, err := os.ReadFile(evidence)
	if err != nil {
		return err
	}
	wrong := strings.Replace(string(right), `"second_pass_rv_changed": false`, `"second_pass_rv_changed": true`, 1)
	if wrong == string(right) {
		return fmt.Errorf("reconcile.json has no second_pass_rv_changed false:\n%s", right)
	}
	saveFile := func(path, content string, mode os.FileMode) error {
		tmp := filepath.Join(dir, "."+filepath.Base(path)+".swp")
		if err := os.WriteFile(tmp, []byte(content), mode); err != nil {
			return err
		}
		return os.Rename(tmp, path)
	}
	for i := range watchSaves {
		content, want := wrong, "fail"
		if i%2 == 1 {
			content, want = string(right), "pass"
		}
		drain()
		start := time.Now()
		if err := saveFile(evidence, content, 0o644); err != nil {
			return err
		}
		if err := awaitID("step3.second_pass_rv_changed", want); err != nil {
			return fmt.Errorf("evidence save %d: %w", i+1, err)
		}
		res.EvidenceSeconds = append(res.EvidenceSeconds, time.Since(start).Seconds())
	}

	// The controller: step 4 installs and starts the service (watch
	// waits for it), the learner goes to step 5, and each save of
	// reconcile.sh is timed to the drift probe's verdict.
	if out, err := cnpa(ctx, append([]string{"step", "4", "--quiet", "--timeout", "2m"}, svc...)...).CombinedOutput(); err != nil {
		return fmt.Errorf("cnpa step 4: %v\n%s", err, tailString(string(out), 1500))
	}
	const drift = "step5.drift_reverted_live"
	if _, err := io.WriteString(stdin, "5"); err != nil {
		return err
	}
	if err := awaitID(drift, ""); err != nil {
		return errors.New("step 5's first judgement: " + err.Error())
	}
	for i := range 3 {
		drain()
		start := time.Now()
		if err := save(string(fixed)); err != nil {
			return err
		}
		if err := awaitID(drift, "pass"); err != nil {
			return fmt.Errorf("controller save %d: %w", i+1, err)
		}
		res.ControllerSeconds = append(res.ControllerSeconds, time.Since(start).Seconds())
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
	for _, row := range []struct {
		what string
		s    []float64
	}{{"an evidence file (reconcile.json) to its rule's verdict, target 1 s", r.EvidenceSeconds},
		{"reconcile.sh on step 5, service running, to the drift probe's verdict, target 5 s", r.ControllerSeconds}} {
		if len(row.s) == 0 {
			continue
		}
		var each []string
		for _, s := range row.s {
			each = append(each, fmt.Sprintf("%.2f", s))
		}
		fmt.Fprintf(w, "\n%s: %s s\n", row.what, strings.Join(each, " "))
	}
	for _, e := range r.Errors {
		fmt.Fprintf(w, "\nwatch: %s\n", e)
	}
}

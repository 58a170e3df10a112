package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/labhub/cnpa/test/kit/cluster"
)

// The stress phase (issues 51 and 60): `cnpa stress`, every default
// fault, on a fresh control plane after `cnpa step all`, for each engine
// of -stress-engines; the whole run must take at most stressTarget on 2
// cores.

// stressTarget is the longest a whole `cnpa stress` may take (issue 60:
// 4 minutes, with stable judged after every fault).
const stressTarget = 4 * time.Minute

// StressRow is one engine's run.
type StressRow struct {
	Engine string `json:"engine"`
	// Seconds is the whole `cnpa stress` command, cleanup included; its
	// CPU seconds are cnpa's own (user + system, proxy included).
	Seconds    float64 `json:"seconds"`
	CPUSeconds float64 `json:"cpuSeconds"`
	Passed     int     `json:"passed"`
	Failed     int     `json:"failed"`
	// Faults are each fault's seconds, by name.
	Faults map[string]float64 `json:"faults"`
	// Stable is each fault's time to stable (eventually stable
	// reconciliation: the last change, after the fault's end, before
	// three quiet passes), by name; a fault never stable has none.
	Stable      map[string]float64 `json:"stable,omitempty"`
	LoadAverage []string           `json:"loadAverage"`
}

// StressResult is the phase's numbers.
type StressResult struct {
	Rows   []StressRow `json:"rows"`
	Errors []string    `json:"errors,omitempty"`
}

// runStress runs the lab and then `cnpa stress` for each engine.
func (b *bench) runStress(ctx context.Context) *StressResult {
	res := &StressResult{}
	for _, engine := range b.cfg.stressEngines {
		row, err := b.stressOne(ctx, engine)
		if err != nil {
			res.Errors = append(res.Errors, fmt.Sprintf("%s: %v", engine, err))
			continue
		}
		b.logf("[stress] %s: %.1f s (%.1f CPU s), %d passed, %d failed", engine, row.Seconds, row.CPUSeconds, row.Passed, row.Failed)
		res.Rows = append(res.Rows, *row)
	}
	return res
}

func (b *bench) stressOne(ctx context.Context, engine string) (*StressRow, error) {
	c, err := cluster.Start(ctx, cluster.Options{})
	if err != nil {
		return nil, fmt.Errorf("start control plane: %w", err)
	}
	defer c.Stop()
	base := filepath.Join(b.work, "stress-"+engine)
	dir, unitDir := filepath.Join(base, "cnpa-op"), filepath.Join(base, "systemd")
	cnpa := func(args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, b.bin.cnpa, append([]string{"--kubeconfig", c.Kubeconfig, "--dir", dir, "--no-color"}, args...)...)
		cmd.Env = c.Env()
		return cmd
	}
	svc := []string{"--service-manager", "process", "--unit-dir", unitDir}
	defer cnpa(append([]string{"service", "stop"}, svc...)...).Run()
	if out, err := cnpa(append([]string{"step", "all", "--engine", engine, "--quiet", "--timeout", "2m"}, svc...)...).CombinedOutput(); err != nil {
		return nil, fmt.Errorf("cnpa step all: %v\n%s", err, tailString(string(out), 1500))
	}
	b.logf("[stress] %s: lab done; cnpa stress", engine)
	row := &StressRow{Engine: engine, Faults: map[string]float64{}, Stable: map[string]float64{}, LoadAverage: []string{loadAverage()}}
	cmd := cnpa(append([]string{"stress", "-o", "json"}, svc...)...)
	cmd.Stderr = io.Discard
	start := time.Now()
	out, err := cmd.Output()
	row.Seconds = time.Since(start).Seconds()
	if cmd.ProcessState != nil {
		row.CPUSeconds = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	}
	row.LoadAverage = append(row.LoadAverage, loadAverage())
	var rep struct {
		Passed, Failed int
		Faults         []struct {
			Name         string   `json:"name"`
			Seconds      float64  `json:"seconds"`
			TimeToStable *float64 `json:"time_to_stable"`
		} `json:"faults"`
	}
	if jerr := json.Unmarshal(out, &rep); jerr != nil {
		return nil, fmt.Errorf("cnpa stress: %v, output does not parse: %v\n%s", err, jerr, tailString(string(out), 1500))
	}
	row.Passed, row.Failed = rep.Passed, rep.Failed
	for _, f := range rep.Faults {
		row.Faults[f.Name] = f.Seconds
		if f.TimeToStable != nil {
			row.Stable[f.Name] = *f.TimeToStable
		}
	}
	return row, nil
}

// writeStressMarkdown prints the phase's table.
func writeStressMarkdown(w io.Writer, r *StressResult) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "\n### Stress: `cnpa stress`, every fault, after `cnpa step all` (target ≤ %s on 2 cores)\n\n", stressTarget)
	fmt.Fprintln(w, "| engine | whole run | cnpa CPU | passed | failed | slowest fault | longest time to stable | load average |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|")
	for _, row := range r.Rows {
		mark := ""
		if row.Seconds > stressTarget.Seconds() {
			mark = " ✗"
		}
		slowest, at := "", 0.0
		for name, s := range row.Faults {
			if s > at {
				slowest, at = name, s
			}
		}
		unstable, longest := "", 0.0
		for name, s := range row.Stable {
			if s >= longest {
				unstable, longest = name, s
			}
		}
		fmt.Fprintf(w, "| %s | %.1f s%s | %.1f s | %d | %d | %s %.1f s | %s %.1f s | %v |\n", row.Engine, row.Seconds, mark, row.CPUSeconds,
			row.Passed, row.Failed, slowest, at, unstable, longest, row.LoadAverage)
	}
	for _, e := range r.Errors {
		fmt.Fprintf(w, "\nstress: %s\n", e)
	}
}

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The start-up phase (issue 41): the message catalogs must not cost cnpa
// what our test kubectl saved by skipping its translations. `cnpa version`
// (which prints no catalog message) and `cnpa explain 5` (which reads one
// catalog), in English and in Japanese, timed against the build before the
// catalogs (-startup-before), runs of the two builds interleaved so that
// the machine's load falls on both alike. No control plane.

// defaultStartupBefore is the last commit before the catalogs (issue 41's
// first round): the build the start-up is compared with.
const defaultStartupBefore = "dbef3eb"

// startupCommands are what is timed, each in every startupLangs.
var startupCommands = [][]string{{"version"}, {"explain", "5"}}

// startupLangs are the locales: LANG as a learner's shell has it.
var startupLangs = []string{"en_US.UTF-8", "ja_JP.UTF-8"}

// StartupRow is one command in one locale: medians of wall and CPU (user +
// system) time in milliseconds, before and after, and the CPU ratio, the
// figure to read on a shared machine.
type StartupRow struct {
	Command      string  `json:"command"`
	Lang         string  `json:"lang"`
	BeforeWallMS float64 `json:"beforeWallMs"`
	BeforeCPUMS  float64 `json:"beforeCpuMs"`
	AfterWallMS  float64 `json:"afterWallMs"`
	AfterCPUMS   float64 `json:"afterCpuMs"`
	// Ratio is AfterCPUMS / BeforeCPUMS; the target is at most 1.1.
	Ratio float64 `json:"ratio"`
}

// StartupResult is the phase's numbers.
type StartupResult struct {
	Before string       `json:"before"`
	Runs   int          `json:"runs"`
	Rows   []StartupRow `json:"rows"`
	Errors []string     `json:"errors,omitempty"`
}

// runStartup builds cnpa as it was at cfg.startupBefore (from git, in the
// work dir) and as it is, and times both builds.
func (b *bench) runStartup(ctx context.Context, root string) *StartupResult {
	res := &StartupResult{Before: b.cfg.startupBefore, Runs: b.cfg.startupRuns}
	before := filepath.Join(b.work, "before")
	if err := os.MkdirAll(before, 0o755); err != nil {
		res.Errors = append(res.Errors, err.Error())
		return res
	}
	b.logf("[startup] building cnpa at %s", b.cfg.startupBefore)
	// git archive | tar: the tree as it was, without a second work tree
	// in the repository's metadata.
	archive := exec.CommandContext(ctx, "bash", "-c", `git -C "$1" archive --format=tar "$2" | tar -x -C "$3"`, "bash", root, b.cfg.startupBefore, before)
	if out, err := archive.CombinedOutput(); err != nil {
		res.Errors = append(res.Errors, fmt.Sprintf("the tree at %s (git history needed; a shallow clone has none): %v: %s", b.cfg.startupBefore, err, firstLine(string(out))))
		return res
	}
	// Both builds alike (goBuild, no flags): the ratio is then the
	// code's, not the build flags'. The cnpa prepare built is one; one
	// given with -cnpa may be built otherwise, so this one is built again.
	old, now := filepath.Join(before, "cnpa"), b.bin.cnpa
	if err := goBuild(ctx, before, old, "./cmd/cnpa"); err != nil {
		res.Errors = append(res.Errors, fmt.Sprintf("build cnpa at %s: %v", b.cfg.startupBefore, err))
		return res
	}
	if now == "" || b.cfg.cnpaBin != "" {
		now = filepath.Join(b.work, "cnpa-now")
		if err := goBuild(ctx, root, now, "./cmd/cnpa"); err != nil {
			res.Errors = append(res.Errors, fmt.Sprintf("build cnpa: %v", err))
			return res
		}
	}
	for _, cmd := range startupCommands {
		for _, lang := range startupLangs {
			// The two builds, run in turns, the order swapped each run.
			type timings struct {
				bin       string
				wall, cpu []float64
			}
			pre, post := &timings{bin: old}, &timings{bin: now}
			for i := 0; i < b.cfg.startupRuns && ctx.Err() == nil; i++ {
				turn := []*timings{pre, post}
				if i%2 == 1 {
					slices.Reverse(turn)
				}
				for _, t := range turn {
					wall, cpu, err := timeOnce(ctx, t.bin, lang, cmd)
					if err != nil {
						res.Errors = append(res.Errors, fmt.Sprintf("%s %v (LANG=%s): %v", t.bin, cmd, lang, err))
						return res
					}
					t.wall, t.cpu = append(t.wall, wall), append(t.cpu, cpu)
				}
			}
			row := StartupRow{Command: "cnpa " + strings.Join(cmd, " "), Lang: lang,
				BeforeWallMS: median(pre.wall), BeforeCPUMS: median(pre.cpu), AfterWallMS: median(post.wall), AfterCPUMS: median(post.cpu)}
			if row.BeforeCPUMS > 0 {
				row.Ratio = row.AfterCPUMS / row.BeforeCPUMS
			}
			b.logf("[startup] %s, LANG=%s: CPU %.1f → %.1f ms (%.2f×)", row.Command, lang, row.BeforeCPUMS, row.AfterCPUMS, row.Ratio)
			res.Rows = append(res.Rows, row)
		}
	}
	return res
}

// timeOnce runs bin args once with LANG=lang and nothing else of the
// locale, and returns its wall and CPU (user + system) time in ms.
func timeOnce(ctx context.Context, bin, lang string, args []string) (wall, cpu float64, err error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(), "LANG=" + lang, "NO_COLOR=1"}
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return 0, 0, err
	}
	wall = float64(time.Since(start)) / float64(time.Millisecond)
	cpu = float64(cmd.ProcessState.UserTime()+cmd.ProcessState.SystemTime()) / float64(time.Millisecond)
	return wall, cpu, nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// writeStartupMarkdown prints the phase's table, side by side.
func writeStartupMarkdown(w io.Writer, r *StartupResult) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "\n### Start-up: the build before the catalogs (%s) and this one, %d interleaved runs each, medians\n\n", r.Before, r.Runs)
	fmt.Fprintln(w, "| command | LANG | before: wall, CPU | after: wall, CPU | after/before (CPU; target ≤ 1.1×) |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, row := range r.Rows {
		mark := ""
		if row.Ratio > 1.1 {
			mark = " ✗"
		}
		fmt.Fprintf(w, "| `%s` | %s | %.1f ms, %.1f ms | %.1f ms, %.1f ms | %.2f×%s |\n", row.Command, row.Lang,
			row.BeforeWallMS, row.BeforeCPUMS, row.AfterWallMS, row.AfterCPUMS, row.Ratio, mark)
	}
	for _, e := range r.Errors {
		fmt.Fprintf(w, "\nstart-up: %s\n", e)
	}
}

// Command pictures makes the README's two pictures from a real lab run on
// the embedded control plane (kubebox), so that they show what cnpa does
// today: `make pictures` runs it.
//
//   - docs/step5-terminal.png: `cnpa step 5` as a learner's terminal shows
//     it, colours included: run in tmux, captured with `capture-pane -e`,
//     turned into HTML (ansi.go) and photographed by headless Chromium;
//   - docs/report.png: the top of the page `cnpa report --html` makes of
//     the same run, after `cnpa check`.
//
// Phases: start the control plane; cnpa step 1-4; step 5 inside tmux;
// steps 6-8 and check; the report; both screenshots. It needs tmux and
// Chromium (.ci/run installs Chromium; kit.FindBrowser says how).
//
//	pictures [-out docs] [-cnpa .bin/cnpa] [-engine go|shell] [-cols 140] [-report-height 3400]
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

func main() {
	out := flag.String("out", "docs", "directory for the PNGs")
	cnpa := flag.String("cnpa", ".bin/cnpa", "cnpa binary")
	engine := flag.String("engine", "go", "engine: go or shell")
	// Wide enough for step 5's timeline lines, which carry uids.
	cols := flag.Int("cols", 140, "terminal width in columns for the step 5 capture")
	height := flag.Int("report-height", 3400, "crop the report's picture to its top `PX` pixels (0: the whole page)")
	flag.Parse()
	if err := run(*out, *cnpa, *engine, *cols, *height); err != nil {
		fmt.Fprintln(os.Stderr, "pictures:", err)
		os.Exit(1)
	}
}

func run(outDir, cnpa, engine string, cols, reportHeight int) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Minute)
	defer cancel()
	browser, err := kit.FindBrowser()
	if err != nil {
		return err
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		return fmt.Errorf("tmux is needed for the terminal capture: apt-get install -y tmux")
	}
	if cnpa, err = filepath.Abs(cnpa); err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	c, err := cluster.Start(ctx, cluster.Options{})
	if err != nil {
		return err
	}
	defer c.Stop()
	work := filepath.Join(c.Dir, "pictures")
	dir := filepath.Join(c.Dir, "cnpa-op")
	unitDir := filepath.Join(c.Dir, "systemd")
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	base := []string{"--kubeconfig", c.Kubeconfig, "--dir", dir}
	cnpaRun := func(ctx context.Context, args ...string) error {
		fmt.Printf("$ cnpa %s\n", strings.Join(args, " "))
		cmd := exec.CommandContext(ctx, cnpa, append(append([]string{}, base...), args...)...)
		cmd.Env = c.Env()
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("cnpa %s: %w", strings.Join(args, " "), err)
		}
		return nil
	}
	// The service runs detached; it goes before the cluster does.
	defer cnpaRun(context.Background(), "service", "stop")

	for _, n := range []string{"1", "2", "3", "4"} {
		args := []string{"step", n}
		if n == "1" {
			args = append(args, "--engine", engine, "--service-manager", "process", "--unit-dir", unitDir)
		}
		if err := cnpaRun(ctx, args...); err != nil {
			return err
		}
	}
	ansi, err := inTmux(ctx, work, cols, c.Env(), cnpa, append(append([]string{}, base...), "step", "5"))
	if err != nil {
		return err
	}
	for _, args := range [][]string{{"step", "6"}, {"step", "7"}, {"step", "8"}, {"check"}} {
		if err := cnpaRun(ctx, args...); err != nil {
			return err
		}
	}
	page := filepath.Join(work, "report.html")
	if err := cnpaRun(ctx, "report", "--html", page); err != nil {
		return err
	}

	term := filepath.Join(outDir, "step5-terminal.png")
	if err := terminalPicture(ctx, browser, work, ansi, cols, term); err != nil {
		return err
	}
	report := filepath.Join(outDir, "report.png")
	if err := fullPage(ctx, browser, work, "file://"+page, 1100, reportHeight, report); err != nil {
		return err
	}
	fmt.Printf("pictures: wrote %s and %s\n", term, report)
	return nil
}

// inTmux runs cnpa args in a detached tmux session of its own (a private
// socket: nobody else's tmux is touched) as a learner's terminal would, and
// returns the whole pane, colours kept, once the command has ended.
func inTmux(ctx context.Context, work string, cols int, env []string, cnpa string, args []string) (string, error) {
	socket := fmt.Sprintf("cnpa-pictures-%d", os.Getpid())
	conf := filepath.Join(work, "tmux.conf")
	script := filepath.Join(work, "step.sh")
	status := filepath.Join(work, "step.status")
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	// The prompt line shows the command as a learner types it, without the
	// test cluster's flags.
	shown := "cnpa " + strings.Join(args[len(args)-2:], " ")
	os.WriteFile(conf, []byte("set -g history-limit 20000\nset -g status off\n"), 0o644)
	os.WriteFile(script, []byte(fmt.Sprintf(`unset NO_COLOR
printf '\033[1;32m$\033[0m %%s\n' %q
'%s' %s
echo $? > '%s'
tmux -L '%s' wait-for -S step-done
exec sleep 3600
`, shown, cnpa, strings.Join(quoted, " "), status, socket)), 0o644)
	tmux := func(ctx context.Context, a ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, "tmux", append([]string{"-L", socket, "-f", conf}, a...)...)
		cmd.Env = append(env, "TERM=xterm-256color")
		return cmd.CombinedOutput()
	}
	if out, err := tmux(ctx, "new-session", "-d", "-s", "pictures", "-x", fmt.Sprint(cols), "-y", "50", "bash "+script); err != nil {
		return "", fmt.Errorf("tmux new-session: %v\n%s", err, out)
	}
	defer tmux(context.Background(), "kill-server") // our socket's server only
	if out, err := tmux(ctx, "wait-for", "step-done"); err != nil {
		return "", fmt.Errorf("waiting for %s in tmux: %v\n%s", shown, err, out)
	}
	code, _ := os.ReadFile(status)
	pane, err := tmux(ctx, "capture-pane", "-p", "-e", "-S", "-", "-E", "-", "-t", "pictures")
	if err != nil {
		return "", fmt.Errorf("tmux capture-pane: %v\n%s", err, pane)
	}
	if strings.TrimSpace(string(code)) != "0" {
		return "", fmt.Errorf("%s exited %s in tmux:\n%s", shown, strings.TrimSpace(string(code)), pane)
	}
	return strings.TrimRight(string(pane), "\n "), nil
}

// Terminal geometry of the rendered capture, in CSS pixels: DejaVu Sans
// Mono advances 0.602 em, so 14 px gives 8.43 px per column.
const (
	fontPx   = 14
	linePx   = 18
	colPx    = 8.43
	padPx    = 18
	headerPx = 30
)

// terminalPicture renders the capture as a terminal window and
// photographs it at exactly its size.
func terminalPicture(ctx context.Context, b *kit.Browser, work, ansi string, cols int, pngPath string) error {
	lines := strings.Count(ansi, "\n") + 1
	width := int(float64(cols)*colPx) + 2*padPx + 4
	height := headerPx + lines*linePx + 2*padPx
	page := fmt.Sprintf(`<!DOCTYPE html><html><head><meta charset="utf-8"><style>
html, body { margin: 0; background: #1e2127; }
.bar { height: %dpx; background: #2c313a; display: flex; align-items: center; padding: 0 12px; gap: 8px;
  font: 12px "DejaVu Sans", sans-serif; color: #9aa1ad; }
.bar i { width: 12px; height: 12px; border-radius: 6px; display: inline-block; }
pre { margin: 0; padding: %dpx; color: #d0d4db; font: %dpx/%dpx "DejaVu Sans Mono", monospace; white-space: pre; }
</style></head><body><div class="bar"><i style="background:#ff5f56"></i><i style="background:#ffbd2e"></i><i style="background:#27c93f"></i>
<span style="margin-left:8px">%s</span></div><pre>%s</pre></body></html>`,
		headerPx, padPx, fontPx, linePx, html.EscapeString("learner@lab-vm: ~"), ansiToHTML(ansi))
	file := filepath.Join(work, "terminal.html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		return err
	}
	return b.Screenshot(ctx, work, "file://"+file, pngPath, width, height)
}

// fullPage photographs a page whole: a window taller than any report,
// then the empty background below the page is cut off, and all below
// maxHeight pixels when it is not 0 (a README picture need not hold every
// step: the summary, the first steps and a chart tell what the page is).
func fullPage(ctx context.Context, b *kit.Browser, work, url string, width, maxHeight int, pngPath string) error {
	tmp := filepath.Join(work, "tall.png")
	if err := b.Screenshot(ctx, work, url, tmp, width, 12000); err != nil {
		return err
	}
	data, err := os.ReadFile(tmp)
	if err != nil {
		return err
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return err
	}
	bounds := img.Bounds()
	bg := img.At(bounds.Min.X, bounds.Max.Y-1)
	last := bounds.Min.Y
	for y := bounds.Max.Y - 1; y >= bounds.Min.Y; y-- {
		if !rowIs(img, y, bg) {
			last = y
			break
		}
	}
	bottom := min(bounds.Max.Y, last+24)
	if maxHeight > 0 {
		bottom = min(bottom, bounds.Min.Y+maxHeight)
	}
	cut := image.Rect(bounds.Min.X, bounds.Min.Y, bounds.Max.X, bottom)
	sub, ok := img.(interface {
		SubImage(image.Rectangle) image.Image
	})
	if !ok {
		return fmt.Errorf("%s: cannot crop a %T", tmp, img)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, sub.SubImage(cut)); err != nil {
		return err
	}
	return os.WriteFile(pngPath, buf.Bytes(), 0o644)
}

func rowIs(img image.Image, y int, c color.Color) bool {
	r0, g0, b0, _ := c.RGBA()
	for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
		r, g, b, _ := img.At(x, y).RGBA()
		if r != r0 || g != g0 || b != b0 {
			return false
		}
	}
	return true
}

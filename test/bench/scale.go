package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ScaleStep is one population of the scale phase: the latencies, the idle
// cost and the memory with Others TeamSpaces present.
type ScaleStep struct {
	// Size is the background population asked for (-scale-sizes); Others
	// is how many TeamSpaces existed when the samples began (the size,
	// the warm-up and the earlier steps' samples).
	Size   int `json:"size"`
	Others int `json:"others"`
	// Background is the creation of the TeamSpaces added since the
	// previous step (nil at the first step when nothing was added).
	Background   *Batch `json:"background,omitempty"`
	Convergence  *Dist  `json:"convergence,omitempty"`
	DriftRestore *Dist  `json:"driftRestore,omitempty"`
	DriftRevert  *Dist  `json:"driftRevert,omitempty"`
	Idle         *Idle  `json:"idle,omitempty"`
	// RSS is the process's VmRSS (now) and VmHWM (peak so far) right
	// after the idle window, in MiB; RSSPerThousandMiB is VmRSS minus the
	// first step's, per 1,000 TeamSpaces added since.
	RSSMiB     float64 `json:"rssMiB,omitempty"`
	PeakRSSMiB float64 `json:"peakRssMiB,omitempty"`
	// RSSAnonMiB and RSSFileMiB split VmRSS, read at the same moment:
	// RssAnon is the process's own memory (heap, stacks), RssFile the
	// pages of its binary mapped in, shared with the page cache. At small
	// N the binary's pages are most of VmRSS, so the split says whether a
	// ratio there is about memory the controller uses or about its size.
	RSSAnonMiB        float64 `json:"rssAnonMiB,omitempty"`
	RSSFileMiB        float64 `json:"rssFileMiB,omitempty"`
	RSSPerThousandMiB float64 `json:"rssPerThousandMiB,omitempty"`
	// Queue is workqueue_queue_duration_seconds over the samples (the
	// contender's /metrics, scraped before and after), by queue name: how
	// long a name waited before a worker took it. Only for contenders
	// that serve it.
	Queue map[string]*Histogram `json:"queue,omitempty"`
	// CPUProfile is a CPU profile taken during the samples (contenders
	// that serve net/http/pprof).
	CPUProfile string `json:"cpuProfile,omitempty"`
	// PassSeconds is cnpa_resync_pass_seconds after the idle window: how
	// long cnpa's last periodic full pass took at this size, so how late a
	// lost event can be caught.
	PassSeconds float64 `json:"passSeconds,omitempty"`
	// PassSynced is cnpa_resync_pass_synced at the same moment: how many
	// names that pass handed to the workers (the others were in order
	// from the same cached objects); nil for contenders without it.
	PassSynced *float64 `json:"passSynced,omitempty"`
}

// Histogram is a Prometheus histogram's increase over a window:
// cumulative counts by upper bound in seconds (+Inf last).
type Histogram struct {
	Buckets []Bucket `json:"buckets"`
	Count   float64  `json:"count"`
	SumSec  float64  `json:"sumSeconds"`
}

// Bucket is one cumulative bucket.
type Bucket struct {
	LE    string  `json:"le"`
	Count float64 `json:"count"`
}

// scaleObservable is a contender the scale phase can look inside:
// memory now, and the controller's own metrics and profiles.
type scaleObservable interface {
	// StatusNow is /proc/<pid>/status's memory lines now.
	StatusNow() map[string]int64
	// MetricsURL is where the controller serves Prometheus metrics ("" if
	// nowhere); PprofURL where it serves net/http/pprof.
	MetricsURL() string
	PprofURL() string
}

func (p *procContender) StatusNow() map[string]int64 {
	if p.cmd == nil || p.cmd.Process == nil {
		return nil
	}
	return procStatus(p.cmd.Process.Pid)
}

func (p *procContender) MetricsURL() string {
	if p.metricsAddr == "" {
		return ""
	}
	return "http://" + p.metricsAddr + "/metrics"
}

func (p *procContender) PprofURL() string {
	if p.pprofAddr == "" {
		return ""
	}
	return "http://" + p.pprofAddr + "/debug/pprof"
}

// phaseScale runs one contender on one control plane while its population
// grows through -scale-sizes: at each size, after the background is in
// sync and the contender has settled, convergence and drift samples, the
// idle window and a memory read. One control plane for every size, so
// the step from 10,000 to 20,000 creates 10,000, not 20,000.
func (b *bench) phaseScale(ctx context.Context, name string, res *Result) error {
	_, err := b.inPhase(ctx, name, "scale", res, func(c contender, e *env, wrap func(string, error) error) error {
		return b.scale(ctx, name, c, e, wrap, res)
	})
	return err
}

func (b *bench) scale(ctx context.Context, name string, c contender, e *env, wrap func(string, error) error, res *Result) error {
	b.logf("[%s] scale: control plane %s up; warming up", name, e.cluster.Server)
	if _, err := b.converge(ctx, e, c, "warm-0", b.cfg.warmTimeout); err != nil {
		return wrap("warm-up", err)
	}
	obs, _ := c.(scaleObservable)
	created := 0
	var baseRSS float64
	for i, n := range b.cfg.scaleSizes {
		step := &ScaleStep{Size: n}
		if add := n - created; add > 0 {
			bg, err := b.batch(ctx, e, c, fmt.Sprintf("s%d", i), add)
			if err != nil {
				return wrap(fmt.Sprintf("background to %d", n), err)
			}
			step.Background = bg
			created = n
			b.logf("[%s] scale: %d more TeamSpaces in sync in %.1fs (%d background)", name, add, bg.InSyncSeconds, n)
		}
		b.settle(ctx, e, name)
		step.Others = e.obs.count()
		// The harness's own collection, now rather than during the
		// samples: its observer caches every TeamSpace, namespace and
		// quota (69 MB live at 10,000), and a forced GC of it (the runtime
		// forces one every 2 minutes) once took 259 ms of a core in the
		// middle of the reverts, the two slowest of them 52 and 42 ms
		// against 10-15. The samples allocate little, so none starts in
		// the ~10 s they take. The same for every contender.
		runtime.GC()

		before := scrapeHistograms(obs, "workqueue_queue_duration_seconds")
		profile := b.startProfile(ctx, obs, filepath.Join(e.dir, fmt.Sprintf("cpu-%d.pprof", n)))
		var err error
		if step.Convergence, _, err = b.convergence(ctx, e, c, nil, fmt.Sprintf("s%dc", i)); err != nil {
			return wrap(fmt.Sprintf("convergence at %d", n), err)
		}
		if step.DriftRestore, step.DriftRevert, err = b.drift(ctx, e, c, fmt.Sprintf("s%dc-0", i)); err != nil {
			return wrap(fmt.Sprintf("drift at %d", n), err)
		}
		step.CPUProfile = profile()
		if after := scrapeHistograms(obs, "workqueue_queue_duration_seconds"); after != nil {
			step.Queue = map[string]*Histogram{}
			for q, h := range after {
				step.Queue[q] = h.sub(before[q])
			}
		}
		b.logf("[%s] scale N=%d: convergence %s; restore %s; revert %s", name, step.Others,
			step.Convergence, step.DriftRestore, step.DriftRevert)
		for q, h := range step.Queue {
			b.logf("[%s] scale N=%d: queue %q wait: %s", name, step.Others, q, h)
		}

		if step.Idle, err = b.idle(ctx, e, c, name); err != nil {
			return wrap(fmt.Sprintf("idle at %d", n), err)
		}
		step.PassSeconds = scrapeGauge(obs, "cnpa_resync_pass_seconds")
		if step.PassSeconds > 0 {
			synced := scrapeGauge(obs, "cnpa_resync_pass_synced")
			step.PassSynced = &synced
		}
		if obs != nil {
			if st := obs.StatusNow(); st != nil {
				step.RSSMiB, step.PeakRSSMiB = mib(st["VmRSS"]), mib(st["VmHWM"])
				step.RSSAnonMiB, step.RSSFileMiB = mib(st["RssAnon"]), mib(st["RssFile"])
				if i == 0 {
					baseRSS = step.RSSMiB
				} else if grown := step.Others - res.Scale[0].Others; grown > 0 {
					step.RSSPerThousandMiB = math.Round((step.RSSMiB-baseRSS)/float64(grown)*1000*100) / 100
				}
			}
		}
		b.logf("[%s] scale N=%d: idle own requests/min %v; RSS %.1f MiB (peak %.1f, anon %.1f, file %.1f); last full pass %.3fs, handed over %v",
			name, step.Others, step.Idle.ContenderPerMinute, step.RSSMiB, step.PeakRSSMiB, step.RSSAnonMiB, step.RSSFileMiB,
			step.PassSeconds, fmtPtr(step.PassSynced))
		res.Scale = append(res.Scale, step)
	}
	return nil
}

func fmtPtr(f *float64) string {
	if f == nil {
		return "-"
	}
	return strconv.FormatFloat(*f, 'f', -1, 64)
}

func mib(b int64) float64 { return math.Round(float64(b)/(1<<20)*10) / 10 }

// startProfile starts a CPU profile of the contender, if it serves pprof,
// for -scale-profile; the returned func waits for it and gives its path
// (or why there is none). The profile covers the samples only when they
// take at least as long: it is a picture of where the time goes, not a
// measurement.
func (b *bench) startProfile(ctx context.Context, obs scaleObservable, path string) func() string {
	if obs == nil || obs.PprofURL() == "" || b.cfg.scaleProfile <= 0 {
		return func() string { return "" }
	}
	done := make(chan string, 1)
	go func() {
		url := fmt.Sprintf("%s/profile?seconds=%d", obs.PprofURL(), int(b.cfg.scaleProfile.Seconds()))
		if err := fetchWithin(ctx, url, path, b.cfg.scaleProfile+30*time.Second); err != nil {
			done <- "not taken: " + err.Error()
			return
		}
		done <- path
	}()
	return func() string { return <-done }
}

func fetchWithin(ctx context.Context, url, path string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// scrapeHistograms reads one histogram metric from the contender's
// /metrics, by its "name" label; nil when the contender serves none or the
// scrape fails (the step is then reported without it).
func scrapeHistograms(obs scaleObservable, metric string) map[string]*Histogram {
	if obs == nil || obs.MetricsURL() == "" {
		return nil
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(obs.MetricsURL())
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	h, err := parseHistograms(resp.Body, metric)
	if err != nil {
		return nil
	}
	return h
}

// scrapeGauge reads one unlabelled gauge from the contender's /metrics; 0
// when it serves none.
func scrapeGauge(obs scaleObservable, metric string) float64 {
	if obs == nil || obs.MetricsURL() == "" {
		return 0
	}
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(obs.MetricsURL())
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	s := bufio.NewScanner(resp.Body)
	s.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), metric+" "); ok {
			f, _ := strconv.ParseFloat(strings.TrimSpace(v), 64)
			return f
		}
	}
	return 0
}

// parseHistograms reads metric's _bucket, _sum and _count samples of the
// Prometheus text format, keyed by the "name" label.
func parseHistograms(r io.Reader, metric string) (map[string]*Histogram, error) {
	out := map[string]*Histogram{}
	get := func(q string) *Histogram {
		if out[q] == nil {
			out[q] = &Histogram{}
		}
		return out[q]
	}
	s := bufio.NewScanner(r)
	s.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for s.Scan() {
		line := s.Text()
		rest, ok := strings.CutPrefix(line, metric)
		if !ok {
			continue
		}
		suffix, labelsAndValue, ok := strings.Cut(rest, "{")
		if !ok {
			continue
		}
		labels, value, err := parseLabels(labelsAndValue)
		if err != nil {
			return nil, err
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", line, err)
		}
		h := get(labels["name"])
		switch suffix {
		case "_bucket":
			h.Buckets = append(h.Buckets, Bucket{LE: labels["le"], Count: v})
		case "_sum":
			h.SumSec = v
		case "_count":
			h.Count = v
		}
	}
	return out, s.Err()
}

// sub is h minus an earlier scrape of the same histogram.
func (h *Histogram) sub(before *Histogram) *Histogram {
	if before == nil {
		return h
	}
	prev := map[string]float64{}
	for _, b := range before.Buckets {
		prev[b.LE] = b.Count
	}
	d := &Histogram{Count: h.Count - before.Count, SumSec: math.Round((h.SumSec-before.SumSec)*1e6) / 1e6}
	for _, b := range h.Buckets {
		d.Buckets = append(d.Buckets, Bucket{LE: b.LE, Count: b.Count - prev[b.LE]})
	}
	return d
}

// quantile estimates the q-quantile in seconds as Prometheus's
// histogram_quantile does (linear within the bucket).
func (h *Histogram) quantile(q float64) float64 {
	if h == nil || h.Count <= 0 || len(h.Buckets) == 0 {
		return math.NaN()
	}
	type b struct{ le, n float64 }
	var bs []b
	for _, x := range h.Buckets {
		le, err := strconv.ParseFloat(x.LE, 64)
		if x.LE == "+Inf" {
			le, err = math.Inf(1), nil
		}
		if err == nil {
			bs = append(bs, b{le, x.Count})
		}
	}
	sort.Slice(bs, func(i, j int) bool { return bs[i].le < bs[j].le })
	rank := q * h.Count
	lower, below := 0.0, 0.0
	for _, x := range bs {
		if x.n >= rank {
			if math.IsInf(x.le, 1) {
				return lower
			}
			if x.n == below {
				return x.le
			}
			return lower + (x.le-lower)*(rank-below)/(x.n-below)
		}
		lower, below = x.le, x.n
	}
	return lower
}

func (h *Histogram) String() string {
	if h == nil {
		return "-"
	}
	var parts []string
	prev := 0.0
	for _, b := range h.Buckets {
		if n := b.Count - prev; n > 0 {
			parts = append(parts, fmt.Sprintf("≤%s:%.0f", b.LE, n))
		}
		prev = b.Count
	}
	return fmt.Sprintf("%.0f waits, mean %s, p50 ≈ %s, p99 ≈ %s [%s]", h.Count, fmtSec(h.SumSec/math.Max(h.Count, 1)),
		fmtSec(h.quantile(0.5)), fmtSec(h.quantile(0.99)), strings.Join(parts, " "))
}

func fmtSec(s float64) string {
	if math.IsNaN(s) {
		return "-"
	}
	return time.Duration(s * float64(time.Second)).Round(time.Microsecond).String()
}

// writeScaleMarkdown prints the scale phase: one block of rows per
// population, each contender a column, cnpa's ratio to the peer and the
// issue's targets beside.
func writeScaleMarkdown(w io.Writer, r *Report) {
	var withScale []*Result
	for _, c := range r.Contenders {
		if len(c.Scale) > 0 {
			withScale = append(withScale, c)
		}
	}
	if len(withScale) == 0 {
		return
	}
	cnpa, peer := r.result(nameCnpa), r.result(namePeer)
	fmt.Fprintf(w, "\n## Scale — %s, %d cores; each contender on one control plane of its own, population grown through %v\n\n",
		r.Date.Format("2006-01-02 15:04 MST"), r.Cores, r.Sizes.ScaleSizes)
	cols := []string{"N", "metric"}
	for _, c := range withScale {
		cols = append(cols, header(r, c))
	}
	cols = append(cols, "cnpa ÷ peer", "target", "✓/✗")
	fmt.Fprintln(w, "| "+strings.Join(cols, " | ")+" |")
	fmt.Fprintln(w, "|"+strings.Repeat("---|", len(cols)))
	type srow struct {
		label  string
		v      func(s *ScaleStep) (float64, bool)
		unit   unit
		target float64 // ≤ target × peer; 0: none
		abs    bool    // target is an absolute value, not a ratio
	}
	dist := func(d func(*ScaleStep) *Dist, q func(*Dist) float64) func(*ScaleStep) (float64, bool) {
		return func(s *ScaleStep) (float64, bool) {
			if x := d(s); x != nil {
				return q(x), true
			}
			return 0, false
		}
	}
	srows := []srow{
		{"convergence p50", dist(func(s *ScaleStep) *Dist { return s.Convergence }, p50), unitMS, 1.0, false},
		{"convergence p95", dist(func(s *ScaleStep) *Dist { return s.Convergence }, p95), unitMS, 1.2, false},
		{"drift restore p50", dist(func(s *ScaleStep) *Dist { return s.DriftRestore }, p50), unitMS, 1.0, false},
		{"drift restore p95", dist(func(s *ScaleStep) *Dist { return s.DriftRestore }, p95), unitMS, 1.2, false},
		{"drift revert p50", dist(func(s *ScaleStep) *Dist { return s.DriftRevert }, p50), unitMS, 1.0, false},
		{"drift revert p95", dist(func(s *ScaleStep) *Dist { return s.DriftRevert }, p95), unitMS, 1.2, false},
		{"RSS (VmRSS; peak VmHWM in the JSON)", func(s *ScaleStep) (float64, bool) { return s.RSSMiB, s.RSSMiB > 0 }, unitMiB, 0.6, false},
		{"RSS, own memory (RssAnon)", func(s *ScaleStep) (float64, bool) { return s.RSSAnonMiB, s.RSSAnonMiB > 0 }, unitMiB, 0, false},
		{"RSS, the binary's pages (RssFile)", func(s *ScaleStep) (float64, bool) { return s.RSSFileMiB, s.RSSFileMiB > 0 }, unitMiB, 0, false},
		{"RSS per 1,000 TeamSpaces", func(s *ScaleStep) (float64, bool) { return s.RSSPerThousandMiB, s.RSSPerThousandMiB != 0 }, unitMiB, 0, false},
		{"idle requests/min, own (audit)", func(s *ScaleStep) (float64, bool) {
			if s.Idle == nil {
				return 0, false
			}
			return s.Idle.ContenderNonWatchPerMinute, true
		}, unitPerMin, 0, false},
		{"last periodic full pass (cnpa_resync_pass_seconds)", func(s *ScaleStep) (float64, bool) {
			return s.PassSeconds * 1000, s.PassSeconds > 0
		}, unitMS, 0, false},
		{"TeamSpaces the last pass handed over (cnpa_resync_pass_synced)", func(s *ScaleStep) (float64, bool) {
			if s.PassSynced == nil {
				return 0, false
			}
			return *s.PassSynced, true
		}, unitCount, 0, false},
		{"idle writes/min, own (audit)", func(s *ScaleStep) (float64, bool) {
			if s.Idle == nil {
				return 0, false
			}
			return math.Round(writes(s.Idle.Contender)/s.Idle.WindowSeconds*60*10) / 10, true
		}, unitPerMin, 0, true},
	}
	for i := range r.Sizes.ScaleSizes {
		for _, row := range srows {
			cells := []string{"", row.label}
			for _, c := range withScale {
				if i >= len(c.Scale) {
					cells = append(cells, "—")
					continue
				}
				if v, ok := row.v(c.Scale[i]); ok {
					cells = append(cells, fmtValue(v, row.unit))
				} else {
					cells = append(cells, "—")
				}
			}
			cells[0] = strconv.Itoa(r.Sizes.ScaleSizes[i])
			ratio, target, mark := "", "", ""
			cv, cok := scaleValue(cnpa, i, row.v)
			pv, pok := scaleValue(peer, i, row.v)
			if cok && pok && pv > 0 {
				ratio = fmt.Sprintf("%.2f×", cv/pv)
			}
			switch {
			case row.abs:
				target = "0"
				if cok {
					mark = map[bool]string{true: "✓", false: "✗"}[cv == 0]
				}
			case row.target > 0:
				target = fmt.Sprintf("≤ %.1f× peer", row.target)
				if cok && pok && pv > 0 {
					mark = map[bool]string{true: "✓", false: "✗"}[cv <= row.target*pv]
				} else {
					mark = "?"
				}
			}
			cells = append(cells, ratio, target, mark)
			fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
		}
	}
	if cnpa != nil && len(cnpa.Scale) > 1 && cnpa.Scale[0].Convergence != nil {
		first, last := cnpa.Scale[0], cnpa.Scale[len(cnpa.Scale)-1]
		if last.Convergence != nil && first.Convergence.P50MS > 0 {
			k := last.Convergence.P50MS / first.Convergence.P50MS
			fmt.Fprintf(w, "\ncnpa's convergence p50 at N=%d over its p50 at N=%d: %.2f× (target ≤ 1.5×) %s\n", last.Others, first.Others, k,
				map[bool]string{true: "✓", false: "✗"}[k <= 1.5])
		}
	}
	fmt.Fprintln(w, "\nTimes as in the main table (from outside, through one observer's watches); no paired floor. Idle: the contender's own requests over the idle window (audit log), watches left out. RSS: VmRSS of the process after the idle window; per 1,000: its growth since the first size over the TeamSpaces added.")
	for _, c := range withScale {
		for i, s := range c.Scale {
			for q, h := range s.Queue {
				fmt.Fprintf(w, "\n%s at N=%d, workqueue %q wait (workqueue_queue_duration_seconds over the samples): %s", c.Name, s.Others, q, h)
			}
			if s.CPUProfile != "" {
				fmt.Fprintf(w, "\n%s at N=%d (step %d), CPU profile of the samples: %s", c.Name, s.Others, i, s.CPUProfile)
			}
		}
	}
	fmt.Fprintln(w)
}

func scaleValue(c *Result, i int, v func(*ScaleStep) (float64, bool)) (float64, bool) {
	if c == nil || i >= len(c.Scale) {
		return 0, false
	}
	return v(c.Scale[i])
}

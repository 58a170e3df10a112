package main

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"
)

// Report is everything one run measured; it is also the JSON file.
type Report struct {
	Date      time.Time `json:"date"`
	Cores     int       `json:"cores"`
	GoVersion string    `json:"goVersion"`
	Sizes     Sizes     `json:"sizes"`
	// LoadAverage is /proc/loadavg when the run began and when it ended:
	// other work on the machine shows here.
	LoadAverage []string `json:"loadAverage,omitempty"`
	// Contenders in the order they ran.
	Contenders []*Result `json:"contenders"`
	// Skipped says why a requested contender did not run.
	Skipped map[string]string `json:"skipped,omitempty"`
	// Targets are the Go engine's targets, judged on this run.
	Targets []Target `json:"targets,omitempty"`
	// Class is the class phase's numbers, when it ran.
	Class *ClassResult `json:"class,omitempty"`
	// Startup is the start-up phase's numbers, when it ran.
	Startup *StartupResult `json:"startup,omitempty"`
	// Stress is the stress phase's (stress.go).
	Stress *StressResult `json:"stress,omitempty"`
	// Watch is the watch phase's (watch.go).
	Watch *WatchResult `json:"watch,omitempty"`
	// Check is the check phase's numbers, when it ran.
	Check *CheckResult `json:"check,omitempty"`
}

// Sizes are the run's flags that shape the numbers.
type Sizes struct {
	NBackground   int     `json:"nBackground"`
	Bulk          int     `json:"bulk"`
	Samples       int     `json:"samples"`
	DriftSamples  int     `json:"driftSamples"`
	IdleSeconds   float64 `json:"idleSeconds"`
	ShellN        int     `json:"shellN"`
	ShellBulk     int     `json:"shellBulk"`
	Creators      int     `json:"creators"`
	Workers       int     `json:"workers"`
	GapMS         float64 `json:"gapMs"`
	ShellInterval string  `json:"shellInterval"`
	// Phases run: steady and/or bulk.
	Phases string `json:"phases"`
	// ScaleSizes are the populations of the scale phase, when it ran.
	ScaleSizes []int `json:"scaleSizes,omitempty"`
	// Parallel runs are smoke runs: contenders shared the machine.
	Parallel bool `json:"parallel,omitempty"`
}

// Result is one contender's numbers.
type Result struct {
	Name string `json:"name"`
	// N and Bulk are the sizes this contender ran at (the shell's are
	// -shell-n and -shell-bulk).
	N    int `json:"n"`
	Bulk int `json:"bulk"`
	// N0 is measured with no other TeamSpaces (but the warm-up one and the
	// earlier samples); NLarge with N more created first.
	N0     *AtN `json:"n0,omitempty"`
	NLarge *AtN `json:"nLarge,omitempty"`
	// Background is the creation of the N TeamSpaces before NLarge.
	Background *Batch   `json:"background,omitempty"`
	Idle       *Idle    `json:"idle,omitempty"`
	BulkRun    *Batch   `json:"bulkRun,omitempty"`
	RSSSteady  *Memory  `json:"rssAtN,omitempty"`
	RSSBulk    *Memory  `json:"rssAfterBulk,omitempty"`
	Notes      []string `json:"notes,omitempty"`
	Errors     []string `json:"errors,omitempty"`
	Seconds    float64  `json:"seconds"`
	// LoadAverage is /proc/loadavg when this contender began and ended.
	LoadAverage []string `json:"loadAverage,omitempty"`
	// Scale is the scale phase, one step per -scale-sizes.
	Scale []*ScaleStep `json:"scale,omitempty"`
}

// AtN is the latency scenarios at one population.
type AtN struct {
	// Others is how many TeamSpaces existed when the phase began.
	Others      int   `json:"others"`
	Convergence *Dist `json:"convergence,omitempty"`
	// Floor is the raw floor's convergence on the same control plane, one
	// sample after each of Convergence's with the contender frozen
	// (-paired-floor); nil for the raw floor and cnpa-inproc.
	Floor        *Dist `json:"floor,omitempty"`
	DriftRestore *Dist `json:"driftRestore,omitempty"`
	DriftRevert  *Dist `json:"driftRevert,omitempty"`
}

// Dist is a set of latency samples in milliseconds.
type Dist struct {
	SamplesMS []float64 `json:"samplesMs"`
	P50MS     float64   `json:"p50Ms"`
	P95MS     float64   `json:"p95Ms"`
	MaxMS     float64   `json:"maxMs"`
}

// Batch is many TeamSpaces created by concurrent creators.
type Batch struct {
	Count    int `json:"count"`
	Creators int `json:"creators"`
	// CreatedSeconds is when the creators were done; InSyncSeconds when
	// the observer saw the last one in sync. Both from the first create.
	CreatedSeconds float64 `json:"createdSeconds"`
	InSyncSeconds  float64 `json:"inSyncSeconds"`
	// Requests is every API request during the batch, all clients, by verb.
	Requests map[string]float64 `json:"requests"`
	// ContenderRequests is the contender's own requests (audit log), by
	// "VERB resource"; for a controller, the harness's creates are not in it.
	ContenderRequests requestCounts `json:"contenderRequests"`
}

// Idle is the idle-cost measurement.
type Idle struct {
	WindowSeconds float64 `json:"windowSeconds"`
	// Running and Frozen are apiserver_request_total increments by
	// "VERB resource" over the window with the contender running, and over
	// as long with it frozen (half before, half after).
	Running requestCounts `json:"running"`
	Frozen  requestCounts `json:"frozen"`
	// ExcessPerMinute is running minus frozen per minute, all resources, by
	// verb; NonWatchPerMinute its sum without WATCH.
	ExcessPerMinute   map[string]float64 `json:"excessPerMinute"`
	NonWatchPerMinute float64            `json:"nonWatchPerMinute"`
	// Contender is the contender's own requests in the running window, by
	// "VERB resource", from the audit log (exact: the user is the
	// contender's); ContenderPerMinute by verb per minute, and
	// ContenderNonWatchPerMinute without WATCH.
	Contender                  requestCounts      `json:"contender"`
	ContenderPerMinute         map[string]float64 `json:"contenderPerMinute"`
	ContenderNonWatchPerMinute float64            `json:"contenderNonWatchPerMinute"`
}

// Memory is a peak resident set.
type Memory struct {
	Bytes int64   `json:"bytes,omitempty"`
	MiB   float64 `json:"mib,omitempty"`
	How   string  `json:"how"`
	// Current is VmRSS, RssAnon (heap, stacks) and RssFile (the binary's
	// pages) when the peak was read, in bytes: where the memory is.
	Current map[string]int64 `json:"current,omitempty"`
	// TeamSpaces is how many existed when it was read.
	TeamSpaces int `json:"teamSpaces"`
}

// Target is one of the Go engine's targets.
type Target struct {
	What   string `json:"what"`
	Holds  *bool  `json:"holds"` // nil: could not be judged
	Detail string `json:"detail"`
}

func (r *Report) result(name string) *Result {
	for _, c := range r.Contenders {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// metric reads one number of a result; ok is false when it was not measured.
type metric func(r *Result) (float64, bool)

func distMetric(at func(*Result) *AtN, d func(*AtN) *Dist, q func(*Dist) float64) metric {
	return func(r *Result) (float64, bool) {
		a := at(r)
		if a == nil || d(a) == nil {
			return 0, false
		}
		return q(d(a)), true
	}
}

var (
	atN0    = func(r *Result) *AtN { return r.N0 }
	atN     = func(r *Result) *AtN { return r.NLarge }
	conv    = func(a *AtN) *Dist { return a.Convergence }
	restore = func(a *AtN) *Dist { return a.DriftRestore }
	revert  = func(a *AtN) *Dist { return a.DriftRevert }
	p50     = func(d *Dist) float64 { return d.P50MS }
	p95     = func(d *Dist) float64 { return d.P95MS }
	pmax    = func(d *Dist) float64 { return d.MaxMS }

	bulkSeconds = func(r *Result) (float64, bool) {
		if r.BulkRun == nil {
			return 0, false
		}
		return r.BulkRun.InSyncSeconds * 1000, true
	}
	backgroundSeconds = func(r *Result) (float64, bool) {
		if r.Background == nil {
			return 0, false
		}
		return r.Background.InSyncSeconds * 1000, true
	}
	// pairedRatio is convergence p50 over the paired floor's p50 (see
	// bench.convergence).
	pairedRatio = func(at func(*Result) *AtN) metric {
		return func(r *Result) (float64, bool) {
			a := at(r)
			if a == nil || a.Convergence == nil || a.Floor == nil || a.Floor.P50MS <= 0 {
				return 0, false
			}
			return math.Round(a.Convergence.P50MS/a.Floor.P50MS*100) / 100, true
		}
	}
	rssSteady = func(r *Result) (float64, bool) {
		if r.RSSSteady == nil || r.RSSSteady.Bytes <= 0 {
			return 0, false
		}
		return r.RSSSteady.MiB, true
	}
	rssBulk = func(r *Result) (float64, bool) {
		if r.RSSBulk == nil || r.RSSBulk.Bytes <= 0 {
			return 0, false
		}
		return r.RSSBulk.MiB, true
	}
	idleNonWatch = func(r *Result) (float64, bool) {
		if r.Idle == nil {
			return 0, false
		}
		return r.Idle.NonWatchPerMinute, true
	}
)

func idleContender(r *Result) (float64, bool) {
	if r.Idle == nil {
		return 0, false
	}
	return r.Idle.ContenderNonWatchPerMinute, true
}

func idleContenderVerb(verb string) metric {
	return func(r *Result) (float64, bool) {
		if r.Idle == nil {
			return 0, false
		}
		return math.Round(r.Idle.ContenderPerMinute[verb]*10) / 10, true
	}
}

// perTeamSpace is the contender's own requests per TeamSpace of the bulk,
// watches left out; for a controller the harness's create is added, so that
// every column counts the same work (the raw floor's five include it).
func perTeamSpace(r *Result) (float64, bool) {
	if r.BulkRun == nil || r.BulkRun.Count == 0 || r.BulkRun.ContenderRequests == nil {
		return 0, false
	}
	n := nonWatch(r.BulkRun.ContenderRequests.byVerb())
	if r.Name != nameRaw {
		n += float64(r.BulkRun.Count)
	}
	return math.Round(n/float64(r.BulkRun.Count)*100) / 100, true
}

type unit int

const (
	unitMS unit = iota
	unitMiB
	unitPerMin
	unitCount
	unitRatio
)

// row is one line of the table.
type row struct {
	label  string
	m      metric
	unit   unit
	ratios bool // show × raw and × peer
	// peerRatio shows × peer alone (for values that are ratios already).
	peerRatio bool
	target    string // the Go engine's target for this row, judged by judge
	judge     func(r *Report) *Target
	// split, instead of m, shows a memory breakdown.
	split func(r *Result) *Memory
}

// evaluateTargets judges the Go engine ("cnpa") against the targets.
func evaluateTargets(r *Report) []Target {
	if r.result(nameCnpa) == nil {
		return nil
	}
	var out []Target
	for _, row := range rows(r) {
		if row.judge != nil {
			out = append(out, *row.judge(r))
		}
	}
	return out
}

func boolp(b bool) *bool { return &b }

// lessOrEqual builds a judge: cnpa's value ≤ factor × raw (if factor > 0)
// and ≤ (or < when strict) the peer's. A missing peer or raw is left out of
// the judgement and said so.
func lessOrEqual(what string, m metric, factor float64, vsPeer, strict bool) func(r *Report) *Target {
	return func(r *Report) *Target {
		t := &Target{What: what}
		v, ok := value(r, nameCnpa, m)
		if !ok {
			t.Detail = "cnpa not measured"
			return t
		}
		holds := true
		var parts, missing []string
		judged := false
		if factor > 0 {
			if raw, ok := value(r, nameRaw, m); ok && raw > 0 {
				judged = true
				ratio := v / raw
				holds = holds && ratio <= factor
				parts = append(parts, fmt.Sprintf("%.2f× raw (limit %.1f×)", ratio, factor))
			} else {
				missing = append(missing, "raw")
			}
		}
		if vsPeer {
			if peer, ok := value(r, namePeer, m); ok && peer > 0 {
				judged = true
				ratio := v / peer
				if strict {
					holds = holds && v < peer
				} else {
					holds = holds && v <= peer
				}
				parts = append(parts, fmt.Sprintf("%.2f× peer", ratio))
			} else {
				missing = append(missing, "peer")
			}
		}
		if len(missing) > 0 {
			parts = append(parts, "not judged against "+strings.Join(missing, ", ")+" (not run)")
		}
		if judged {
			t.Holds = boolp(holds)
		}
		t.Detail = strings.Join(parts, "; ")
		return t
	}
}

// judgeIdle: the Go engine makes no request when nothing changes, beyond
// keeping its watches. Judged on the audit log, which attributes requests
// exactly (see Idle).
func judgeIdle(r *Report) *Target {
	t := &Target{What: "idle: zero requests beyond its watches"}
	c := r.result(nameCnpa)
	if c == nil || c.Idle == nil {
		t.Detail = "cnpa not measured"
		return t
	}
	t.Holds = boolp(c.Idle.ContenderNonWatchPerMinute <= 0)
	t.Detail = fmt.Sprintf("%.1f non-watch requests/min of its own (audit log); apiserver_request_total running − frozen: %.1f/min, control-plane noise included",
		c.Idle.ContenderNonWatchPerMinute, c.Idle.NonWatchPerMinute)
	return t
}

// judgeConvergence: cnpa's convergence p50 ≤ 1.1× the raw floor and ≤ the
// peer's. Where cnpa has a paired floor, the first is its ratio to that
// floor, and the second compares its ratio with the peer's (when the peer
// has one too): both then use numbers from one control plane each, not
// from two. The ratios across control planes follow in the detail.
func judgeConvergence(what string, at func(*Result) *AtN) func(r *Report) *Target {
	across := lessOrEqual(what, distMetric(at, conv, p50), 1.1, true, false)
	return func(r *Report) *Target {
		t := across(r)
		own, ok := value(r, nameCnpa, pairedRatio(at))
		if !ok {
			return t
		}
		holds := own <= 1.1
		parts := []string{fmt.Sprintf("%.2f× the raw floor on its own control plane (limit 1.1×)", own)}
		if peer, ok := value(r, namePeer, pairedRatio(at)); ok {
			holds = holds && own <= peer
			parts = append(parts, fmt.Sprintf("the peer's is %.2f×, so %.2f× peer", peer, own/peer))
		} else if v, ok := value(r, nameCnpa, distMetric(at, conv, p50)); ok {
			if peer, ok := value(r, namePeer, distMetric(at, conv, p50)); ok && peer > 0 {
				holds = holds && v <= peer
				parts = append(parts, fmt.Sprintf("%.2f× peer", v/peer))
			} else {
				parts = append(parts, "not judged against peer (not run)")
			}
		}
		t.Holds = boolp(holds)
		t.Detail = strings.Join(parts, "; ") + "; across control planes: " + t.Detail
		return t
	}
}

func value(r *Report, name string, m metric) (float64, bool) {
	res := r.result(name)
	if res == nil {
		return 0, false
	}
	return m(res)
}

// rows is the table's layout. Idle rows list every verb any contender
// showed.
func rows(r *Report) []row {
	n, bulk := r.Sizes.NBackground, r.Sizes.Bulk
	rs := []row{
		{label: "Convergence p50, N=0", m: distMetric(atN0, conv, p50), ratios: true,
			target: "≤ 1.1× raw, ≤ peer", judge: judgeConvergence("convergence p50 at N=0 ≤ 1.1× raw floor and ≤ peer", atN0)},
		{label: "  ÷ raw floor on its own control plane, p50 ⁴", m: pairedRatio(atN0), unit: unitRatio, peerRatio: true},
		{label: "Convergence p95, N=0", m: distMetric(atN0, conv, p95), ratios: true},
		{label: "Convergence max, N=0", m: distMetric(atN0, conv, pmax), ratios: true},
		{label: fmt.Sprintf("Convergence p50, N=%d", n), m: distMetric(atN, conv, p50), ratios: true,
			target: "≤ 1.1× raw, ≤ peer", judge: judgeConvergence(fmt.Sprintf("convergence p50 at N=%d ≤ 1.1× raw floor and ≤ peer", n), atN)},
		{label: "  ÷ raw floor on its own control plane, p50 ⁴", m: pairedRatio(atN), unit: unitRatio, peerRatio: true},
		{label: fmt.Sprintf("Convergence p95, N=%d", n), m: distMetric(atN, conv, p95), ratios: true},
		{label: fmt.Sprintf("Convergence max, N=%d", n), m: distMetric(atN, conv, pmax), ratios: true},
		{label: "Drift restore p50, N=0", m: distMetric(atN0, restore, p50), ratios: true},
		{label: "Drift restore p95, N=0", m: distMetric(atN0, restore, p95), ratios: true},
		{label: fmt.Sprintf("Drift restore p50, N=%d", n), m: distMetric(atN, restore, p50), ratios: true,
			target: "≤ peer", judge: lessOrEqual(fmt.Sprintf("drift restore p50 at N=%d ≤ peer", n), distMetric(atN, restore, p50), 0, true, false)},
		{label: fmt.Sprintf("Drift restore p95, N=%d", n), m: distMetric(atN, restore, p95), ratios: true},
		{label: fmt.Sprintf("Drift restore max, N=%d", n), m: distMetric(atN, restore, pmax), ratios: true},
		{label: "Drift revert p50, N=0", m: distMetric(atN0, revert, p50), ratios: true},
		{label: fmt.Sprintf("Drift revert p50, N=%d", n), m: distMetric(atN, revert, p50), ratios: true},
		{label: fmt.Sprintf("Drift revert p95, N=%d", n), m: distMetric(atN, revert, p95), ratios: true},
		{label: fmt.Sprintf("Idle: own requests/min, no watches, N=%d ²", n), m: idleContender, unit: unitPerMin,
			target: "0", judge: judgeIdle},
	}
	verbs := map[string]bool{}
	for _, c := range r.Contenders {
		if c.Idle == nil {
			continue
		}
		for verb, v := range c.Idle.ContenderPerMinute {
			if v != 0 {
				verbs[verb] = true
			}
		}
	}
	for _, verb := range sortedKeys(verbs) {
		rs = append(rs, row{label: "  of which " + verb, m: idleContenderVerb(verb), unit: unitPerMin})
	}
	rs = append(rs, row{label: "  apiserver_request_total, running − frozen, no watches ³", m: idleNonWatch, unit: unitPerMin})
	rs = append(rs,
		row{label: fmt.Sprintf("Bulk %d in sync (%d creators)", bulk, r.Sizes.Creators), m: bulkSeconds, ratios: true,
			target: "≤ 1.2× raw, < peer", judge: lessOrEqual(fmt.Sprintf("bulk %d in sync ≤ 1.2× raw floor and ahead of the peer", bulk), bulkSeconds, 1.2, true, true)},
		row{label: "  API requests per TeamSpace (its own + the create)", m: perTeamSpace, unit: unitRatio, ratios: true},
		row{label: fmt.Sprintf("Background %d in sync (%d creators)", n, r.Sizes.Creators), m: backgroundSeconds, ratios: true},
		row{label: fmt.Sprintf("Peak RSS, N=%d", n), m: rssSteady, unit: unitMiB, ratios: true,
			target: "< peer", judge: lessOrEqual(fmt.Sprintf("RSS at N=%d below the peer's", n), rssSteady, 0, true, true)},
		row{label: "  then: anon (heap, stacks) / file (binary pages)", m: nil, unit: unitMiB, split: func(r *Result) *Memory { return r.RSSSteady }},
		row{label: fmt.Sprintf("Peak RSS, N=%d (after bulk)", bulk), m: rssBulk, unit: unitMiB, ratios: true,
			target: "< peer", judge: lessOrEqual(fmt.Sprintf("RSS at N=%d below the peer's", bulk), rssBulk, 0, true, true)},
		row{label: "  then: anon (heap, stacks) / file (binary pages)", m: nil, unit: unitMiB, split: func(r *Result) *Memory { return r.RSSBulk }},
	)
	return rs
}

func fmtMS(ms float64) string {
	switch {
	case ms >= 10000:
		return fmt.Sprintf("%.1f s", ms/1000)
	case ms >= 1000:
		return fmt.Sprintf("%.2f s", ms/1000)
	case ms >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	default:
		return fmt.Sprintf("%.1f ms", ms)
	}
}

func fmtValue(v float64, u unit) string {
	switch u {
	case unitMiB:
		return fmt.Sprintf("%.1f MiB", v)
	case unitPerMin:
		return fmt.Sprintf("%.1f", v)
	case unitCount:
		return fmt.Sprintf("%.0f", v)
	case unitRatio:
		return fmt.Sprintf("%.2f", v)
	}
	return fmtMS(v)
}

// header names a contender's column, with its sizes when they differ.
func header(r *Report, c *Result) string {
	h := c.Name
	switch c.Name {
	case nameRaw:
		h = "raw floor"
	case namePeer:
		h = "peer (controller-runtime)"
	case nameCnpa:
		h = "cnpa (Go engine)"
	case nameShell:
		h = "shell engine"
	}
	if c.N != r.Sizes.NBackground || c.Bulk != r.Sizes.Bulk {
		h += fmt.Sprintf(" ¹ (N=%d, bulk %d)", c.N, c.Bulk)
	}
	return h
}

// writeMarkdown prints the table: contenders as columns, each time with its
// ratio to the raw floor and to the peer beside it, and the Go engine's
// targets in the last column.
func writeMarkdown(w io.Writer, r *Report) {
	fmt.Fprintf(w, "## cnpa bench — %s, %d cores, %s\n\n", r.Date.Format("2006-01-02 15:04 MST"), r.Cores, r.GoVersion)
	s := r.Sizes
	fmt.Fprintf(w, "N=%d background TeamSpaces, bulk %d with %d creators, %d convergence samples, %d drift samples of each kind, idle window %gs, cnpa --workers %d.\n\n",
		s.NBackground, s.Bulk, s.Creators, s.Samples, s.DriftSamples, s.IdleSeconds, s.Workers)
	if len(r.LoadAverage) == 2 {
		fmt.Fprintf(w, "Load average (1, 5, 15 min) at the start: %s; at the end: %s.\n\n", r.LoadAverage[0], r.LoadAverage[1])
	}
	if s.Parallel {
		fmt.Fprint(w, "**The contenders ran at the same time (-parallel): these numbers only show that the harness works; they are not comparable.**\n\n")
	}
	hasTargets := r.result(nameCnpa) != nil
	cols := []string{"Metric"}
	for _, c := range r.Contenders {
		cols = append(cols, header(r, c))
	}
	if hasTargets {
		cols = append(cols, "cnpa target", "✓/✗")
	}
	fmt.Fprintln(w, "| "+strings.Join(cols, " | ")+" |")
	fmt.Fprintln(w, "|"+strings.Repeat("---|", len(cols)))
	for _, row := range rows(r) {
		cells := []string{row.label}
		for _, c := range r.Contenders {
			cells = append(cells, cell(r, c, row))
		}
		if hasTargets {
			mark := ""
			if row.judge != nil {
				t := row.judge(r)
				switch {
				case t.Holds == nil:
					mark = "?"
				case *t.Holds:
					mark = "✓"
				default:
					mark = "✗"
				}
			}
			cells = append(cells, row.target, mark)
		}
		fmt.Fprintln(w, "| "+strings.Join(cells, " | ")+" |")
	}
	fmt.Fprintln(w)
	for _, c := range r.Contenders {
		if c.N != s.NBackground || c.Bulk != s.Bulk {
			fmt.Fprintf(w, "¹ %s ran at N=%d and bulk %d (-shell-n, -shell-bulk): a kubectl+jq pass over %d TeamSpaces takes too long to sample; its \"N=%d\" rows are at N=%d.\n",
				c.Name, c.N, c.Bulk, s.NBackground, s.NBackground, c.N)
		}
	}
	fmt.Fprintln(w, "Times: from just before the harness's first request to the arrival of the watch event that shows the result (one observer watching teamspaces, namespaces and resourcequotas, the same for every contender). "+
		"Sampling starts once the contender has sent no write and no watch event has arrived for 3 s (-quiet), after the warm-up and after the background: N present, not N being processed. "+
		"Convergence: namespace, team-quota and status.observedGeneration in place. Drift restore: team-quota deleted → a quota with a new uid. Drift revert: hard.pods patched to 99 → back at spec.pods. "+
		"Raw floor: a plain client making the five requests one TeamSpace needs (create, finalizer patch, namespace create, quota apply, status patch) back to back; for drift, it re-applies the quota as soon as the harness's delete/patch returns (one extra round trip). "+
		"² Idle, own: every contender connects as its own user (a client certificate, group system:masters) and kube-apiserver's audit log records that user alone, so its requests over the window are counted exactly. "+
		"³ The issue's method: apiserver_request_total over the window with the contender running minus as long with it frozen (SIGSTOP, watches left open; half before, half after), per minute. It also counts what the contender's objects make the control plane do (kube-controller-manager's garbage collector re-checks owners with backoff, in bursts) and periodic control-plane requests, which fall unevenly into the windows: the raw column, where nothing runs, shows that noise. "+
		"RSS: VmHWM of the controller process; shell: the largest single process of the loop. "+
		"⁴ Paired floor (-paired-floor): after each convergence sample, one of the raw floor on the same control plane, the controller frozen (SIGSTOP) meanwhile; the row is the controller's p50 over that floor's p50, and × peer compares the two controllers' ratios. "+
		"Every contender runs on control planes of its own, one after another, and the same contender's p50 moves by about ±15% between two of them on this machine; alternate samples on one control plane see the same machine. "+
		"Where both exist, the convergence targets are judged on these ratios; the ratios across control planes are printed beside them.")
	var loads []string
	for _, c := range r.Contenders {
		if len(c.LoadAverage) == 2 {
			loads = append(loads, fmt.Sprintf("%s %s → %s", c.Name, firstField(c.LoadAverage[0]), firstField(c.LoadAverage[1])))
		}
	}
	if len(loads) > 0 {
		fmt.Fprintf(w, "\n1-minute load average while each contender ran (other work on the machine shows here): %s.\n", strings.Join(loads, "; "))
	}
	if len(r.Skipped) > 0 {
		fmt.Fprintln(w)
		for _, name := range sortedKeys(r.Skipped) {
			fmt.Fprintf(w, "Skipped %s: %s\n", name, r.Skipped[name])
		}
	}
	for _, c := range r.Contenders {
		for _, n := range c.Notes {
			fmt.Fprintf(w, "\nNote (%s): %s", c.Name, n)
		}
		for _, e := range c.Errors {
			fmt.Fprintf(w, "\nError (%s): %s", c.Name, firstLine(e))
		}
	}
	fmt.Fprintln(w)
	if len(r.Targets) > 0 {
		fmt.Fprintln(w, "\n### Go engine targets")
		for _, t := range r.Targets {
			mark := "?"
			if t.Holds != nil {
				mark = map[bool]string{true: "✓", false: "✗"}[*t.Holds]
			}
			fmt.Fprintf(w, "- %s %s — %s\n", mark, t.What, t.Detail)
		}
	}
}

func cell(r *Report, c *Result, row row) string {
	if row.split != nil {
		m := row.split(c)
		if m == nil || m.Current == nil {
			return "—"
		}
		return fmt.Sprintf("%.1f / %.1f MiB", float64(m.Current["RssAnon"])/(1<<20), float64(m.Current["RssFile"])/(1<<20))
	}
	v, ok := row.m(c)
	if !ok {
		if row.unit == unitMiB {
			if m := map[string]*Memory{"steady": c.RSSSteady, "bulk": c.RSSBulk}; m["steady"] != nil || m["bulk"] != nil {
				return "n/a"
			}
		}
		return "—"
	}
	s := fmtValue(v, row.unit)
	if !row.ratios && !row.peerRatio {
		return s
	}
	var rat []string
	if c.Name != nameRaw && !row.peerRatio {
		if raw, ok := value(r, nameRaw, row.m); ok && raw > 0 {
			rat = append(rat, fmt.Sprintf("%.2f× raw", v/raw))
		}
	}
	if c.Name != namePeer && c.Name != nameRaw {
		if peer, ok := value(r, namePeer, row.m); ok && peer > 0 {
			rat = append(rat, fmt.Sprintf("%.2f× peer", v/peer))
		}
	}
	if len(rat) > 0 {
		s += " (" + strings.Join(rat, ", ") + ")"
	}
	return s
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func firstField(s string) string {
	f, _, _ := strings.Cut(s, " ")
	return f
}

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/teamspace"
)

// bench runs the scenarios for one contender after another.
type bench struct {
	cfg  *config
	bin  *binaries
	work string
	logf func(format string, args ...any)
}

// runContender measures one contender on two fresh control planes: the
// first for convergence, drift, idle cost and memory at N, the second for
// the bulk (so that the bulk starts from an empty cluster and memory is read
// at exactly -bulk TeamSpaces). A failed phase is recorded and the other
// still runs.
func (b *bench) runContender(ctx context.Context, name string) *Result {
	res := &Result{Name: name, N: b.cfg.nBackground, Bulk: b.cfg.bulk}
	if name == nameShell {
		res.N, res.Bulk = b.cfg.shellN, b.cfg.shellBulk
	}
	start := time.Now()
	res.LoadAverage = []string{loadAverage()}
	defer func() { res.LoadAverage = append(res.LoadAverage, loadAverage()) }()
	if b.cfg.steady {
		if err := b.phaseSteady(ctx, name, res); err != nil {
			res.Errors = append(res.Errors, err.Error())
			b.logf("[%s] FAILED: %v", name, err)
		}
	}
	if b.cfg.bulkPhase && ctx.Err() == nil {
		if err := b.phaseBulk(ctx, name, res); err != nil {
			res.Errors = append(res.Errors, err.Error())
			b.logf("[%s] FAILED: %v", name, err)
		}
	}
	if b.cfg.scalePhase && ctx.Err() == nil {
		if err := b.phaseScale(ctx, name, res); err != nil {
			res.Errors = append(res.Errors, err.Error())
			b.logf("[%s] FAILED: %v", name, err)
		}
	}
	res.Seconds = time.Since(start).Seconds()
	return res
}

// phaseSteady: warm up; convergence and drift with no other TeamSpaces;
// create N more with the concurrent creators; convergence and drift again;
// idle cost; peak RSS.
func (b *bench) phaseSteady(ctx context.Context, name string, res *Result) error {
	rss, err := b.inPhase(ctx, name, "steady", res, func(c contender, e *env, wrap func(string, error) error) error {
		return b.steady(ctx, name, c, e, wrap, res)
	})
	res.RSSSteady = rss
	return err
}

func (b *bench) steady(ctx context.Context, name string, c contender, e *env, wrap func(string, error) error, res *Result) (err error) {
	b.logf("[%s] control plane %s up; warming up", name, e.cluster.Server)
	// The warm-up TeamSpace proves the contender is running (caches synced,
	// connections open) before anything is timed; it is not a sample.
	if _, err := b.converge(ctx, e, c, "warm-0", b.cfg.warmTimeout); err != nil {
		return wrap("warm-up", err)
	}

	floor, err := b.pairedFloor(ctx, e, c)
	if err != nil {
		return wrap("paired floor", err)
	}

	b.settle(ctx, e, name)
	res.N0 = &AtN{Others: e.obs.count()}
	if res.N0.Convergence, res.N0.Floor, err = b.convergence(ctx, e, c, floor, "c0"); err != nil {
		return wrap("convergence N=0", err)
	}
	b.logf("[%s] convergence N=0: %s%s", name, res.N0.Convergence, floorLog(res.N0))
	if res.N0.DriftRestore, res.N0.DriftRevert, err = b.drift(ctx, e, c, "c0-0"); err != nil {
		return wrap("drift N=0", err)
	}
	b.logf("[%s] drift N=0: restore %s; revert %s", name, res.N0.DriftRestore, res.N0.DriftRevert)

	if res.Background, err = b.batch(ctx, e, c, "bg", res.N); err != nil {
		return wrap(fmt.Sprintf("background %d", res.N), err)
	}
	b.logf("[%s] %d background TeamSpaces in sync in %.2fs", name, res.N, res.Background.InSyncSeconds)

	// "N present", not "N being processed": the tail of the background
	// burst (a controller's events and retries, the quota controller's
	// status writes) ends before the samples start.
	b.settle(ctx, e, name)
	res.NLarge = &AtN{Others: e.obs.count()}
	if res.NLarge.Convergence, res.NLarge.Floor, err = b.convergence(ctx, e, c, floor, "cn"); err != nil {
		return wrap(fmt.Sprintf("convergence N=%d", res.N), err)
	}
	b.logf("[%s] convergence N=%d: %s%s", name, res.N, res.NLarge.Convergence, floorLog(res.NLarge))
	if res.NLarge.DriftRestore, res.NLarge.DriftRevert, err = b.drift(ctx, e, c, "cn-0"); err != nil {
		return wrap(fmt.Sprintf("drift N=%d", res.N), err)
	}
	b.logf("[%s] drift N=%d: restore %s; revert %s", name, res.N, res.NLarge.DriftRestore, res.NLarge.DriftRevert)

	if res.Idle, err = b.idle(ctx, e, c, name); err != nil {
		return wrap("idle", err)
	}
	b.logf("[%s] idle at N=%d: the contender's own requests/min (audit) %v; running − frozen (apiserver_request_total) %v",
		name, res.N, res.Idle.ContenderPerMinute, res.Idle.ExcessPerMinute)

	return nil
}

// phaseBulk: on a fresh control plane, warm up, then create -bulk
// TeamSpaces with the concurrent creators and time until all are in sync;
// peak RSS after.
func (b *bench) phaseBulk(ctx context.Context, name string, res *Result) error {
	rss, err := b.inPhase(ctx, name, "bulk", res, func(c contender, e *env, wrap func(string, error) error) error {
		return b.bulk(ctx, name, c, e, wrap, res)
	})
	res.RSSBulk = rss
	return err
}

func (b *bench) bulk(ctx context.Context, name string, c contender, e *env, wrap func(string, error) error, res *Result) (err error) {
	if _, err := b.converge(ctx, e, c, "warm-0", b.cfg.warmTimeout); err != nil {
		return wrap("bulk warm-up", err)
	}
	if b.cfg.cpuProfile != "" && name == nameInproc {
		f, err := os.Create(b.cfg.cpuProfile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return err
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
			b.logf("[%s] CPU profile of the bulk written to %s (go tool pprof -tagfocus contender=%s)", name, b.cfg.cpuProfile, nameInproc)
		}()
	}
	if res.BulkRun, err = b.batch(ctx, e, c, "bk", res.Bulk); err != nil {
		return wrap(fmt.Sprintf("bulk %d", res.Bulk), err)
	}
	b.logf("[%s] bulk %d in sync in %.2fs (creates done in %.2fs)", name, res.Bulk, res.BulkRun.InSyncSeconds, res.BulkRun.CreatedSeconds)
	// Let trailing work (events, the quota controller's status writes) end
	// before the peak is read.
	b.settle(ctx, e, name)
	return nil
}

// inPhase runs one phase of name's contender on a control plane of its own
// (work dir <work>/<name>/<phase>): start it, run body, stop it and read
// its peak RSS with the number of TeamSpaces present; its notes go to res.
// wrap adds the contender's last log lines to a failure.
func (b *bench) inPhase(ctx context.Context, name, phase string, res *Result,
	body func(c contender, e *env, wrap func(string, error) error) error) (*Memory, error) {
	c, err := newContender(name, b.cfg, b.bin)
	if err != nil {
		return nil, err
	}
	e, err := newEnv(ctx, filepath.Join(b.work, name, phase))
	if err != nil {
		return nil, err
	}
	defer e.close()
	if err := c.Start(ctx, e); err != nil {
		return nil, err
	}
	wrap := func(what string, err error) error { return withDiag(c, what, err) }
	if err := body(c, e, wrap); err != nil {
		_ = c.Stop()
		return nil, err
	}
	teamSpaces := e.obs.count()
	if err := c.Stop(); err != nil {
		return nil, wrap("stop", err)
	}
	if n, ok := c.(noter); ok && n.Notes() != "" {
		res.Notes = append(res.Notes, phase+" phase: "+n.Notes())
	}
	return memory(c, teamSpaces), nil
}

// withDiag adds what the contender logged last to a failure.
func withDiag(c contender, what string, err error) error {
	if d := c.Diag(); d != "" {
		return fmt.Errorf("%s: %w\n%s", what, err, d)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// memory reads the contender's peak RSS after Stop.
func memory(c contender, teamSpaces int) *Memory {
	bytes, how := c.PeakRSS()
	if bytes < 0 {
		return &Memory{How: how, TeamSpaces: teamSpaces}
	}
	m := &Memory{Bytes: bytes, MiB: math.Round(float64(bytes)/(1<<20)*10) / 10, How: how, TeamSpaces: teamSpaces}
	if p, ok := c.(interface{ Breakdown() map[string]int64 }); ok {
		m.Current = p.Breakdown()
	}
	return m
}

// converge creates one TeamSpace and returns the time from just before the
// create request to the arrival of the watch event that shows namespace,
// quota and status.observedGeneration all in place.
func (b *bench) converge(ctx context.Context, e *env, c contender, name string, timeout time.Duration) (time.Duration, error) {
	w := e.obs.expect(func(o *observer) bool { return o.synced[name] })
	t0 := time.Now()
	if err := c.Create(ctx, e, name); err != nil {
		e.obs.drop(w)
		return 0, err
	}
	t1, err := e.obs.wait(ctx, w, timeout, c.Exited(), func() string { return e.obs.describe(name) })
	if err != nil {
		return 0, fmt.Errorf("teamspace %s: %w", name, err)
	}
	b.logSample("convergence", name, t0, t1)
	return t1.Sub(t0), nil
}

// logSample logs one sample with its wall-clock start, so that a slow one
// can be lined up with what the contender logged meanwhile (a GC cycle in
// its gctrace, a periodic pass, a relist).
func (b *bench) logSample(kind, name string, t0, t1 time.Time) {
	b.logf("sample %s %s at %s: %.1f ms", kind, name, t0.Format("15:04:05.000"), float64(t1.Sub(t0).Microseconds())/1000)
}

// convergence takes -samples convergence samples, TeamSpaces <g>-0...
// They stay: later samples see the earlier ones as others.
//
// With a paired floor, every sample is followed by one of the raw floor on
// the same control plane (<g>f-0...), the contender frozen meanwhile so
// that it neither races the floor's writes nor uses the CPU. Each
// contender runs on control planes of its own, one after another, and on
// this 2-core machine the same contender's p50 moves by ±15% between two
// of them; samples taken alternately on one control plane see the same
// machine, so their ratio does not move with it.
func (b *bench) convergence(ctx context.Context, e *env, c contender, floor *rawContender, g string) (own, paired *Dist, err error) {
	var d, fd []time.Duration
	for i := 0; i < b.cfg.samples; i++ {
		x, err := b.converge(ctx, e, c, fmt.Sprintf("%s-%d", g, i), b.cfg.sampleTimeout)
		if err != nil {
			return nil, nil, err
		}
		d = append(d, x)
		if err := pace(ctx, b.cfg.gap); err != nil {
			return nil, nil, err
		}
		if floor == nil {
			continue
		}
		y, err := b.floorSample(ctx, e, c, floor, fmt.Sprintf("%sf-%d", g, i))
		if err != nil {
			return nil, nil, fmt.Errorf("paired floor: %w", err)
		}
		fd = append(fd, y)
		// The thawed contender now looks at the floor's TeamSpace, finds it
		// in order and writes nothing; the gap covers that look.
		if err := pace(ctx, b.cfg.gap); err != nil {
			return nil, nil, err
		}
	}
	if floor != nil {
		paired = newDist(fd)
	}
	return newDist(d), paired, nil
}

// floorSample is one convergence of the raw floor with c frozen.
func (b *bench) floorSample(ctx context.Context, e *env, c contender, floor *rawContender, name string) (time.Duration, error) {
	if err := c.Pause(); err != nil {
		return 0, fmt.Errorf("pause: %w", err)
	}
	d, err := b.converge(ctx, e, floor, name, b.cfg.sampleTimeout)
	if rerr := c.Resume(); err == nil && rerr != nil {
		err = fmt.Errorf("resume: %w", rerr)
	}
	return d, err
}

// pairedFloor is the raw floor that takes turns with c on c's control
// plane, or nil: with -paired-floor=false, for the raw floor itself, and
// for a contender that cannot be frozen (cnpa-inproc runs in the harness).
// It connects as the contender's user, so its requests are in the audit
// log as the contender's; none falls in a window that counts them (the
// idle window, the batches).
func (b *bench) pairedFloor(ctx context.Context, e *env, c contender) (*rawContender, error) {
	if _, freezable := c.(*procContender); !b.cfg.pairedFloor || !freezable {
		return nil, nil
	}
	floor := &rawContender{}
	return floor, floor.Start(ctx, e)
}

// floorLog is the paired floor's part of a convergence log line.
func floorLog(a *AtN) string {
	if a.Floor == nil {
		return ""
	}
	return fmt.Sprintf("; raw floor on this control plane %s (ratio of p50s %.2f)", a.Floor, a.Convergence.P50MS/a.Floor.P50MS)
}

// drift takes -drift-samples of each kind on one converged TeamSpace:
// restore (delete team-quota; until a quota with a new uid exists) and
// revert (merge-patch hard.pods to 99; until it is back at spec.pods).
// Both are timed from just before the harness's request.
func (b *bench) drift(ctx context.Context, e *env, c contender, name string) (restore, revert *Dist, err error) {
	ns := teamspace.NamespaceName(name)
	quotas := e.kube.CoreV1().ResourceQuotas(ns)
	describe := func() string { return e.obs.describe(name) }
	var rs, rv []time.Duration
	for i := 0; i < b.cfg.driftSamples; i++ {
		old := e.obs.quotaUID(name)
		if old == "" {
			return nil, nil, fmt.Errorf("quota %s/%s is not observed before drift sample %d: %s", ns, teamspace.QuotaName, i, describe())
		}
		w := e.obs.expect(func(o *observer) bool {
			q, ok := o.quota[ns]
			return ok && q.UID != old
		})
		t0 := time.Now()
		if err := quotas.Delete(ctx, teamspace.QuotaName, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &old}}); err != nil {
			e.obs.drop(w)
			return nil, nil, fmt.Errorf("delete quota %s/%s: %w", ns, teamspace.QuotaName, err)
		}
		if err := c.QuotaChanged(ctx, e, name); err != nil {
			e.obs.drop(w)
			return nil, nil, err
		}
		t1, err := e.obs.wait(ctx, w, b.cfg.sampleTimeout, c.Exited(), describe)
		if err != nil {
			return nil, nil, fmt.Errorf("restore of deleted quota %s/%s: %w", ns, teamspace.QuotaName, err)
		}
		b.logSample("restore", name, t0, t1)
		rs = append(rs, t1.Sub(t0))
		if err := pace(ctx, b.cfg.gap); err != nil {
			return nil, nil, err
		}
	}
	for i := 0; i < b.cfg.driftSamples; i++ {
		// The edit must be seen before the revert counts: watch events come
		// in order, so "99 seen, then spec.pods" is the revert itself.
		seen := false
		w := e.obs.expect(func(o *observer) bool {
			q, ok := o.quota[ns]
			if ok && quotaPods(q) == 99 {
				seen = true
			}
			return seen && ok && quotaPods(q) == benchPods
		})
		t0 := time.Now()
		if _, err := quotas.Patch(ctx, teamspace.QuotaName, types.MergePatchType, []byte(`{"spec":{"hard":{"pods":"99"}}}`),
			metav1.PatchOptions{FieldManager: driftManager}); err != nil {
			e.obs.drop(w)
			return nil, nil, fmt.Errorf("edit quota %s/%s: %w", ns, teamspace.QuotaName, err)
		}
		if err := c.QuotaChanged(ctx, e, name); err != nil {
			e.obs.drop(w)
			return nil, nil, err
		}
		t1, err := e.obs.wait(ctx, w, b.cfg.sampleTimeout, c.Exited(), describe)
		if err != nil {
			return nil, nil, fmt.Errorf("revert of edited quota %s/%s: %w", ns, teamspace.QuotaName, err)
		}
		b.logSample("revert", name, t0, t1)
		rv = append(rv, t1.Sub(t0))
		if err := pace(ctx, b.cfg.gap); err != nil {
			return nil, nil, err
		}
	}
	return newDist(rs), newDist(rv), nil
}

// batch creates n TeamSpaces <g>-0...<g>-(n-1) with -creators concurrent
// creators and times until the observer has seen all of them in sync. It
// also counts the API requests the batch caused (all clients).
func (b *bench) batch(ctx context.Context, e *env, c contender, g string, n int) (*Batch, error) {
	before, err := scrapeRequests(ctx, e.cluster.Server, e.cluster.Token)
	if err != nil {
		return nil, err
	}
	a0, err := e.id.auditMark()
	if err != nil {
		return nil, err
	}
	w := e.obs.expect(func(o *observer) bool { return o.groups[g] >= n })
	names := make(chan string)
	errs := make(chan error, b.cfg.creators)
	var wg sync.WaitGroup
	t0 := time.Now()
	for i := 0; i < b.cfg.creators; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range names {
				if err := c.Create(ctx, e, name); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	go func() {
		defer close(names)
		for i := 0; i < n; i++ {
			select {
			case names <- fmt.Sprintf("%s-%d", g, i):
			case <-ctx.Done():
				return
			}
		}
	}()
	wg.Wait()
	created := time.Since(t0)
	close(errs)
	if err := <-errs; err != nil {
		e.obs.drop(w)
		// Drain the feeder: creators that returned early left it blocked.
		for range names {
		}
		return nil, err
	}
	timeout := b.cfg.warmTimeout + time.Duration(n)*b.cfg.perTeamSpace
	t1, err := e.obs.wait(ctx, w, timeout, c.Exited(), func() string { return e.obs.describeGroup(g, n) })
	if err != nil {
		return nil, err
	}
	after, err := scrapeRequests(ctx, e.cluster.Server, e.cluster.Token)
	if err != nil {
		return nil, err
	}
	a1, err := e.id.auditMark()
	if err != nil {
		return nil, err
	}
	own, err := e.id.auditCounts(a0, a1)
	if err != nil {
		return nil, err
	}
	return &Batch{Count: n, Creators: b.cfg.creators, CreatedSeconds: created.Seconds(), InSyncSeconds: t1.Sub(t0).Seconds(),
		Requests: after.sub(before).byVerb(), ContenderRequests: own}, nil
}

// idle counts the API requests over -idle at N with nothing changing, once
// with the contender running and once with it frozen (SIGSTOP: its watches
// stay open, it sends nothing). The difference is the contender's own idle
// cost. The frozen window is split in two halves around the running one,
// so that background activity that fades or grows over the minutes (the
// garbage collector's retries, say) weighs the same on both sides.
func (b *bench) idle(ctx context.Context, e *env, c contender, name string) (*Idle, error) {
	b.settle(ctx, e, name)
	window := b.cfg.idle
	measure := func(d time.Duration) (requestCounts, error) {
		m0, err := scrapeRequests(ctx, e.cluster.Server, e.cluster.Token)
		if err != nil {
			return nil, err
		}
		if err := pace(ctx, d); err != nil {
			return nil, err
		}
		m1, err := scrapeRequests(ctx, e.cluster.Server, e.cluster.Token)
		if err != nil {
			return nil, err
		}
		return m1.sub(m0), nil
	}
	frozenHalf := func() (requestCounts, error) {
		if err := c.Pause(); err != nil {
			return nil, fmt.Errorf("pause: %w", err)
		}
		defer c.Resume()
		// A request in flight when the contender froze lands within the
		// next second; it is the contender's, so it is left out of the
		// frozen window.
		if err := pace(ctx, time.Second); err != nil {
			return nil, err
		}
		m, err := measure(window / 2)
		if err != nil {
			return nil, err
		}
		return m, c.Resume()
	}
	before, err := frozenHalf()
	if err != nil {
		return nil, err
	}
	a0, err := e.id.auditMark()
	if err != nil {
		return nil, err
	}
	running, err := measure(window)
	if err != nil {
		return nil, err
	}
	a1, err := e.id.auditMark()
	if err != nil {
		return nil, err
	}
	own, err := e.id.auditCounts(a0, a1)
	if err != nil {
		return nil, err
	}
	after, err := frozenHalf()
	if err != nil {
		return nil, err
	}
	frozen := requestCounts{}
	for _, m := range []requestCounts{before, after} {
		for k, v := range m {
			frozen[k] += v
		}
	}
	idle := &Idle{WindowSeconds: window.Seconds(), Running: running, Frozen: frozen,
		ExcessPerMinute: excess(running.byVerb(), frozen.byVerb(), window),
		Contender:       own, ContenderPerMinute: excess(own.byVerb(), nil, window)}
	idle.NonWatchPerMinute = nonWatch(idle.ExcessPerMinute)
	idle.ContenderNonWatchPerMinute = nonWatch(idle.ContenderPerMinute)
	return idle, nil
}

// settle waits until the contender has sent no write for -quiet (from the
// audit log) and no watch event has arrived for as long, at most
// -settle-max, so that what follows measures a steady state and not the tail of
// the previous burst. It paces the run; nothing is decided on it.
func (b *bench) settle(ctx context.Context, e *env, name string) {
	start := time.Now()
	deadline := start.Add(b.cfg.settleMax)
	mark, err := e.id.auditMark()
	if err != nil {
		return
	}
	busy := start // the last time anything happened
	for time.Now().Before(deadline) {
		if pace(ctx, 250*time.Millisecond) != nil {
			return
		}
		if now, err := e.id.auditMark(); err == nil && now != mark {
			if counts, err := e.id.auditCounts(mark, now); err == nil && writes(counts) > 0 {
				busy = time.Now()
			}
			mark = now
		}
		if last := e.obs.lastEvent(); last.After(busy) {
			busy = last
		}
		if time.Since(busy) >= b.cfg.quiet {
			if d := time.Since(start) - b.cfg.quiet; d > time.Second {
				b.logf("[%s] settled after %s of trailing work", name, d.Round(100*time.Millisecond))
			}
			return
		}
	}
	b.logf("[%s] still busy after %s; measuring anyway", name, b.cfg.settleMax)
}

// writes counts the requests that change something.
func writes(c requestCounts) float64 {
	var n float64
	for verb, v := range c.byVerb() {
		switch verb {
		case "GET", "LIST", "WATCH":
		default:
			n += v
		}
	}
	return n
}

// nonWatch sums per-verb counts but WATCH (a watch is counted when it
// ends, and keeping watches is allowed), to one decimal.
func nonWatch(byVerb map[string]float64) float64 {
	var n float64
	for verb, v := range byVerb {
		if verb != "WATCH" {
			n += v
		}
	}
	return math.Round(n*10) / 10
}

// pace waits d: spacing between samples and measurement windows, never a
// substitute for waiting on a condition.
func pace(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// newDist summarises samples: nearest-rank p50 and p95, and the max.
func newDist(d []time.Duration) *Dist {
	ms := make([]float64, len(d))
	for i, x := range d {
		ms[i] = math.Round(float64(x)/float64(time.Microsecond)) / 1000
	}
	sorted := append([]float64(nil), ms...)
	sort.Float64s(sorted)
	rank := func(q float64) float64 {
		if len(sorted) == 0 {
			return 0
		}
		i := int(math.Ceil(q*float64(len(sorted)))) - 1
		return sorted[max(i, 0)]
	}
	return &Dist{SamplesMS: ms, P50MS: rank(0.50), P95MS: rank(0.95), MaxMS: rank(1)}
}

func (d *Dist) String() string {
	if d == nil {
		return "-"
	}
	return fmt.Sprintf("%d samples, p50 %s p95 %s max %s", len(d.SamplesMS), fmtMS(d.P50MS), fmtMS(d.P95MS), fmtMS(d.MaxMS))
}

// writeJSON writes v to path atomically (temp file, then rename).
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

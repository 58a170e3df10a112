package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSmoke runs the whole harness at tiny sizes against real control
// planes: cnpa, the shell engine and the raw floor always, the peer when its
// module is there and builds in time. It asserts that the harness produced
// every number for every contender it ran, never how fast they are.
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("starts eight control planes; skipped with -short")
	}
	contenders := "cnpa,shell,raw"
	peerDir := os.Getenv("CNPA_PEER_DIR")
	if peerDir == "" {
		root, err := moduleRoot()
		if err != nil {
			t.Fatal(err)
		}
		peerDir = filepath.Join(filepath.Dir(root), "shared", "peer")
	}
	if _, err := os.Stat(filepath.Join(peerDir, "go.mod")); err == nil {
		contenders = "cnpa,shell,peer,raw"
	} else {
		t.Logf("peer column skipped: no peer module at %s (set CNPA_PEER_DIR)", peerDir)
	}
	results := t.TempDir()
	cfg, err := parseFlags([]string{
		"-contenders", contenders, "-peer-dir", peerDir,
		"-n-background", "3", "-bulk", "5", "-samples", "2", "-drift-samples", "2", "-idle", "5s",
		"-shell-n", "3", "-shell-bulk", "5", "-gap", "0", "-quiet", "1s",
		// The class phase is measured by make bench; TestClass in
		// test/learners tests what it runs.
		"-phases", "steady,bulk",
		// Timings are not asserted, so the contenders may share the
		// machine: the run takes as long as the slowest (the shell loop).
		"-parallel",
		// A cold peer build (controller-runtime from scratch) takes minutes;
		// the smoke run skips the peer rather than blow the test budget.
		"-peer-build-timeout", "90s",
		"-results", results,
	}, os.Stderr)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	var out, logs bytes.Buffer
	rep, err := run(ctx, cfg, &out, &logs)
	t.Logf("progress:\n%s", logs.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("table:\n%s", out.String())
	if reason, ok := rep.Skipped[namePeer]; ok {
		t.Logf("peer column skipped: %s", reason)
	}

	ran := map[string]*Result{}
	for _, c := range rep.Contenders {
		ran[c.Name] = c
	}
	for _, name := range []string{nameCnpa, nameShell, nameRaw} {
		if ran[name] == nil {
			t.Errorf("contender %s: did not run (skipped: %q)", name, rep.Skipped[name])
		}
	}
	for _, c := range rep.Contenders {
		t.Run(c.Name, func(t *testing.T) {
			for _, e := range c.Errors {
				t.Errorf("error: %s", e)
			}
			for _, at := range []struct {
				name string
				a    *AtN
			}{{"N=0", c.N0}, {"N=large", c.NLarge}} {
				if at.a == nil {
					t.Errorf("%s: no numbers", at.name)
					continue
				}
				checkDist(t, at.name+" convergence", at.a.Convergence, cfg.samples)
				if c.Name == nameRaw {
					if at.a.Floor != nil {
						t.Errorf("%s: the raw floor has a paired floor of its own: %+v", at.name, at.a.Floor)
					}
				} else {
					checkDist(t, at.name+" paired floor", at.a.Floor, cfg.samples)
				}
				checkDist(t, at.name+" drift restore", at.a.DriftRestore, cfg.driftSamples)
				checkDist(t, at.name+" drift revert", at.a.DriftRevert, cfg.driftSamples)
			}
			if c.Background == nil || c.Background.InSyncSeconds <= 0 {
				t.Errorf("background: got %+v, want a time", c.Background)
			}
			if c.BulkRun == nil || c.BulkRun.InSyncSeconds <= 0 || c.BulkRun.Count != c.Bulk {
				t.Errorf("bulk: got %+v, want %d in sync with a time", c.BulkRun, c.Bulk)
			} else if len(c.BulkRun.ContenderRequests) == 0 {
				t.Errorf("bulk: the audit log attributed no request to the contender, want its writes")
			}
			// Both windows must have been measured. What falls into them
			// is the control plane's own periodic traffic plus the
			// contender's: in a 5 s window of the raw floor, where nothing
			// runs, either may hold no request at all.
			if c.Idle == nil || c.Idle.WindowSeconds <= 0 || c.Idle.Running == nil || c.Idle.Frozen == nil {
				t.Errorf("idle: got %+v, want both windows measured", c.Idle)
			}
			wantRSS := c.Name != nameRaw
			for _, m := range []*Memory{c.RSSSteady, c.RSSBulk} {
				switch {
				case m == nil:
					t.Errorf("RSS: missing")
				case wantRSS && m.Bytes <= 0:
					t.Errorf("RSS: got %+v, want a peak in bytes", m)
				case !wantRSS && m.Bytes != 0:
					t.Errorf("RSS: got %+v, want n/a for the raw floor", m)
				}
			}
		})
	}

	// The table has a column per contender and the JSON says the same.
	header, _, _ := strings.Cut(strings.SplitN(out.String(), "| Metric", 2)[1], "\n")
	for _, c := range rep.Contenders {
		if !strings.Contains(header, c.Name) && !strings.Contains(header, map[string]string{nameRaw: "raw floor"}[c.Name]) {
			t.Errorf("table header %q: no column for %s", header, c.Name)
		}
	}
	files, _ := filepath.Glob(filepath.Join(results, "bench-*.json"))
	if len(files) != 1 {
		t.Fatalf("results: got %v, want one bench-<date>.json", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("results JSON: %v", err)
	}
	if back.Cores < 1 || back.Date.IsZero() || len(back.Contenders) != len(rep.Contenders) {
		t.Errorf("results JSON: got cores %d, date %v, %d contenders; want cores, date and %d contenders",
			back.Cores, back.Date, len(back.Contenders), len(rep.Contenders))
	}
}

func checkDist(t *testing.T, what string, d *Dist, n int) {
	t.Helper()
	switch {
	case d == nil:
		t.Errorf("%s: no samples", what)
	case len(d.SamplesMS) != n:
		t.Errorf("%s: got %d samples, want %d", what, len(d.SamplesMS), n)
	case d.P50MS <= 0 || d.MaxMS < d.P95MS || d.P95MS < d.P50MS:
		t.Errorf("%s: got p50 %v p95 %v max %v, want 0 < p50 ≤ p95 ≤ max", what, d.P50MS, d.P95MS, d.MaxMS)
	}
}

// TestParseRequestTotal reads the counter the idle scenario depends on.
func TestParseRequestTotal(t *testing.T) {
	in := `# HELP apiserver_request_total [STABLE] Counter of apiserver requests
# TYPE apiserver_request_total counter
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="namespaces",scope="cluster",subresource="",verb="LIST",version="v1"} 3
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="namespaces",scope="resource",subresource="",verb="GET",version="v1"} 2
apiserver_request_total{code="404",component="apiserver",dry_run="",group="",resource="namespaces",scope="resource",subresource="",verb="GET",version="v1"} 1
apiserver_request_total{code="200",component="apiserver",dry_run="",group="platform.labhub.io",resource="teamspaces",scope="resource",subresource="status",verb="PATCH",version="v1alpha1"} 7
apiserver_request_total{code="200",component="apiserver",dry_run="",group="",resource="",scope="",subresource="/openapi/v3",verb="GET",version=""} 4
apiserver_request_duration_seconds_bucket{verb="GET",le="0.1"} 99
`
	got, err := parseRequestTotal(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := requestCounts{"LIST namespaces": 3, "GET namespaces": 3, "PATCH teamspaces/status": 7, "GET /openapi/v3": 4}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %v, want %v", k, got[k], v)
		}
	}
	verbs := got.byVerb()
	if verbs["GET"] != 7 || verbs["LIST"] != 3 || verbs["PATCH"] != 7 {
		t.Errorf("byVerb: got %v, want GET 7, LIST 3, PATCH 7", verbs)
	}
}

// TestDist pins the nearest-rank percentiles.
func TestDist(t *testing.T) {
	var d []time.Duration
	for i := 1; i <= 20; i++ {
		d = append(d, time.Duration(i)*time.Millisecond)
	}
	got := newDist(d)
	if got.P50MS != 10 || got.P95MS != 19 || got.MaxMS != 20 {
		t.Errorf("got p50 %v p95 %v max %v, want 10, 19, 20", got.P50MS, got.P95MS, got.MaxMS)
	}
}

// TestJudgeConvergence: with paired floors the convergence target is
// judged on each controller's ratio to the floor on its own control plane;
// without, across control planes as before.
func TestJudgeConvergence(t *testing.T) {
	dist := func(p50 float64) *Dist { return &Dist{P50MS: p50, P95MS: p50, MaxMS: p50} }
	report := func(cnpaFloor, peerFloor *Dist) *Report {
		return &Report{Contenders: []*Result{
			// Across control planes cnpa looks slower than both.
			{Name: nameCnpa, N0: &AtN{Convergence: dist(20), Floor: cnpaFloor}},
			{Name: namePeer, N0: &AtN{Convergence: dist(19), Floor: peerFloor}},
			{Name: nameRaw, N0: &AtN{Convergence: dist(16)}},
		}}
	}
	judge := judgeConvergence("convergence p50 at N=0", atN0)
	for _, tc := range []struct {
		name       string
		rep        *Report
		holds      bool
		wantDetail []string
	}{
		{"paired both", report(dist(21.5), dist(17)), true,
			[]string{"0.93× the raw floor on its own control plane", "the peer's is 1.12×", "0.83× peer", "across control planes: 1.25× raw"}},
		{"paired, the peer closer to its floor", report(dist(21.5), dist(22)), false,
			[]string{"the peer's is 0.86×", "1.08× peer"}},
		{"paired cnpa above 1.1×", report(dist(17.5), dist(17)), false,
			[]string{"1.14× the raw floor on its own control plane"}},
		{"paired cnpa only: peer judged on times", report(dist(21.5), nil), false,
			[]string{"0.93× the raw floor", "1.05× peer"}},
		{"no paired floors: across control planes", report(nil, nil), false,
			[]string{"1.25× raw (limit 1.1×)", "1.05× peer"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := judge(tc.rep)
			if got.Holds == nil || *got.Holds != tc.holds {
				t.Errorf("holds: got %v, want %v (%s)", got.Holds, tc.holds, got.Detail)
			}
			for _, want := range tc.wantDetail {
				if !strings.Contains(got.Detail, want) {
					t.Errorf("detail %q: want %q in it", got.Detail, want)
				}
			}
		})
	}
}

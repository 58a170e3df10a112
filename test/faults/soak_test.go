//go:build soak

package faults

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// TestSoak: 1,000 TeamSpaces under random spec changes, quota edits,
// quota deletions, TeamSpace deletions and creations for a few minutes,
// with the controller restarted twice (SIGTERM once, SIGKILL once). At the
// end every live TeamSpace is in sync, every deleted one has exactly one
// archive record with its uid, and no team-soak-* namespace is left
// without its TeamSpace once garbage collection is done.
//
// Run with `make soak`. CNPA_SOAK_TEAMSPACES, CNPA_SOAK_DURATION,
// CNPA_SOAK_RATE (operations per second) and CNPA_SOAK_SEED tune it.
func TestSoak(t *testing.T) {
	n := envInt(t, "CNPA_SOAK_TEAMSPACES", 1000)
	churn := envDuration(t, "CNPA_SOAK_DURATION", 3*time.Minute)
	rate := envInt(t, "CNPA_SOAK_RATE", 20)
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("CNPA_SOAK_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("soak: %d TeamSpaces, %s of churn at %d ops/s, seed %d", n, churn, rate, seed)

	e := kit.New(t, cluster.Shared(t))
	s := &soak{e: e, t: t, live: map[string]types.UID{}, deleted: map[string]types.UID{}, dir: t.TempDir(),
		rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	s.start()

	// 1. Create them all.
	began := time.Now()
	var wg sync.WaitGroup
	names := make(chan string)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for name := range names {
				s.create(name)
			}
		}()
	}
	for i := 0; i < n; i++ {
		names <- fmt.Sprintf("soak-%04d", i)
	}
	close(names)
	wg.Wait()
	created := time.Since(began)
	s.waitInSync("initial convergence", 15*time.Minute)
	t.Logf("phase 1: %d TeamSpaces created in %s, all in sync %s after the first create",
		n, created.Round(time.Millisecond), time.Since(began).Round(time.Millisecond))

	// 2. Churn, restarting the controller at a third and two thirds.
	churnStart := time.Now()
	ops := make(chan struct{}, rate)
	stopOps := make(chan struct{})
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range ops {
				s.randomOp()
			}
		}()
	}
	go func() {
		tick := time.NewTicker(time.Second / time.Duration(rate))
		defer tick.Stop()
		defer close(ops)
		for {
			select {
			case <-stopOps:
				return
			case <-tick.C:
				select {
				case ops <- struct{}{}:
				default:
					s.dropped.Add(1) // the cluster is slower than the rate: skip, do not pile up
				}
			}
		}
	}()
	restartAt := []time.Duration{churn / 3, 2 * churn / 3}
	for i, at := range restartAt {
		select {
		case <-time.After(time.Until(churnStart.Add(at))):
		case <-e.Ctx.Done():
			t.Fatal(e.Ctx.Err())
		}
		s.restart(i == 1)
	}
	<-time.After(time.Until(churnStart.Add(churn)))
	close(stopOps)
	wg.Wait()
	churnEnd := time.Now()
	t.Logf("phase 2: %s of churn: %s", churnEnd.Sub(churnStart).Round(time.Millisecond), s.opSummary())

	// 3. Everything deleted is gone, everything live is in sync.
	s.waitDeletedGone(10 * time.Minute)
	goneAfter := time.Since(churnEnd)
	s.waitInSync("final convergence", 10*time.Minute)
	syncAfter := time.Since(churnEnd)
	t.Logf("phase 3: all %d deleted TeamSpaces gone %s after the churn; all %d live in sync %s after it",
		len(s.deleted), goneAfter.Round(time.Millisecond), len(s.live), syncAfter.Round(time.Millisecond))

	// 4. One archive record per deleted TeamSpace, with its uid; nothing else.
	s.checkArchive()

	// 5. No team-soak-* namespace without its live TeamSpace, once GC is done.
	gcStart := time.Now()
	s.waitNoOrphans(20 * time.Minute)
	t.Logf("phase 5: no orphaned team-soak-* namespace %s after the final convergence (%s after the churn)",
		time.Since(gcStart).Round(time.Millisecond), time.Since(churnEnd).Round(time.Millisecond))

	s.final()
	t.Logf("controller totals over %d runs: %s", len(s.runs), s.metricSummary())
	t.Logf("controller error log lines over all runs: %d", len(s.errorLines))
	for _, l := range s.errorLines[:min(10, len(s.errorLines))] {
		t.Logf("  %s", l)
	}
}

type soak struct {
	e   *kit.Env
	t   *testing.T
	dir string

	mu      sync.Mutex
	rng     *rand.Rand
	live    map[string]types.UID
	deleted map[string]types.UID
	nextNew int

	ctrl       *kit.Ctrl
	runs       []map[string]float64
	errorLines []string

	specChanges, quotaEdits, quotaDeletes, deletes, creates, skipped, opErrors, dropped atomic.Int64
}

var soakCPUs = []string{"1", "500m", "250m", "2", "1500m", "0.5"}

func (s *soak) start() {
	s.ctrl = s.e.StartController("soak", kit.CtrlOpts{ArchiveDir: s.dir})
}

// restart stops the controller (SIGTERM, or SIGKILL when kill) and starts
// a new one on the same archive dir.
func (s *soak) restart(kill bool) {
	s.runs = append(s.runs, s.scrape())
	how := "SIGTERM"
	down := time.Now()
	if kill {
		how = "SIGKILL"
		s.ctrl.Kill()
	} else {
		s.ctrl.Stop()
	}
	stopped := time.Since(down)
	s.start()
	s.t.Logf("restart (%s): stopped in %s, ready again %s after the signal", how, stopped.Round(time.Millisecond), time.Since(down).Round(time.Millisecond))
}

func (s *soak) scrape() map[string]float64 {
	m := map[string]float64{}
	for _, name := range []string{"cnpa_reconcile_total", "cnpa_drift_corrections_total", "cnpa_archived_total"} {
		v, _ := s.ctrl.Metric(name)
		m[name] = v
	}
	m["errors"] = s.ctrl.MustMetricWhere("cnpa_reconcile_total", `result="error"`)
	s.errorLines = append(s.errorLines, kit.GrepLines(s.ctrl.Log(), `level=ERROR|^E[0-9]{4} `)...)
	return m
}

func (s *soak) final() {
	s.runs = append(s.runs, s.scrape())
}

func (s *soak) metricSummary() string {
	total := map[string]float64{}
	for _, r := range s.runs {
		for k, v := range r {
			total[k] += v
		}
	}
	return fmt.Sprintf("%.0f reconciles (%.0f errors), %.0f drift corrections, %.0f archived",
		total["cnpa_reconcile_total"], total["errors"], total["cnpa_drift_corrections_total"], total["cnpa_archived_total"])
}

func (s *soak) opSummary() string {
	return fmt.Sprintf("%d spec changes, %d quota edits (pods 99), %d quota deletions, %d TeamSpace deletions, %d creations; %d skipped (no finalizer yet / gone), %d failed requests, %d ticks dropped",
		s.specChanges.Load(), s.quotaEdits.Load(), s.quotaDeletes.Load(), s.deletes.Load(), s.creates.Load(), s.skipped.Load(), s.opErrors.Load(), s.dropped.Load())
}

func (s *soak) create(name string) {
	s.mu.Lock()
	pods, cpu := s.rng.Int64N(50)+1, soakCPUs[s.rng.IntN(len(soakCPUs))]
	s.mu.Unlock()
	created, err := s.e.Dyn.Resource(teamspace.GVR).Create(s.e.Ctx, kit.NewTeamSpace(name, pods, cpu), metav1.CreateOptions{})
	if err != nil {
		s.t.Errorf("create %s: %v", name, err)
		return
	}
	s.mu.Lock()
	s.live[name] = created.GetUID()
	s.mu.Unlock()
}

// pick returns a random live name ("" when none).
func (s *soak) pick() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.live) == 0 {
		return ""
	}
	// Map order is not random enough to rely on; index a sorted snapshot.
	names := make([]string, 0, len(s.live))
	for n := range s.live {
		names = append(names, n)
	}
	sort.Strings(names)
	return names[s.rng.IntN(len(names))]
}

func (s *soak) randomOp() {
	s.mu.Lock()
	r := s.rng.IntN(100)
	pods, cpu := s.rng.Int64N(50)+1, soakCPUs[s.rng.IntN(len(soakCPUs))]
	s.mu.Unlock()
	ctx := s.e.Ctx
	fail := func(err error) {
		if err != nil && !apierrors.IsNotFound(err) {
			s.opErrors.Add(1)
		}
	}
	switch {
	case r < 40:
		name := s.pick()
		patch := fmt.Sprintf(`{"spec":{"pods":%d,"cpu":%q}}`, pods, cpu)
		_, err := s.e.Dyn.Resource(teamspace.GVR).Patch(ctx, name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		fail(err)
		s.specChanges.Add(1)
	case r < 60:
		name := s.pick()
		_, err := s.e.Kube.CoreV1().ResourceQuotas(teamspace.NamespaceName(name)).Patch(ctx, teamspace.QuotaName, types.MergePatchType,
			[]byte(`{"spec":{"hard":{"pods":"99"}}}`), metav1.PatchOptions{FieldManager: "soak-hand"})
		fail(err)
		s.quotaEdits.Add(1)
	case r < 70:
		name := s.pick()
		fail(s.e.Kube.CoreV1().ResourceQuotas(teamspace.NamespaceName(name)).Delete(ctx, teamspace.QuotaName, metav1.DeleteOptions{}))
		s.quotaDeletes.Add(1)
	case r < 85:
		s.deleteOne()
	default:
		s.mu.Lock()
		name := fmt.Sprintf("soak-n-%05d", s.nextNew)
		s.nextNew++
		s.mu.Unlock()
		s.create(name)
		s.creates.Add(1)
	}
}

// deleteOne deletes a random live TeamSpace that already carries our
// finalizer: before the controller has added it, a deletion is immediate
// and no archive is owed (that is what the finalizer is for).
func (s *soak) deleteOne() {
	name := s.pick()
	if name == "" {
		return
	}
	s.mu.Lock()
	uid, ok := s.live[name]
	if ok {
		delete(s.live, name) // no other operation picks it from now on
	}
	s.mu.Unlock()
	if !ok {
		s.skipped.Add(1)
		return
	}
	ts, err := s.e.GetTeamSpace(name)
	if err != nil || !teamspace.HasFinalizer(ts.Finalizers, teamspace.Finalizer) {
		s.mu.Lock()
		s.live[name] = uid
		s.mu.Unlock()
		s.skipped.Add(1)
		return
	}
	err = s.e.Dyn.Resource(teamspace.GVR).Delete(s.e.Ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
	if err != nil {
		s.opErrors.Add(1)
		s.mu.Lock()
		s.live[name] = uid
		s.mu.Unlock()
		return
	}
	s.mu.Lock()
	s.deleted[name] = uid
	s.mu.Unlock()
	s.deletes.Add(1)
}

// snapshot reads the cluster with three LISTs.
func (s *soak) snapshot() (map[string]*teamspace.TeamSpace, map[string]*corev1.Namespace, map[string]*corev1.ResourceQuota, error) {
	tsList, err := s.e.Dyn.Resource(teamspace.GVR).List(s.e.Ctx, metav1.ListOptions{})
	if err != nil {
		return nil, nil, nil, err
	}
	nsList, err := s.e.Kube.CoreV1().Namespaces().List(s.e.Ctx, metav1.ListOptions{})
	if err != nil {
		return nil, nil, nil, err
	}
	qList, err := s.e.Kube.CoreV1().ResourceQuotas("").List(s.e.Ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + teamspace.QuotaName})
	if err != nil {
		return nil, nil, nil, err
	}
	tss := map[string]*teamspace.TeamSpace{}
	for i := range tsList.Items {
		ts, err := teamspace.FromUnstructured(&tsList.Items[i])
		if err != nil {
			return nil, nil, nil, err
		}
		tss[ts.Name] = ts
	}
	nss := map[string]*corev1.Namespace{}
	for i := range nsList.Items {
		nss[nsList.Items[i].Name] = &nsList.Items[i]
	}
	qs := map[string]*corev1.ResourceQuota{}
	for i := range qList.Items {
		qs[qList.Items[i].Namespace] = &qList.Items[i]
	}
	return tss, nss, qs, nil
}

func (s *soak) waitInSync(what string, timeout time.Duration) {
	s.t.Helper()
	s.e.WaitFor(what, timeout, func() error {
		tss, nss, qs, err := s.snapshot()
		if err != nil {
			return err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		var bad []string
		for name, uid := range s.live {
			ts, ok := tss[name]
			if !ok || ts.UID != uid {
				bad = append(bad, name+": missing")
				continue
			}
			nsName := teamspace.NamespaceName(name)
			err := kit.CheckConverged(ts, nss[nsName], qs[nsName], -1, "", true)
			if err != nil {
				bad = append(bad, err.Error())
			}
		}
		if len(bad) > 0 {
			sort.Strings(bad)
			return fmt.Errorf("%d of %d live TeamSpaces not in sync, e.g. %s", len(bad), len(s.live), strings.Join(bad[:min(3, len(bad))], "; "))
		}
		return nil
	})
}

func (s *soak) waitDeletedGone(timeout time.Duration) {
	s.t.Helper()
	s.e.WaitFor("deleted TeamSpaces finalized and gone", timeout, func() error {
		tss, _, _, err := s.snapshot()
		if err != nil {
			return err
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		left := 0
		for name, uid := range s.deleted {
			if ts, ok := tss[name]; ok && ts.UID == uid {
				left++
			}
		}
		if left > 0 {
			return fmt.Errorf("%d of %d deleted TeamSpaces still there", left, len(s.deleted))
		}
		return nil
	})
}

func (s *soak) checkArchive() {
	s.t.Helper()
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		s.t.Fatal(err)
	}
	records := map[string]bool{}
	var temps, strays []string
	for _, en := range entries {
		switch n := en.Name(); {
		case strings.HasPrefix(n, ".") && strings.Contains(n, ".json.tmp-"):
			temps = append(temps, n)
		case strings.HasSuffix(n, ".json"):
			records[strings.TrimSuffix(n, ".json")] = true
		default:
			strays = append(strays, n)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	missing, wrong := 0, 0
	for name, uid := range s.deleted {
		raw, err := os.ReadFile(filepath.Join(s.dir, name+".json"))
		if err != nil {
			missing++
			s.t.Errorf("archive for deleted %s (uid %s): %v", name, uid, err)
			continue
		}
		var rec evidence.ArchiveRecord
		if err := json.Unmarshal(raw, &rec); err != nil || rec.Name != name || rec.UID != string(uid) {
			wrong++
			s.t.Errorf("archive for deleted %s: got %q, want name %s uid %s", name, raw, name, uid)
		}
		delete(records, name)
	}
	for name := range records {
		s.t.Errorf("archive record %s.json for a TeamSpace that was never deleted (live: %v)", name, s.live[name] != "")
	}
	if len(strays) > 0 {
		s.t.Errorf("unexpected files in the archive dir: %v", strays)
	}
	s.t.Logf("phase 4: archive dir has %d records for %d deleted TeamSpaces (%d missing, %d wrong, %d extra), %d leftover temp files from kills %v",
		len(s.deleted)-missing, len(s.deleted), missing, wrong, len(records), len(temps), temps)
}

func (s *soak) waitNoOrphans(timeout time.Duration) {
	s.t.Helper()
	s.e.WaitFor("no team-soak-* namespace without its TeamSpace", timeout, func() error {
		tss, nss, _, err := s.snapshot()
		if err != nil {
			return err
		}
		var orphans []string
		for name, ns := range nss {
			if !strings.HasPrefix(name, teamspace.NamespacePrefix+"soak-") {
				continue
			}
			ts, ok := tss[strings.TrimPrefix(name, teamspace.NamespacePrefix)]
			if !ok || ts.DeletionTimestamp != nil || !teamspace.OwnedBy(ns.OwnerReferences, ts.UID) {
				orphans = append(orphans, fmt.Sprintf("%s (%s)", name, ns.Status.Phase))
			}
		}
		if len(orphans) > 0 {
			sort.Strings(orphans)
			return fmt.Errorf("%d orphaned namespaces, e.g. %s", len(orphans), strings.Join(orphans[:min(3, len(orphans))], ", "))
		}
		return nil
	})
}

func envInt(t *testing.T, key string, def int) int {
	return envPositive(t, key, def, strconv.Atoi, "integer")
}

func envDuration(t *testing.T, key string, def time.Duration) time.Duration {
	return envPositive(t, key, def, time.ParseDuration, "duration")
}

// envPositive reads $key with parse, def when it is unset; anything but a
// positive value fails the test.
func envPositive[T int | time.Duration](t *testing.T, key string, def T, parse func(string) (T, error), what string) T {
	v := os.Getenv(key)
	if v == "" {
		return def
	}
	n, err := parse(v)
	if err != nil || n <= 0 {
		t.Fatalf("%s=%q: want a positive %s", key, v, what)
	}
	return n
}

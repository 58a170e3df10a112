package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/internal/controller"
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/testcluster"
)

// foreignFinalizer stands for another controller's finalizer, which ours
// must never drop.
const foreignFinalizer = "example.com/keep"

// goInterval is the Go controller's resync period in the running engine.
const goInterval = 3 * time.Second

// TestBehaviour runs one table of scenarios against four engines: the Go
// controller one pass at a time and running, and assets/reconcile.sh one
// pass at a time and in a loop. Both engines must show the same behaviour.
// Engines run one after another (each reconciles every TeamSpace in the
// shared cluster); every scenario uses its own TeamSpace names and removes
// them at the end.
func TestBehaviour(t *testing.T) {
	env := newEnv(t)
	for _, ek := range engineKinds {
		t.Run(ek.name, func(t *testing.T) {
			for _, sc := range scenarios {
				t.Run(sc.name, func(t *testing.T) {
					sc.run(t, env.newScenario(t, ek, sc))
				})
			}
		})
	}
	env.timings.report(t)
}

// scenario is one row of the table.
type scenario struct {
	name string
	// short goes into TeamSpace names; keep it a few lowercase letters.
	short     string
	finalizer bool
	// archiveDir picks the engine's archive dir under a fresh temp dir;
	// nil means <tmp>/archive.
	archiveDir func(tmp string) string
	run        func(t *testing.T, s *scn)
}

var scenarios = []scenario{
	{name: "1-create", short: "create", run: testCreate},
	{name: "1-create-with-finalizer", short: "createf", finalizer: true, run: testCreate},
	{name: "2-spec-change", short: "spec", run: testSpecChange},
	{name: "3-noop-pass-writes-nothing", short: "noop", finalizer: true, run: testNoop},
	{name: "4-quota-deleted", short: "qdel", run: testQuotaDeleted},
	{name: "5-quota-edited", short: "qedit", run: testQuotaEdited},
	{name: "6-delete-keeps-foreign-finalizer", short: "del", finalizer: true, run: testDelete},
	{name: "7-catch-up-after-stop", short: "stop", run: testCatchUp},
	{name: "8-bad-cpu", short: "badcpu", run: testBadCPU},
	{name: "8-dotted-name", short: "dot", run: testDottedName},
	{name: "8-long-name", short: "long", run: testLongName},
	{name: "8-foreign-namespace", short: "foreign", run: testForeignNamespace},
	{name: "8-unwritable-archive", short: "arch", finalizer: true,
		archiveDir: func(tmp string) string { return filepath.Join(tmp, "blocker", "archive") },
		run:        testUnwritableArchive},
}

// testCreate: a new TeamSpace gets its namespace, quota, status and (when
// enabled) finalizer. spec.cpu is left out to see the CRD default applied.
func testCreate(t *testing.T, s *scn) {
	name := s.name("a")
	ts := s.create(name, 4, "", nil)
	s.converge("created", s.converged(name, 4, "1"))

	ns := s.namespace(teamspace.NamespaceName(name))
	if ns == nil {
		t.Fatalf("namespace %s: got none, want it", teamspace.NamespaceName(name))
	}
	if got, want := ns.Labels[teamspace.OwnerLabel], name; got != want {
		t.Errorf("namespace label %s: got %v, want %v", teamspace.OwnerLabel, got, want)
	}
	if got, want := controllerOwnerUID(ns.OwnerReferences), ts.GetUID(); got != want {
		t.Errorf("namespace controller ownerReference uid: got %v, want %v", got, want)
	}
	live := s.teamSpace(name)
	if got, want := teamspace.HasFinalizer(live.Finalizers, teamspace.Finalizer), s.sc.finalizer; got != want {
		t.Errorf("finalizer %s present: got %v, want %v (finalizers %v)", teamspace.Finalizer, got, want, live.Finalizers)
	}
}

// testSpecChange: pods 4→6 and cpu "1"→"500m" reach the quota, and
// observedGeneration follows generation.
func testSpecChange(t *testing.T, s *scn) {
	name := s.name("a")
	s.create(name, 4, "1", nil)
	s.converge("created", s.converged(name, 4, "1"))
	s.patchSpec(name, map[string]any{"pods": 6, "cpu": "500m"})
	if got, want := s.teamSpace(name).Generation, int64(2); got != want {
		t.Fatalf("generation after the spec change: got %v, want %v", got, want)
	}
	s.converge("spec change", s.converged(name, 6, "500m"))
}

// testNoop: once everything is in place (and the quota controller has
// filled status.hard), further passes write nothing at all.
func testNoop(t *testing.T, s *scn) {
	name := s.name("a")
	s.create(name, 3, "250m", nil)
	s.converge("created", s.converged(name, 3, "250m"))
	ns := teamspace.NamespaceName(name)
	s.waitFor("quota status.hard = spec.hard", time.Minute, func() error {
		q := s.quota(ns)
		if q == nil {
			return errors.New("quota missing")
		}
		if !quantitiesEqual(q.Status.Hard, q.Spec.Hard) {
			return fmt.Errorf("status.hard: got %v, want %v", q.Status.Hard, q.Spec.Hard)
		}
		return nil
	})
	before := s.resourceVersions(name)
	writesBefore := len(s.eng.writes())
	s.idle()
	if got := s.resourceVersions(name); got != before {
		t.Errorf("resourceVersions (teamspace, namespace, quota) after two more passes: got %v, want %v", got, before)
	}
	// A write that changes nothing leaves resourceVersions alone, so count
	// the write requests themselves.
	if got := s.eng.writes()[writesBefore:]; len(got) != 0 {
		t.Errorf("write requests during two more passes: got %q, want none", got)
	}
}

// testQuotaDeleted: a deleted quota comes back as a new object; the time
// from the delete to the new uid (seen through a watch) is logged.
func testQuotaDeleted(t *testing.T, s *scn) {
	name := s.name("a")
	s.create(name, 4, "1", nil)
	s.converge("created", s.converged(name, 4, "1"))
	ns := teamspace.NamespaceName(name)
	old := s.quota(ns)

	ctx, cancel := context.WithTimeout(s.ctx, 2*time.Minute)
	defer cancel()
	w, err := s.env.kube.CoreV1().ResourceQuotas(ns).Watch(ctx, metav1.ListOptions{
		FieldSelector:   fields.OneTermEqualSelector("metadata.name", teamspace.QuotaName).String(),
		ResourceVersion: old.ResourceVersion,
	})
	if err != nil {
		t.Fatalf("watch quota: %v", err)
	}
	defer w.Stop()
	restored := make(chan types.UID, 1)
	go func() {
		for ev := range w.ResultChan() {
			if q, ok := ev.Object.(*corev1.ResourceQuota); ok && ev.Type != watch.Deleted && q.UID != old.UID {
				restored <- q.UID
				return
			}
		}
		close(restored)
	}()

	start := time.Now()
	if err := s.env.kube.CoreV1().ResourceQuotas(ns).Delete(s.ctx, teamspace.QuotaName, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete quota: %v", err)
	}
	s.pass()
	var newUID types.UID
	select {
	case uid, ok := <-restored:
		if !ok {
			t.Fatalf("watch ended before the quota came back (%v)", ctx.Err())
		}
		newUID = uid
	case <-ctx.Done():
		t.Fatalf("quota not restored within 2m; engine: %s", s.eng.diag())
	}
	elapsed := time.Since(start)
	s.env.timings.add(s.ek.name, elapsed)
	t.Logf("quota delete → new uid %s seen: %d ms (%s)", newUID, elapsed.Milliseconds(), s.ek.name)
	if newUID == old.UID {
		t.Errorf("restored quota uid: got %v, want a new one", newUID)
	}
	s.converge("restored quota", s.converged(name, 4, "1"))
}

// testQuotaEdited: a hand edit of hard.pods (merge patch by kubectl-patch)
// is reverted to spec.pods.
func testQuotaEdited(t *testing.T, s *scn) {
	name := s.name("a")
	s.create(name, 5, "1", nil)
	s.converge("created", s.converged(name, 5, "1"))
	ns := teamspace.NamespaceName(name)
	edited, err := s.env.kube.CoreV1().ResourceQuotas(ns).Patch(s.ctx, teamspace.QuotaName, types.MergePatchType,
		[]byte(`{"spec":{"hard":{"pods":"99"}}}`), metav1.PatchOptions{FieldManager: "kubectl-patch"})
	if err != nil {
		t.Fatalf("edit quota: %v", err)
	}
	if got, want := edited.Spec.Hard.Pods().String(), "99"; got != want {
		t.Fatalf("quota pods after the edit: got %v, want %v", got, want)
	}
	s.converge("edit reverted", func() error {
		q := s.quota(ns)
		if q == nil {
			return errors.New("quota missing")
		}
		if got, want := q.Spec.Hard.Pods().String(), "5"; got != want {
			return fmt.Errorf("quota pods: got %v, want %v", got, want)
		}
		return nil
	})
}

// testDelete: deleting a TeamSpace that also carries a foreign finalizer
// archives it and removes only ours; once the foreign one goes too, the
// TeamSpace goes and the garbage collector removes its namespace.
func testDelete(t *testing.T, s *scn) {
	name := s.name("a")
	ts := s.create(name, 2, "500m", []string{foreignFinalizer})
	s.converge("created", s.converged(name, 2, "500m"))
	if got, want := s.teamSpace(name).Finalizers, []string{foreignFinalizer, teamspace.Finalizer}; !slices.Equal(got, want) {
		t.Fatalf("finalizers: got %v, want %v", got, want)
	}
	s.deleteTeamSpace(name)
	s.converge("our finalizer removed", func() error {
		live := s.teamSpace(name)
		if live == nil {
			return errors.New("teamspace is gone, want it held by the foreign finalizer")
		}
		if live.DeletionTimestamp == nil {
			return errors.New("no deletionTimestamp")
		}
		if got, want := live.Finalizers, []string{foreignFinalizer}; !slices.Equal(got, want) {
			return fmt.Errorf("finalizers: got %v, want %v", got, want)
		}
		return nil
	})
	rec, err := evidence.ReadArchive(s.archiveDir, name)
	if err != nil || rec == nil {
		t.Fatalf("archive %s/%s.json: got %v (err %v), want a record", s.archiveDir, name, rec, err)
	}
	if want := (evidence.ArchiveRecord{Name: name, UID: string(ts.GetUID()), Pods: 2}); *rec != want {
		t.Errorf("archive record: got %+v, want %+v", *rec, want)
	}

	if _, err := s.env.dyn.Resource(teamspace.GVR).Patch(s.ctx, name, types.MergePatchType,
		[]byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatalf("remove the foreign finalizer: %v", err)
	}
	s.waitFor("teamspace gone", 30*time.Second, func() error {
		if live := s.teamSpace(name); live != nil {
			return fmt.Errorf("still there with finalizers %v", live.Finalizers)
		}
		return nil
	})
	nsName := teamspace.NamespaceName(name)
	s.waitFor("namespace garbage-collected", 60*time.Second, func() error {
		if ns := s.namespace(nsName); ns != nil {
			return fmt.Errorf("namespace %s still there (phase %s, deletionTimestamp %v)", nsName, ns.Status.Phase, ns.DeletionTimestamp)
		}
		return nil
	})
}

// testCatchUp: a spec change made while the controller is stopped is acted
// on once it runs again; meanwhile observedGeneration shows it is behind.
func testCatchUp(t *testing.T, s *scn) {
	name := s.name("a")
	s.create(name, 4, "1", nil)
	s.converge("created", s.converged(name, 4, "1"))
	s.eng.stop(t)
	s.patchSpec(name, map[string]any{"pods": 8})
	live := s.teamSpace(name)
	if got, want := live.Generation, int64(2); got != want {
		t.Errorf("generation: got %v, want %v", got, want)
	}
	if got, want := live.Status.ObservedGeneration, int64(1); got != want {
		t.Errorf("observedGeneration while stopped: got %v, want %v", got, want)
	}
	if got, want := s.quota(teamspace.NamespaceName(name)).Spec.Hard.Pods().String(), "4"; got != want {
		t.Errorf("quota pods while stopped: got %v, want %v", got, want)
	}
	s.eng.start(t)
	s.converge("caught up", s.converged(name, 8, "1"))
}

// testBadCPU: spec.cpu "abc" (the schema takes any string) is reported once
// as InvalidSpec; the quota keeps its last good values and status does not
// advance; a healthy TeamSpace in the same pass converges.
func testBadCPU(t *testing.T, s *scn) {
	name, ok := s.name("a"), s.name("ok")
	ts := s.create(name, 4, "1", nil)
	s.converge("created", s.converged(name, 4, "1"))
	s.patchSpec(name, map[string]any{"cpu": "abc"})
	s.create(ok, 3, "1", nil)
	s.converge("healthy converged and bad one warned", allOf(
		s.converged(ok, 3, "1"),
		s.warned(ts.GetUID(), controller.ReasonInvalidSpec, "spec.cpu", "abc")))
	s.expectFailed(name, ok)

	q := s.quota(teamspace.NamespaceName(name))
	cpu, pods := q.Spec.Hard[corev1.ResourceRequestsCPU], q.Spec.Hard[corev1.ResourcePods]
	if got, want := cpu.String()+"/"+pods.String(), "1/4"; got != want {
		t.Errorf("quota requests.cpu/pods after the bad spec: got %v, want %v", got, want)
	}
	live := s.teamSpace(name)
	if got, want := live.Status.ObservedGeneration, int64(1); got != want || live.Generation != 2 {
		t.Errorf("observedGeneration (generation %d): got %v, want %v", live.Generation, got, want)
	}
}

// testDottedName: "x.b" is a valid TeamSpace name but team-x.b is no valid
// namespace name: warn, create nothing.
func testDottedName(t *testing.T, s *scn) {
	name, ok := s.name("dot.b"), s.name("ok")
	ts := s.create(name, 2, "1", nil)
	s.create(ok, 2, "1", nil)
	s.converge("healthy converged and bad one warned", allOf(
		s.converged(ok, 2, "1"),
		s.warned(ts.GetUID(), controller.ReasonInvalidSpec, "metadata.name", name)))
	s.expectFailed(name, ok)
	s.expectNothingFor(name)
}

// testLongName: team-<name> longer than 63 characters: warn, skip.
func testLongName(t *testing.T, s *scn) {
	name, ok := s.name("l"), s.name("ok")
	name += strings.Repeat("x", 60-len(name))
	if n := len(teamspace.NamespaceName(name)); n <= 63 {
		t.Fatalf("test bug: namespace name length %d, want > 63", n)
	}
	ts := s.create(name, 2, "1", nil)
	s.create(ok, 2, "1", nil)
	s.converge("healthy converged and bad one warned", allOf(
		s.converged(ok, 2, "1"),
		s.warned(ts.GetUID(), controller.ReasonInvalidSpec, "metadata.name", name)))
	s.expectFailed(name, ok)
	s.expectNothingFor(name)
}

// testForeignNamespace: a namespace team-<name> that exists without our
// ownerReference is never adopted.
func testForeignNamespace(t *testing.T, s *scn) {
	name, ok := s.name("a"), s.name("ok")
	nsName := teamspace.NamespaceName(name)
	foreign, err := s.env.kube.CoreV1().Namespaces().Create(s.ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: nsName, Labels: map[string]string{"owner": "someone-else"}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create foreign namespace: %v", err)
	}
	s.extraNamespaces = append(s.extraNamespaces, nsName)
	ts := s.create(name, 2, "1", nil)
	s.create(ok, 2, "1", nil)
	s.converge("healthy converged and bad one warned", allOf(
		s.converged(ok, 2, "1"),
		s.warned(ts.GetUID(), controller.ReasonNamespaceConflict, nsName)))
	s.expectFailed(name, ok)

	live := s.namespace(nsName)
	if got, want := live.ResourceVersion, foreign.ResourceVersion; got != want {
		t.Errorf("foreign namespace resourceVersion: got %v, want %v (modified: labels %v, ownerReferences %v)",
			got, want, live.Labels, live.OwnerReferences)
	}
	if got := live.OwnerReferences; len(got) != 0 {
		t.Errorf("foreign namespace ownerReferences: got %v, want none", got)
	}
	if got, want := live.Labels[teamspace.OwnerLabel], ""; got != want {
		t.Errorf("foreign namespace label %s: got %q, want %q", teamspace.OwnerLabel, got, want)
	}
	if q := s.quota(nsName); q != nil {
		t.Errorf("quota in the foreign namespace: got %v, want none", q.Spec.Hard)
	}
	if got, want := s.teamSpace(name).Status.Namespace, ""; got != want {
		t.Errorf("status.namespace: got %q, want %q", got, want)
	}
}

// testUnwritableArchive: when the archive record cannot be written the
// finalizer stays and deletion stays blocked; once the directory can be
// created the TeamSpace goes and the record is there.
func testUnwritableArchive(t *testing.T, s *scn) {
	blocker := filepath.Dir(s.archiveDir)
	if err := os.WriteFile(blocker, []byte("a regular file where a directory should be\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	name, ok := s.name("a"), s.name("ok")
	ts := s.create(name, 3, "1", nil)
	s.converge("created", s.converged(name, 3, "1"))
	s.deleteTeamSpace(name)
	s.create(ok, 2, "1", nil)
	s.converge("healthy converged and archive failure warned", allOf(
		s.converged(ok, 2, "1"),
		s.warned(ts.GetUID(), controller.ReasonArchiveFailed, "archive")))
	s.expectFailed(name, ok)
	s.idle()
	live := s.teamSpace(name)
	if live == nil {
		t.Fatalf("teamspace %s: gone, want it held by the finalizer while the archive cannot be written", name)
	}
	if !teamspace.HasFinalizer(live.Finalizers, teamspace.Finalizer) {
		t.Errorf("finalizers after failed archiving: got %v, want %s kept", live.Finalizers, teamspace.Finalizer)
	}

	// Fix it: the parent becomes a directory again.
	if err := os.Remove(blocker); err != nil {
		t.Fatal(err)
	}
	s.converge("released after the fix", func() error {
		if live := s.teamSpace(name); live != nil {
			return fmt.Errorf("teamspace still there with finalizers %v", live.Finalizers)
		}
		return nil
	})
	rec, err := evidence.ReadArchive(s.archiveDir, name)
	if err != nil || rec == nil || rec.UID != string(ts.GetUID()) {
		t.Errorf("archive record: got %+v (err %v), want uid %s", rec, err, ts.GetUID())
	}
}

// ---------------------------------------------------------------------------
// Engines.

// engine reconciles TeamSpaces. Once engines act only in pass; running
// engines act by themselves between start and stop.
type engine interface {
	start(t *testing.T)
	stop(t *testing.T)
	// pass runs one pass (once engines) and returns the names that failed;
	// running engines return nil at once.
	pass(t *testing.T) []string
	// idle lets two more passes happen.
	idle(t *testing.T)
	continuous() bool
	// diag is what the engine said last, for failure messages.
	diag() string
	// writes lists every write request the engine made so far.
	writes() []string
}

type engineConfig struct {
	archiveDir string
	finalizer  bool
	kubectlLog string
}

type engineKind struct {
	name, short string
	new         func(env *env, cfg engineConfig) engine
}

var engineKinds = []engineKind{
	{"go-once", "go1", func(e *env, cfg engineConfig) engine { return &goOnce{env: e, cfg: cfg} }},
	{"go-running", "gor", func(e *env, cfg engineConfig) engine { return &goRunning{env: e, cfg: cfg} }},
	{"shell-once", "sh1", func(e *env, cfg engineConfig) engine { return &shellOnce{env: e, cfg: cfg, kubectlLog: cfg.kubectlLog} }},
	{"shell-loop", "shl", func(e *env, cfg engineConfig) engine {
		return &shellLoop{shellOnce: shellOnce{env: e, cfg: cfg, kubectlLog: cfg.kubectlLog}}
	}},
}

// goOnce is `cnpa controller --once`: controller.Once per pass.
type goOnce struct {
	env  *env
	cfg  engineConfig
	c    *controller.Controller
	last string
	log  writeLog
}

func (g *goOnce) start(t *testing.T) {
	c, err := controller.New(g.log.wrap(g.env.rest), controller.Config{ArchiveDir: g.cfg.archiveDir, Finalizer: g.cfg.finalizer, Logger: quietLogger(nil)})
	if err != nil {
		t.Fatalf("controller.New: %v", err)
	}
	g.c = c
}
func (g *goOnce) stop(*testing.T)   {}
func (g *goOnce) continuous() bool  { return false }
func (g *goOnce) diag() string      { return g.last }
func (g *goOnce) writes() []string  { return g.log.list() }
func (g *goOnce) idle(t *testing.T) { g.pass(t); g.pass(t) }
func (g *goOnce) pass(t *testing.T) []string {
	t.Helper()
	failures, err := g.c.Once(context.Background())
	if err != nil {
		t.Fatalf("Once: %v", err)
	}
	var names, lines []string
	for _, f := range failures {
		names = append(names, f.Name)
		lines = append(lines, f.Error())
	}
	g.last = strings.Join(lines, "\n")
	return names
}

// goRunning is the Go controller running with a 3 s resync.
type goRunning struct {
	env    *env
	cfg    engineConfig
	cancel context.CancelFunc
	done   chan error
	logs   *tailBuffer
	log    writeLog
}

func (g *goRunning) start(t *testing.T) {
	t.Helper()
	if g.logs == nil {
		g.logs = &tailBuffer{}
	}
	c, err := controller.New(g.log.wrap(g.env.rest), controller.Config{ArchiveDir: g.cfg.archiveDir, Finalizer: g.cfg.finalizer,
		Interval: goInterval, Logger: quietLogger(g.logs)})
	if err != nil {
		t.Fatalf("controller.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	g.cancel, g.done = cancel, make(chan error, 1)
	go func() { g.done <- c.Run(ctx) }()
	select {
	case <-c.Ready():
	case err := <-g.done:
		t.Fatalf("controller stopped before its caches synced: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatalf("controller caches not synced after 30s; log:\n%s", g.logs)
	}
}

func (g *goRunning) stop(t *testing.T) {
	if g.cancel == nil {
		return
	}
	g.cancel()
	g.cancel = nil
	select {
	case err := <-g.done:
		if err != nil {
			t.Errorf("controller Run: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Errorf("controller did not stop within 30s")
	}
}

func (g *goRunning) pass(*testing.T) []string { return nil }
func (g *goRunning) continuous() bool         { return true }
func (g *goRunning) diag() string             { return g.logs.String() }
func (g *goRunning) writes() []string         { return g.log.list() }

// idle waits two resync intervals: that no write happens can only be
// observed over a window, there is no event to wait for.
func (g *goRunning) idle(*testing.T) { <-time.After(2*goInterval + time.Second) }

// shellOnce runs `bash assets/reconcile.sh` once per pass.
type shellOnce struct {
	env  *env
	cfg  engineConfig
	mu   sync.Mutex
	last string
	// kubectlLog receives one line per kubectl call (see env.kubectlWrapper).
	kubectlLog string
}

func (s *shellOnce) start(*testing.T)  {}
func (s *shellOnce) stop(*testing.T)   {}
func (s *shellOnce) continuous() bool  { return false }
func (s *shellOnce) idle(t *testing.T) { s.pass(t); s.pass(t) }

// writes lists the kubectl calls other than `get`.
func (s *shellOnce) writes() []string {
	data, _ := os.ReadFile(s.kubectlLog) // missing: no call yet
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line != "" && !strings.HasPrefix(line, "get ") {
			out = append(out, line)
		}
	}
	return out
}

func (s *shellOnce) diag() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

func (s *shellOnce) pass(t *testing.T) []string {
	t.Helper()
	failed, err := s.run()
	if err != nil {
		t.Fatalf("reconcile.sh: %v\n%s", err, s.diag())
	}
	return failed
}

var failureLine = regexp.MustCompile(`(?m)^teamspace (\S+): `)

// run runs the script once. Exit 1 (some TeamSpace failed) is a normal
// outcome; the names are parsed from stderr.
func (s *shellOnce) run() ([]string, error) {
	cmd := exec.Command("bash", s.env.script)
	cmd.Env = append(s.env.shellEnv(),
		"CNPA_E2E_KUBECTL_LOG="+s.kubectlLog,
		"CNPA_ARCHIVE_DIR="+s.cfg.archiveDir,
		fmt.Sprintf("CNPA_FINALIZER=%t", s.cfg.finalizer))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	s.mu.Lock()
	s.last = "stdout:\n" + stdout.String() + "stderr:\n" + stderr.String()
	s.mu.Unlock()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return nil, err
	}
	var failed []string
	for _, m := range failureLine.FindAllStringSubmatch(stderr.String(), -1) {
		failed = append(failed, m[1])
	}
	return failed, nil
}

// shellLoop is the script in a loop with 1 s between passes, like
// cnpa-op.service.
type shellLoop struct {
	shellOnce
	cancel context.CancelFunc
	done   chan struct{}
	passes atomic.Int64
	errMu  sync.Mutex
	err    error
}

func (s *shellLoop) start(*testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel, s.done = cancel, make(chan struct{})
	go func() {
		defer close(s.done)
		for {
			// A pass is never interrupted: stopping waits for it to finish.
			if _, err := s.run(); err != nil {
				s.errMu.Lock()
				s.err = err
				s.errMu.Unlock()
			}
			s.passes.Add(1)
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
		}
	}()
}

func (s *shellLoop) stop(t *testing.T) {
	if s.cancel == nil {
		return
	}
	s.cancel()
	s.cancel = nil
	<-s.done
	s.errMu.Lock()
	defer s.errMu.Unlock()
	if s.err != nil {
		t.Errorf("reconcile.sh in the loop: %v\n%s", s.err, s.diag())
	}
}

func (s *shellLoop) pass(*testing.T) []string { return nil }
func (s *shellLoop) continuous() bool         { return true }

// idle waits for two passes that started after the call (the pass running
// at call time may have read the cluster before, so it does not count).
func (s *shellLoop) idle(t *testing.T) {
	want := s.passes.Load() + 3
	deadline := time.After(2 * time.Minute)
	for s.passes.Load() < want {
		select {
		case <-deadline:
			t.Fatalf("shell loop: passes got %d, want %d within 2m", s.passes.Load(), want)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// ---------------------------------------------------------------------------
// The shared environment and one scenario's view of it.

type env struct {
	cluster *testcluster.Cluster
	// wrapperDir holds a kubectl that logs its arguments and runs the
	// kubebox one; it comes first on the script's PATH.
	wrapperDir string
	rest       *rest.Config
	kube       kubernetes.Interface
	dyn        dynamic.Interface
	script     string
	kubeCache  string
	timings    *timings
}

func newEnv(t *testing.T) *env {
	t.Helper()
	c := testcluster.Shared(t)
	rc := &rest.Config{Host: c.Server, BearerToken: c.Token, QPS: 200, Burst: 400,
		TLSClientConfig: rest.TLSClientConfig{Insecure: true}}
	// CNPA_E2E_SCRIPT runs another script (a mutant, to see the suite catch it).
	script := os.Getenv("CNPA_E2E_SCRIPT")
	if script == "" {
		var err error
		if script, err = filepath.Abs(filepath.Join("..", "..", "assets", "reconcile.sh")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(script); err != nil {
		t.Fatalf("reconcile.sh: %v", err)
	}
	e := &env{cluster: c, rest: rc, script: script, kubeCache: t.TempDir(), timings: &timings{}, wrapperDir: t.TempDir()}
	wrapper := "#!/bin/sh\n" +
		"# Test instrumentation: log the call, then run the real kubectl.\n" +
		"printf '%s\\n' \"$*\" >>\"$CNPA_E2E_KUBECTL_LOG\"\n" +
		"exec " + filepath.Join(c.BinDir, "kubectl") + " \"$@\"\n"
	if err := os.WriteFile(filepath.Join(e.wrapperDir, "kubectl"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	var err error
	if e.kube, err = kubernetes.NewForConfig(rc); err != nil {
		t.Fatal(err)
	}
	if e.dyn, err = dynamic.NewForConfig(rc); err != nil {
		t.Fatal(err)
	}
	e.kubectl(t, assets.CRD, "apply", "-f", "-")
	e.kubectl(t, nil, "wait", "--for=condition=Established", "--timeout=60s", "crd/"+teamspace.CRDName)
	e.warmUpGarbageCollector(t)
	return e
}

// warmUpGarbageCollector waits until the garbage collector acts on
// TeamSpace owners. It notices a new CRD only at its next discovery resync
// (every 30 s), so right after the CRD is created an orphaned namespace can
// wait ~45 s; on the lab's VM the CRD is old by then. A ConfigMap owned by a
// deleted probe TeamSpace going away proves the collector is ready.
func (e *env) warmUpGarbageCollector(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	const probe = "e2e-gc-probe"
	ts, err := e.dyn.Resource(teamspace.GVR).Create(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": teamspace.APIVersion, "kind": teamspace.Kind,
		"metadata": map[string]any{"name": probe}, "spec": map[string]any{"pods": int64(1)}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create probe teamspace: %v", err)
	}
	_, err = e.kube.CoreV1().ConfigMaps(metav1.NamespaceDefault).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: probe, OwnerReferences: []metav1.OwnerReference{{APIVersion: teamspace.APIVersion, Kind: teamspace.Kind, Name: probe, UID: ts.GetUID()}},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create probe configmap: %v", err)
	}
	if err := e.dyn.Resource(teamspace.GVR).Delete(ctx, probe, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete probe teamspace: %v", err)
	}
	start := time.Now()
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		_, err := e.kube.CoreV1().ConfigMaps(metav1.NamespaceDefault).Get(ctx, probe, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("garbage collector did not remove a ConfigMap owned by a deleted TeamSpace within 2m")
	}
	t.Logf("garbage collector acts on TeamSpace owners after %s", time.Since(start).Round(time.Millisecond))
}

// shellEnv is the environment of reconcile.sh: the cluster's, with the
// logging kubectl first on PATH and a private kubectl cache.
func (e *env) shellEnv() []string {
	var out []string
	for _, kv := range e.cluster.Env() {
		if path, ok := strings.CutPrefix(kv, "PATH="); ok {
			kv = "PATH=" + e.wrapperDir + string(os.PathListSeparator) + path
		}
		out = append(out, kv)
	}
	return append(out, "KUBECACHEDIR="+e.kubeCache)
}

// kubectl runs the kubebox kubectl against the cluster.
func (e *env) kubectl(t *testing.T, stdin []byte, args ...string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(e.cluster.BinDir, "kubectl"), args...)
	cmd.Env = append(e.cluster.Env(), "KUBECACHEDIR="+e.kubeCache)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// scn is one scenario run on one engine.
type scn struct {
	t               *testing.T
	ctx             context.Context
	env             *env
	ek              engineKind
	sc              scenario
	eng             engine
	archiveDir      string
	created         []string
	extraNamespaces []string
	// lastFailures is what the last once-engine pass reported as failed.
	lastFailures []string
}

func (e *env) newScenario(t *testing.T, ek engineKind, sc scenario) *scn {
	tmp := t.TempDir()
	dir := filepath.Join(tmp, "archive")
	if sc.archiveDir != nil {
		dir = sc.archiveDir(tmp)
	}
	s := &scn{t: t, ctx: context.Background(), env: e, ek: ek, sc: sc, archiveDir: dir,
		eng: ek.new(e, engineConfig{archiveDir: dir, finalizer: sc.finalizer, kubectlLog: filepath.Join(tmp, "kubectl.log")})}
	t.Cleanup(s.cleanup)
	s.eng.start(t)
	return s
}

// cleanup stops the engine, then removes every TeamSpace (finalizers
// stripped, so nothing waits for an engine) and namespace the scenario made.
func (s *scn) cleanup() {
	s.eng.stop(s.t)
	for _, name := range s.created {
		s.env.dyn.Resource(teamspace.GVR).Patch(s.ctx, name, types.MergePatchType,
			[]byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}) // NotFound: already gone
		s.env.dyn.Resource(teamspace.GVR).Delete(s.ctx, name, metav1.DeleteOptions{})
	}
	for _, ns := range s.extraNamespaces {
		s.env.kube.CoreV1().Namespaces().Delete(s.ctx, ns, metav1.DeleteOptions{})
	}
}

// name is a TeamSpace name unique to this engine and scenario.
func (s *scn) name(suffix string) string {
	return s.ek.short + "-" + s.sc.short + "-" + suffix
}

func (s *scn) create(name string, pods int64, cpu string, finalizers []string) *unstructured.Unstructured {
	s.t.Helper()
	spec := map[string]any{"pods": pods}
	if cpu != "" {
		spec["cpu"] = cpu
	}
	meta := map[string]any{"name": name}
	if len(finalizers) > 0 {
		fs := make([]any, len(finalizers))
		for i, f := range finalizers {
			fs[i] = f
		}
		meta["finalizers"] = fs
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": teamspace.APIVersion, "kind": teamspace.Kind, "metadata": meta, "spec": spec}}
	created, err := s.env.dyn.Resource(teamspace.GVR).Create(s.ctx, obj, metav1.CreateOptions{})
	if err != nil {
		s.t.Fatalf("create teamspace %s: %v", name, err)
	}
	s.created = append(s.created, name)
	return created
}

func (s *scn) patchSpec(name string, spec map[string]any) {
	s.t.Helper()
	patch, _ := json.Marshal(map[string]any{"spec": spec})
	if _, err := s.env.dyn.Resource(teamspace.GVR).Patch(s.ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		s.t.Fatalf("patch teamspace %s spec: %v", name, err)
	}
}

func (s *scn) deleteTeamSpace(name string) {
	s.t.Helper()
	if err := s.env.dyn.Resource(teamspace.GVR).Delete(s.ctx, name, metav1.DeleteOptions{}); err != nil {
		s.t.Fatalf("delete teamspace %s: %v", name, err)
	}
}

// teamSpace reads a TeamSpace; nil when it does not exist.
func (s *scn) teamSpace(name string) *teamspace.TeamSpace {
	s.t.Helper()
	u, err := s.env.dyn.Resource(teamspace.GVR).Get(s.ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		s.t.Fatalf("get teamspace %s: %v", name, err)
	}
	ts, err := teamspace.FromUnstructured(u)
	if err != nil {
		s.t.Fatal(err)
	}
	return ts
}

// namespace reads a namespace; nil when it does not exist.
func (s *scn) namespace(name string) *corev1.Namespace {
	s.t.Helper()
	ns, err := s.env.kube.CoreV1().Namespaces().Get(s.ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		s.t.Fatalf("get namespace %s: %v", name, err)
	}
	return ns
}

// quota reads team-quota in ns; nil when it does not exist.
func (s *scn) quota(ns string) *corev1.ResourceQuota {
	s.t.Helper()
	q, err := s.env.kube.CoreV1().ResourceQuotas(ns).Get(s.ctx, teamspace.QuotaName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		s.t.Fatalf("get quota %s/%s: %v", ns, teamspace.QuotaName, err)
	}
	return q
}

// resourceVersions of the TeamSpace, its namespace and its quota.
func (s *scn) resourceVersions(name string) [3]string {
	ns := teamspace.NamespaceName(name)
	return [3]string{s.teamSpace(name).ResourceVersion, s.namespace(ns).ResourceVersion, s.quota(ns).ResourceVersion}
}

// pass runs one pass on a once engine.
func (s *scn) pass() []string { return s.eng.pass(s.t) }

// idle lets the engine make two more passes.
func (s *scn) idle() { s.eng.idle(s.t) }

// converge: a once engine runs one pass and check must hold right after
// it; a running engine must make check hold by itself within a deadline.
func (s *scn) converge(what string, check func() error) {
	s.t.Helper()
	if !s.eng.continuous() {
		s.lastFailures = s.pass()
		if err := check(); err != nil {
			s.t.Fatalf("%s after one pass: %v\nengine: %s", what, err, s.eng.diag())
		}
		return
	}
	timeout := 30 * time.Second
	if strings.HasPrefix(s.ek.name, "shell") {
		timeout = 90 * time.Second
	}
	s.waitFor(what, timeout, check)
}

// waitFor polls check until it holds; on timeout it fails with the last
// observed values.
func (s *scn) waitFor(what string, timeout time.Duration, check func() error) {
	s.t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(s.ctx, 100*time.Millisecond, timeout, true, func(context.Context) (bool, error) {
		last = check()
		return last == nil, nil
	})
	if err != nil {
		s.t.Fatalf("%s: not within %s; last observed: %v\nengine: %s", what, timeout, last, s.eng.diag())
	}
}

// expectFailed checks, for a once engine, that the last pass reported bad
// as failed and ok as not failed.
func (s *scn) expectFailed(bad, ok string) {
	s.t.Helper()
	if s.eng.continuous() {
		return
	}
	if !slices.Contains(s.lastFailures, bad) {
		s.t.Errorf("failures of the pass: got %v, want %s among them", s.lastFailures, bad)
	}
	if slices.Contains(s.lastFailures, ok) {
		s.t.Errorf("failures of the pass: got %v, want %s not among them", s.lastFailures, ok)
	}
}

// expectNothingFor checks that an invalid TeamSpace got no namespace and no status.
func (s *scn) expectNothingFor(name string) {
	s.t.Helper()
	if ns := s.namespace(teamspace.NamespaceName(name)); ns != nil {
		s.t.Errorf("namespace %s: got one, want none", ns.Name)
	}
	live := s.teamSpace(name)
	if live.Status.Namespace != "" || live.Status.ObservedGeneration != 0 {
		s.t.Errorf("status: got %+v, want empty", live.Status)
	}
}

// converged checks everything a converged TeamSpace has: namespace with
// label and controller ownerReference, quota with the wanted values, status
// at the current generation, and the finalizer as configured.
func (s *scn) converged(name string, pods int64, cpu string) func() error {
	return func() error {
		ts := s.teamSpace(name)
		if ts == nil {
			return fmt.Errorf("teamspace %s is gone", name)
		}
		nsName := teamspace.NamespaceName(name)
		var errs []error
		if got, want := ts.Status.ObservedGeneration, ts.Generation; got != want {
			errs = append(errs, fmt.Errorf("status.observedGeneration: got %v, want %v", got, want))
		}
		if got, want := ts.Status.Namespace, nsName; got != want {
			errs = append(errs, fmt.Errorf("status.namespace: got %q, want %q", got, want))
		}
		if got, want := teamspace.HasFinalizer(ts.Finalizers, teamspace.Finalizer), s.sc.finalizer; got != want {
			errs = append(errs, fmt.Errorf("finalizer present: got %v, want %v", got, want))
		}
		if ns := s.namespace(nsName); ns == nil {
			errs = append(errs, fmt.Errorf("namespace %s: missing", nsName))
		} else {
			if got, want := ns.Labels[teamspace.OwnerLabel], name; got != want {
				errs = append(errs, fmt.Errorf("namespace label: got %q, want %q", got, want))
			}
			if got, want := controllerOwnerUID(ns.OwnerReferences), ts.UID; got != want {
				errs = append(errs, fmt.Errorf("namespace controller owner uid: got %q, want %q", got, want))
			}
		}
		if q := s.quota(nsName); q == nil {
			errs = append(errs, fmt.Errorf("quota %s/%s: missing", nsName, teamspace.QuotaName))
		} else {
			wantPods, wantCPU := *resource.NewQuantity(pods, resource.DecimalSI), resource.MustParse(cpu)
			if got := q.Spec.Hard[corev1.ResourcePods]; got.Cmp(wantPods) != 0 {
				errs = append(errs, fmt.Errorf("quota hard.pods: got %v, want %v", got.String(), wantPods.String()))
			}
			if got := q.Spec.Hard[corev1.ResourceRequestsCPU]; got.Cmp(wantCPU) != 0 {
				errs = append(errs, fmt.Errorf("quota hard.requests.cpu: got %v, want %v", got.String(), wantCPU.String()))
			}
			if got, want := q.Labels[teamspace.OwnerLabel], name; got != want {
				errs = append(errs, fmt.Errorf("quota label: got %q, want %q", got, want))
			}
		}
		return errors.Join(errs...)
	}
}

// warned checks that a Warning event with reason exists in namespace
// default for the TeamSpace uid, with every one of words in its message.
func (s *scn) warned(uid types.UID, reason string, words ...string) func() error {
	return func() error {
		list, err := s.env.kube.CoreV1().Events(metav1.NamespaceDefault).List(s.ctx, metav1.ListOptions{
			FieldSelector: fields.Set{"involvedObject.uid": string(uid), "reason": reason}.String()})
		if err != nil {
			return err
		}
		var seen []string
		for _, e := range list.Items {
			if e.Type != corev1.EventTypeWarning {
				seen = append(seen, e.Type+": "+e.Message)
				continue
			}
			if containsAll(e.Message, words) {
				if e.InvolvedObject.Kind != teamspace.Kind {
					return fmt.Errorf("event involvedObject.kind: got %v, want %v", e.InvolvedObject.Kind, teamspace.Kind)
				}
				return nil
			}
			seen = append(seen, e.Message)
		}
		return fmt.Errorf("Warning %s event naming %q: got %q, want one", reason, words, seen)
	}
}

func containsAll(s string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(s, w) {
			return false
		}
	}
	return true
}

func allOf(checks ...func() error) func() error {
	return func() error {
		var errs []error
		for _, c := range checks {
			if err := c(); err != nil {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
}

func controllerOwnerUID(refs []metav1.OwnerReference) types.UID {
	for _, r := range refs {
		if r.Controller != nil && *r.Controller {
			return r.UID
		}
	}
	return ""
}

func quantitiesEqual(a, b corev1.ResourceList) bool {
	if len(a) != len(b) {
		return false
	}
	for k, va := range a {
		vb, ok := b[k]
		if !ok || va.Cmp(vb) != 0 {
			return false
		}
	}
	return true
}

// quietLogger logs into w (discarded when nil): the running controller's
// logs are shown only when a scenario fails.
func quietLogger(w io.Writer) *slog.Logger {
	if w == nil {
		w = io.Discard
	}
	return slog.New(slog.NewTextHandler(w, nil))
}

// writeLog records the write requests (every method but GET) a Go engine
// sends.
type writeLog struct {
	mu    sync.Mutex
	lines []string
}

func (w *writeLog) wrap(rc *rest.Config) *rest.Config {
	c := rest.CopyConfig(rc)
	c.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				w.mu.Lock()
				w.lines = append(w.lines, r.Method+" "+r.URL.Path)
				w.mu.Unlock()
			}
			return rt.RoundTrip(r)
		})
	})
	return c
}

func (w *writeLog) list() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.lines)
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// tailBuffer keeps the last 8 KiB written to it.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - 8<<10; over > 0 {
		b.buf = b.buf[over:]
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	if b == nil {
		return ""
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// timings collects the quota delete→restore times per engine.
type timings struct {
	mu sync.Mutex
	ms map[string][]int64
}

func (t *timings) add(engine string, d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ms == nil {
		t.ms = map[string][]int64{}
	}
	t.ms[engine] = append(t.ms[engine], d.Milliseconds())
}

func (t *timings) report(tb testing.TB) {
	t.mu.Lock()
	defer t.mu.Unlock()
	names := make([]string, 0, len(t.ms))
	for n := range t.ms {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		tb.Logf("quota delete → restore: %-10s %v ms", n, t.ms[n])
	}
}

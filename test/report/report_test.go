// Package report tests `cnpa report --html` in a real headless browser
// (Chromium): the page made from a full set of evidence, timeline and
// check files renders every step, value, chart and check, loads nothing
// from the network, and shows hostile text as text. No cluster is needed:
// cnpa is pointed at an address nobody answers, as on a laptop with a
// copied evidence dir. test/lab makes the same page from a real lab run.
package report

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/course"
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/timeline"
	"github.com/labhub/cnpa/test/kit"
)

var cnpaBin string

func TestMain(m *testing.M) {
	kit.RunWithCnpa(m, &cnpaBin)
}

// hostile is text a hand-edited file could hold: on the page it must be
// text, never markup.
const hostile = `<img src="https://example.com/x.png" onerror="document.title='pwned'"><script>document.title='pwned'</script>`

// writeRun fills dir with what a finished lab leaves: every evidence file
// with a correct run's values, the archive record, the timelines of steps
// 4-7 and a saved check report (one failure in it, with hostile text).
func writeRun(t *testing.T, dir string) map[int]*timeline.Timeline {
	t.Helper()
	write := func(name string, v any) {
		if _, err := evidence.Write(dir, name, v); err != nil {
			t.Fatal(err)
		}
	}
	const alpha, beta, q1, q2 = "11111111-aaaa", "22222222-bbbb", "33333333-cccc", "44444444-dddd"
	write(lab.BeforeFile, lab.BeforeRecord{UID: alpha})
	write(lab.GenerationFile, lab.GenerationRecord{UID: alpha, GenInitial: 1, GenAfterLabel: 1, GenAfterSpec: 2, StatusViaMain: json.RawMessage("null")})
	write(lab.ReconcileFile, lab.ReconcileRecord{QuotaUID: q1, NamespaceOwnerUID: alpha})
	write(lab.DriftFile, lab.DriftRecord{DeletedUID: q1, RestoredUID: q2, RestoreSeconds: 1, EditedTo: "99", RevertedTo: 6})
	write(lab.CleanupFile, lab.CleanupRecord{UID: beta, BlockedSeen: true, NamespaceGone: true})
	write(lab.CatchupFile, lab.CatchupRecord{Generation: 3, ObservedWhileStopped: 2, QuotaPodsWhileStopped: "6", ObservedAfterStart: 3, QuotaPodsAfterStart: "8"})
	if err := evidence.WriteArchive(filepath.Join(dir, evidence.ArchiveDir), evidence.ArchiveRecord{Name: "beta", UID: beta, Pods: 2}); err != nil {
		t.Fatal(err)
	}
	rep, err := lab.ComputeReport(course.Steps.Lab().Read(dir))
	if err != nil {
		t.Fatal(err)
	}
	write(lab.ReportFile, rep)

	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	ms := func(n float64) time.Time { return start.Add(time.Duration(n * float64(time.Millisecond))) }
	tls := map[int]*timeline.Timeline{
		4: {Step: 4, Title: "not once, but continuously", Action: "systemctl enable --now cnpa-op.service", Entries: nil},
		5: {Step: 5, Title: "the deleted quota is back", Action: "kubectl delete resourcequota team-quota -n team-alpha"},
		6: {Step: 6, Title: "cleanup before deletion", Action: "kubectl delete teamspace beta --wait=false"},
		7: {Step: 7, Title: "no change missed while stopped", Action: "kubectl patch teamspace alpha --type=merge -p '{\"spec\":{\"pods\":8}}'"},
	}
	for _, tl := range tls {
		tl.Start, tl.Engine = start, "go"
	}
	tls[4].Add(ms(0), timeline.You, "cnpa-op.service started", timeline.FromRead)
	tls[4].Add(ms(310), timeline.Controller, "Synced alpha", timeline.FromEvent)
	tls[5].Add(ms(-2), timeline.You, "read team-quota uid "+q1, timeline.FromRead)
	tls[5].Add(ms(0), timeline.You, "deleted team-quota (uid "+q1+")", timeline.FromWatch)
	tls[5].Add(ms(3), timeline.Controller, "DriftCorrected: team-quota missing", timeline.FromEvent)
	tls[5].Add(ms(4), timeline.APIServer, "team-quota created (uid "+q2+")", timeline.FromWatch)
	tls[5].Add(ms(5), timeline.Controller, "Synced alpha "+hostile, timeline.FromEvent)
	tls[5].Add(ms(900), timeline.You, "patched hard.pods to 99", timeline.FromWatch)
	tls[5].Add(ms(904), timeline.Controller, "DriftCorrected: hard.pods 99 → 6", timeline.FromEvent)
	tls[6].Add(ms(0), timeline.You, "deletionTimestamp set on beta", timeline.FromWatch)
	tls[6].Add(ms(6), timeline.Controller, "archive/beta.json written", timeline.FromEvent)
	tls[6].Add(ms(9), timeline.Controller, "finalizer platform.labhub.io/cleanup removed", timeline.FromWatch)
	tls[6].Add(ms(10), timeline.APIServer, "beta deleted", timeline.FromWatch)
	tls[6].Add(ms(45012), timeline.GarbageCollector, "team-beta deleted", timeline.FromWatch)
	tls[7].Add(ms(0), timeline.You, "generation 3, observedGeneration 2", timeline.FromRead)
	tls[7].Add(ms(8000), timeline.You, "service started", timeline.FromRead)
	tls[7].Add(ms(8120), timeline.Controller, "observedGeneration 3, quota pods 8", timeline.FromWatch)
	for _, tl := range tls {
		if err := timeline.Save(dir, tl); err != nil {
			t.Fatal(err)
		}
	}
	last := &judge.Report{Dir: dir, Server: "https://127.0.0.1:6443", Checks: []judge.Check{
		{ID: "step1.uid", Step: 1, Title: "before.json uid is the live alpha's uid", Status: judge.Pass, Expected: `"` + alpha + `"`, Actual: `"` + alpha + `"`},
		{ID: "step4.service_active", Step: 4, Title: "cnpa-op.service is active", Status: judge.Pass, Expected: "active", Actual: "active"},
		{ID: "step4.new_teamspace_converges", Step: 4, Title: "a new TeamSpace gets its namespace", Status: judge.Fail,
			Expected: "converged", Actual: "not converged " + hostile, Hint: "is the controller running?"},
	}, Passed: 2, Failed: 1}
	if err := judge.SaveLast(dir, last, time.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	return tls
}

// cnpaReport runs `cnpa report --html` on dir against a cluster that is not
// there (the page is made offline) and returns the page's path.
func cnpaReport(t *testing.T, dir string) string {
	t.Helper()
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	err := os.WriteFile(kubeconfig, []byte(`apiVersion: v1
kind: Config
clusters: [{name: gone, cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: x}}]
contexts: [{name: gone, context: {cluster: gone, user: u}}]
current-context: gone
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(t.TempDir(), "report.html")
	out, err := exec.Command(cnpaBin, "--kubeconfig", kubeconfig, "--dir", dir, "--no-color", "report", "--html", page, "--timeout", "5s").CombinedOutput()
	if err != nil {
		t.Fatalf("cnpa report --html: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "wrote "+page) || !strings.Contains(string(out), "not compared") {
		t.Errorf("cnpa report's output: got %q, want it to name %s and say the uids were not compared", out, page)
	}
	return page
}

func TestReportPageInBrowser(t *testing.T) {
	// Each test's browser starts in a profile of its own; side by side,
	// their starts (about 4 s each, most of it waiting) overlap.
	t.Parallel()
	b := kit.NeedBrowser(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "cnpa-op")
	tls := writeRun(t, dir)
	page := cnpaReport(t, dir)

	art := kit.ArtifactDir(t)
	png := filepath.Join(art, "report-offline.png")
	html, dom := kit.OpenReport(ctx, t, b, page, course.Steps.Lab().Numbers(), &kit.Shot{PNG: png, Width: 1280, Height: 2400})
	// Offline, the uids compared with the live alpha are not compared;
	// every other value of a correct run is as expected.
	for _, r := range course.Steps.Lab().Rules() {
		want := "ok"
		if r.ExpectedSaid() == "the live alpha's uid" {
			want = "skip"
		}
		if got := kit.ReportValueStatus(dom, r.File, r.Key); got != want {
			t.Errorf("%s %s on the page: status %q, want %q", r.File, r.Key, got, want)
		}
	}
	// Each timeline is a chart: one lane per actor, one numbered dot and
	// one table row per entry.
	for step, tl := range tls {
		actors := map[string]bool{}
		for _, e := range tl.Entries {
			actors[e.Actor] = true
		}
		sec := kit.ReportSection(t, dom, step)
		if got := count(sec, `<g class="lane"`); got != len(actors) {
			t.Errorf("step %d chart: %d lanes, want %d (one per actor %v)", step, got, len(actors), actors)
		}
		if got := count(sec, `<g class="mark `); got != len(tl.Entries) {
			t.Errorf("step %d chart: %d dots, want %d entries", step, got, len(tl.Entries))
		}
		if !strings.Contains(sec, tl.Action) {
			t.Errorf("step %d: the action %q is not on the page", step, tl.Action)
		}
	}
	// Step 6's 45 s garbage collection beside 6 ms reactions: log axis.
	if !strings.Contains(kit.ReportSection(t, dom, 6), "logarithmic time axis") {
		t.Errorf("step 6's chart: want a logarithmic axis for 6 ms next to 45 s")
	}
	// The check results, with the failure's hint.
	for _, want := range []string{`data-check="step4.new_teamspace_converges" data-status="fail"`, `data-check="step1.uid" data-status="pass"`, "is the controller running?", `data-passed="2" data-failed="1"`} {
		if !strings.Contains(dom, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	// Hostile text stays text: no element came from it, nothing ran.
	if strings.Contains(dom, "pwned</title>") || regexp.MustCompile(`<img|<script`).MatchString(dom) {
		t.Errorf("hostile text became markup on the page:\n%s", dom)
	}
	if !strings.Contains(dom, "&lt;img src=") {
		t.Errorf("the hostile text is not shown escaped")
	}

	if err := os.WriteFile(filepath.Join(art, "report-offline.html"), html, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("the page and its screenshot: %s, %s", filepath.Join(art, "report-offline.html"), png)
}

// TestNetworkDetector proves the net log assertion can fail: a page that
// asks for an image is caught asking.
func TestNetworkDetector(t *testing.T) {
	t.Parallel()
	b := kit.NeedBrowser(t)
	page := filepath.Join(t.TempDir(), "leaky.html")
	if err := os.WriteFile(page, []byte(`<html><body><img src="https://example.com/x.png"></body></html>`), 0o644); err != nil {
		t.Fatal(err)
	}
	load, err := b.LoadPage(context.Background(), t.TempDir(), "file://"+page, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(load.PageRequests) != 1 || load.PageRequests[0] != "https://example.com/x.png" {
		t.Errorf("page requests of a page with one remote image: got %v, want [https://example.com/x.png]", load.PageRequests)
	}
}

func count(s, sub string) int { return strings.Count(s, sub) }

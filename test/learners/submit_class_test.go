package learners

// The class test (issue 26): learners of the corpus submit their labs with
// `cnpa submit` as their cases end, and TestClass grades them as one class
// with `cnpa class grade`: offline, and live for the two whose control
// planes are kept up for it, one of them unreachable on purpose. It reuses
// the corpus's control planes and adds one lab of its own (cnpa's Go
// engine). TestClass waits for those learners' cases alone
// (room.awaitSubmissions), which take the slots first (caseRank).

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/class"
	"github.com/labhub/cnpa/internal/course"
	"github.com/labhub/cnpa/internal/course/step5"
	"github.com/labhub/cnpa/internal/judge"
	labdata "github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/poll"
	"github.com/labhub/cnpa/internal/submission"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// goEngineCase is the corpus subtest of the learner who runs cnpa's Go
// engine rather than a reconcile.sh of their own.
const goEngineCase = "class-go-engine/ada"

// classLearners are the corpus runs that submit, by subtest, and the
// learner each one is. live: its control plane is kept up for TestClass.
var classLearners = map[string]struct {
	name string
	live bool
}{
	"class-go-engine/ada":           {"ada", true},
	"valid-create-patch/own":        {"bea", false},
	"status-main-endpoint/own":      {"cid", false},
	"no-archive/own":                {"dan", false},
	"valid-jsonpatch-finalizer/own": {"eve", false},
	"finalizers-dropped/own":        {"gus", true},
	"hardcoded-pods/own":            {"hal", false},
}

// copier is the learner who submits another's evidence as her own, and
// copied the one she copies from.
const copier, copied = "eve", "bea"

// classroom collects the submissions and the kept labs.
type classroom struct {
	once sync.Once
	dir  string
	mu   sync.Mutex
	held map[string]*lab
	// evidence is closed once copied's case has ended, whether or not it
	// saved its evidence dir under dir (saved says).
	evidence     chan struct{}
	evidenceOnce sync.Once
	saved        bool
	made         map[string]bool
	// submitted is closed once every class learner's case has ended, or
	// TestCorpus has (when -run left some of them out).
	submitted     chan struct{}
	submittedOnce sync.Once
	classEnded    int
}

var room = &classroom{held: map[string]*lab{}, made: map[string]bool{}, evidence: make(chan struct{}), submitted: make(chan struct{})}

// submissionsEnded tells TestClass that every submission that will be made
// is: once the class learners' cases have ended, or TestCorpus has.
func (r *classroom) submissionsEnded() { r.submittedOnce.Do(func() { close(r.submitted) }) }

// classCaseEnded counts a class learner's case as over; the last one lets
// TestClass go on while the rest of the corpus still runs.
func (r *classroom) classCaseEnded() {
	r.mu.Lock()
	r.classEnded++
	all := r.classEnded == len(classLearners)
	r.mu.Unlock()
	if all {
		r.submissionsEnded()
	}
}

// awaitSubmissions is TestClass's wait for the class learners' cases. Every
// test of the package is parallel, so that its labs share the slots as one
// pool (a sequential test ran its one lab with the other slot idle: 290 s
// of TestByHand and the Japanese diagnoses before stop 43); TestClass,
// which grades what they submit, waits here. Their cases take the slots
// first (caseRank), so that it grades beside the rest of the corpus, and
// the two live learners' control planes are kept up minutes, not the
// whole package (a fresh-clone run held one 1,477 s, idle).
func (r *classroom) awaitSubmissions(t *testing.T) {
	t.Helper()
	if !corpusWillRun() {
		t.Fatal("no submissions: TestClass grades what TestCorpus's cases submit; run both (-run 'TestCorpus|TestClass')")
	}
	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-2*time.Minute))
		defer cancel()
	}
	select {
	case <-r.submitted:
	case <-ctx.Done():
		t.Fatal("the class learners' cases had not ended before the test binary's deadline: nothing to grade")
	}
}

// corpusWillRun tells whether TestCorpus is selected by -run.
func corpusWillRun() bool {
	run := flag.Lookup("test.run").Value.String()
	if run == "" {
		return true
	}
	ok, err := regexp.MatchString(strings.Split(run, "/")[0], "TestCorpus")
	return err == nil && ok
}

// copiedEnded tells the copier that copied's case is over.
func (r *classroom) copiedEnded() { r.evidenceOnce.Do(func() { close(r.evidence) }) }

// awaitCopied is the copier's wait for copied's evidence, before her case
// takes a slot: waiting inside her case held a control plane idle and ran
// down her deadline while copied's case queued behind others for the
// other slot (a fresh-clone CI run lost eve that way, at 20 min). It is
// bounded by the test binary's own deadline only.
func (r *classroom) awaitCopied(t *testing.T) {
	t.Helper()
	if name, _, ok := learnerOf(t); !ok || name != copier || !classWillRun() {
		return
	}
	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-time.Minute))
		defer cancel()
	}
	select {
	case <-r.evidence:
	case <-ctx.Done():
		t.Fatalf("%s's case (%s) had not ended before the test binary's deadline: %s cannot copy it", copied, "valid-create-patch/own", copier)
	}
	r.mu.Lock()
	saved := r.saved
	r.mu.Unlock()
	if !saved {
		t.Fatalf("%s's case (%s) ended without saving its evidence for %s to copy: see its failure", copied, "valid-create-patch/own", copier)
	}
}

// classWillRun tells whether TestClass is selected by -run: without it,
// nothing is submitted and no lab is kept.
func classWillRun() bool {
	run := flag.Lookup("test.run").Value.String()
	if run == "" {
		return true
	}
	top := strings.Split(run, "/")[0]
	ok, err := regexp.MatchString(top, "TestClass")
	return err == nil && ok
}

// submissions is the shared dir of the submission files.
func (r *classroom) submissions(t *testing.T) string {
	r.once.Do(func() {
		d, err := os.MkdirTemp("", "cnpa-class-")
		if err != nil {
			t.Fatal(err)
		}
		r.dir = d
	})
	return r.dir
}

// learnerOf is the class learner the running case is, if any.
func learnerOf(t *testing.T) (string, bool, bool) {
	c, ok := classLearners[strings.TrimPrefix(t.Name(), "TestCorpus/")]
	return c.name, c.live, ok
}

// hold keeps l's control plane up after its case, for TestClass to grade
// live, when l is a live learner's: its dirs then outlive the case too.
func (r *classroom) hold(t *testing.T, l *lab) bool {
	name, live, ok := learnerOf(t)
	if !ok || !live || !classWillRun() {
		return false
	}
	base, err := os.MkdirTemp("", "cnpa-class-"+name+"-")
	if err != nil {
		t.Fatal(err)
	}
	l.Dir, l.UnitDir = filepath.Join(base, "cnpa-op"), filepath.Join(base, "systemd")
	r.mu.Lock()
	r.held[name] = l
	r.mu.Unlock()
	return true
}

// check grades the case's lab as l.check does. A class learner's is
// `cnpa -o json submit`, which grades as `cnpa check` does, prints the same
// report and exits the same way, and writes the submission too: the class
// costs the corpus no second grading. The copier is graded on her own
// evidence first (her case's assertions), then submits another's.
func (r *classroom) check(t *testing.T, l *lab, caseName string) (kit.Result, *judge.Report) {
	t.Helper()
	name, _, ok := learnerOf(t)
	if !ok || !classWillRun() || name == copier {
		res, rep := l.check()
		if ok && classWillRun() {
			r.submit(t, l, caseName)
		}
		return res, rep
	}
	res := r.submit(t, l, caseName)
	var rep judge.Report
	if err := json.Unmarshal([]byte(res.Stdout), &rep); err != nil {
		t.Fatalf("cnpa -o json submit does not parse: %v\n%s", err, res)
	}
	return res, &rep
}

// submit runs `cnpa -o json submit` for the case's learner, at the end of
// its lab. The copier first puts the copied learner's evidence in her own
// dir.
func (r *classroom) submit(t *testing.T, l *lab, caseName string) kit.Result {
	t.Helper()
	name, _, _ := learnerOf(t)
	dir := r.submissions(t)
	if name == copied {
		err := os.CopyFS(filepath.Join(dir, "evidence-"+copied), os.DirFS(l.Dir))
		if err != nil {
			t.Errorf("keep %s's evidence for %s to copy: %v", copied, copier, err)
		}
		r.mu.Lock()
		r.saved = err == nil
		r.mu.Unlock()
		r.copiedEnded()
	}
	if name == copier {
		// awaitCopied saw copied's evidence saved before this case began.
		// Her own files come back once she has submitted: the rest of her
		// case (the switch to admin) grades her own lab, whose UIDs the
		// copied files do not hold.
		defer swapFiles(t, filepath.Join(dir, "evidence-"+copied), l.Dir)()
	}
	res := l.Cnpa("-o", "json", "submit", "--learner", name, "--out", filepath.Join(dir, name+".json"), "--timeout", checkTimeout,
		"--service-manager", "process", "--unit-dir", l.UnitDir)
	if res.Code == 2 {
		t.Fatalf("cnpa submit (%s as %s): usage or environment error\n%s", caseName, name, res)
	}
	if _, err := os.Stat(filepath.Join(dir, name+".json")); err != nil {
		t.Errorf("cnpa submit (%s as %s) wrote no submission: %v\n%s", caseName, name, err, res)
		return res
	}
	r.mu.Lock()
	r.made[name] = true
	r.mu.Unlock()
	return res
}

// swapFiles writes every file of submission.Files that src holds into
// dst, and returns what puts dst's own files back as they were (a file
// dst did not have is removed).
func swapFiles(t *testing.T, src, dst string) (restore func()) {
	t.Helper()
	saved := map[string][]byte{}
	for _, f := range submission.Files(course.Steps.Lab()) {
		data, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			continue
		}
		// nil: dst had no such file, and restore removes it.
		own, err := os.ReadFile(filepath.Join(dst, f))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		saved[f] = own
		if err := os.WriteFile(filepath.Join(dst, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return func() {
		for f, own := range saved {
			path := filepath.Join(dst, f)
			var err error
			if own == nil {
				err = os.Remove(path)
			} else {
				err = os.WriteFile(path, own, 0o644)
			}
			if err != nil {
				t.Errorf("put back %s: %v", path, err)
			}
		}
	}
}

// runGoEngine is the learner who runs the lab with cnpa's Go engine.
func runGoEngine(t *testing.T) {
	if !classWillRun() {
		t.Log("TestClass does not run: nothing to submit")
		return
	}
	l := newLab(t)
	t.Cleanup(func() { l.StopService() })
	steps := l.Cnpa("step", "all", "--service-manager", "process", "--unit-dir", l.UnitDir, "--timeout", stepTimeout, "--quiet")
	if steps.Code != 0 {
		t.Fatalf("cnpa step all with the Go engine: exit %d\n%s", steps.Code, steps)
	}
	if res, rep := room.check(t, l, goEngineCase); res.Code != 0 || !rep.OK() {
		t.Errorf("the Go engine's lab: cnpa submit exit %d, failed %v, want 0 and none", res.Code, failedSummary(rep))
	}
}

// TestClass grades the class the corpus submitted: ada (Go engine) and gus
// live, hal live but unreachable (graded 0, unverified), dan's submission
// edited after submit (a failed check flipped to pass), eve with bea's
// evidence (both offline: shares-uids-with), ivy on the roster with
// nothing sent.
func TestClass(t *testing.T) {
	t.Parallel()
	room.awaitSubmissions(t)
	dir := room.dir
	if dir == "" {
		t.Fatal("no submissions: TestClass grades what TestCorpus's cases submit; run both (-run 'TestCorpus|TestClass')")
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the submissions are kept in %s", dir)
			return
		}
		os.RemoveAll(dir)
	})
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	for _, l := range room.held {
		// The kept labs' own cases are over: their commands run under this test now.
		l.T, l.Ctx = t, ctx
		t.Cleanup(func() {
			l.StopService()
			l.Cluster.Stop()
			os.RemoveAll(filepath.Dir(l.Dir))
		})
	}
	var missing []string
	for c, want := range classLearners {
		if !room.made[want.name] {
			missing = append(missing, want.name+" ("+c+")")
		}
	}
	if len(missing) > 0 {
		t.Fatalf("no submission from %v: their cases failed or did not run", missing)
	}
	os.RemoveAll(filepath.Join(dir, "evidence-"+copied))

	// dan edits his file after submit: the failed archive check says pass,
	// and the hash is made again, as a careful cheat would.
	dan, err := submission.Read(filepath.Join(dir, "dan.json"))
	if err != nil {
		t.Fatal(err)
	}
	flipped := false
	for i := range dan.Checks {
		if dan.Checks[i].ID == "step6.archive_record" && dan.Checks[i].Status == judge.Fail {
			dan.Checks[i].Status, dan.Checks[i].Hint, dan.Checks[i].Diagnosis = judge.Pass, "", labdata.Mistake{}
			dan.Failed--
			dan.Passed++
			flipped = true
		}
	}
	if !flipped {
		t.Fatalf("dan's step6.archive_record did not fail: no failed check to flip")
	}
	if err := submission.Write(filepath.Join(dir, "dan.json"), &dan.Content); err != nil {
		t.Fatal(err)
	}

	// The roster and CLASS.yaml: hal's cluster is unreachable (a closed port).
	work := t.TempDir()
	roster := filepath.Join(work, "roster.txt")
	if err := os.WriteFile(roster, []byte("# December\nada\nbea\ncid\ndan\neve\ngus\nhal\nivy\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ports, err := cluster.FreePorts(1)
	if err != nil {
		t.Fatal(err)
	}
	dead := filepath.Join(work, "hal.kubeconfig")
	if err := os.WriteFile(dead, []byte(cluster.KubeconfigFor(fmt.Sprintf("https://127.0.0.1:%d", ports[0]), "no-token")), 0o600); err != nil {
		t.Fatal(err)
	}
	classYAML := "learners:\n"
	for _, name := range []string{"ada", "gus"} {
		l := room.held[name]
		// The services were stopped when their cases ended; a learner's
		// controller runs when the instructor grades.
		start := l.Cnpa("service", "start", "--service-manager", "process", "--unit-dir", l.UnitDir)
		if start.Code != 0 {
			t.Fatalf("start %s's service again: %s", name, start)
		}
		classYAML += fmt.Sprintf("- {name: %s, kubeconfig: %s}\n", name, l.Cluster.Kubeconfig)
	}
	classYAML += "- {name: hal, kubeconfig: " + dead + "}\n"
	classFile := filepath.Join(work, "class.yaml")
	if err := os.WriteFile(classFile, []byte(classYAML), 0o644); err != nil {
		t.Fatal(err)
	}

	html := filepath.Join(kit.ArtifactDir(t), "class.html")
	cmd := exec.CommandContext(ctx, cnpaBin, "--no-color", "-o", "json", "class", "grade", "--roster", roster, "--live", classFile,
		"--parallel", "3", "--timeout", "4m", "--probe-timeout", "60s", "--html", html, dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("cnpa class grade: %v\n%s", err, stderr.String())
	}
	t.Logf("cnpa class grade:\n%s", stderr.String())
	var gb class.Gradebook
	if err := json.Unmarshal(stdout.Bytes(), &gb); err != nil {
		t.Fatalf("class grade -o json does not parse: %v\n%s", err, stdout.String())
	}
	// One progress line per learner graded live.
	for _, name := range []string{"ada", "gus", "hal"} {
		if !regexp.MustCompile(`(?m)^` + name + `: `).MatchString(stderr.String()) {
			t.Errorf("no progress line for %s:\n%s", name, stderr.String())
		}
	}

	want := map[string]struct {
		graded, diagnosis, flags string
		steps, first             int
	}{
		"ada": {class.GradedLive, "", "", 8, 0},
		// bea and eve are graded offline: whose cluster their shared uids
		// are on is each one's own word, so neither is named the source
		// (issue 40, N7: a source only from live grading).
		"bea": {class.GradedOffline, "", "shares-uids-with:eve", 8, 0},
		"cid": {class.GradedOffline, labdata.MistakeStatusMain.Name, "", 2, 3},
		"dan": {class.GradedOffline, labdata.MistakeNoArchive.Name, "tampered", 5, 6},
		"eve": {class.GradedOffline, labdata.MistakeStale.Name, "shares-uids-with:bea", 0, 1},
		"gus": {class.GradedLive, labdata.MistakeFinalizerList.Name, "", 5, 6},
		// hal's live grading failed: graded 0, never the submission's own
		// score, and flagged (issue 40, N6); the diagnosis is still the
		// evidence's.
		"hal": {class.GradedUnreachable, labdata.MistakeQuotaSpec.Name, class.FlagUnverified, 0, 1},
		"ivy": {class.GradedMissing, "", "no-submission", 0, 1},
	}
	for _, l := range gb.Learners {
		w, ok := want[l.Name]
		if !ok {
			t.Errorf("learner %s is not in the class", l.Name)
			continue
		}
		delete(want, l.Name)
		if l.Graded != w.graded || l.Diagnosis != w.diagnosis || l.FlagList() != w.flags || l.FirstFailingStep != w.first {
			t.Errorf("%s: got graded %s, diagnosis %q, flags %q, first failing step %d (%d steps); want %s, %q, %q, %d",
				l.Name, l.Graded, l.Diagnosis, l.FlagList(), l.FirstFailingStep, l.StepsPassed, w.graded, w.diagnosis, w.flags, w.first)
		}
		if l.StepsPassed < w.steps {
			t.Errorf("%s: got %d steps passed, want at least %d", l.Name, l.StepsPassed, w.steps)
		}
		t.Logf("%s: %s, %d/8 steps, %d/%d checks, first failing %d, %q, flags %q (%s)", l.Name, l.Graded, l.StepsPassed, l.ChecksPassed, l.ChecksTotal,
			l.FirstFailingStep, l.Diagnosis, l.FlagList(), l.GradedDetail)
	}
	for name := range want {
		t.Errorf("learner %s is missing from the gradebook", name)
	}
	for _, l := range gb.Learners {
		switch l.Name {
		case "ada", "gus":
			// Live: the probes were made on the learner's cluster; what only
			// the VM sees is the submission's, as reported.
			for _, c := range l.Checks {
				live := c.ID == "step4.new_teamspace_converges" || c.ID == step5.ProbeDrift.ID || c.ID == "step6.finalizer_added_keeps_foreign"
				vm := c.ID == "step4.unit_file" || c.ID == "step3.rerun_writes_nothing"
				if live && c.AsReported || vm && !c.AsReported {
					t.Errorf("%s %s: as reported %v", l.Name, c.ID, c.AsReported)
				}
			}
		case "dan":
			for _, c := range l.Checks {
				if c.ID == "step6.archive_record" && (c.Status != judge.Fail || c.Recorded != judge.Pass) {
					t.Errorf("dan step6.archive_record: got %s (recorded %s), want fail, recorded pass", c.Status, c.Recorded)
				}
			}
		case "hal":
			if !strings.Contains(l.GradedDetail, "cannot reach the cluster") {
				t.Errorf("hal: graded detail %q, want the unreachable cluster named", l.GradedDetail)
			}
			if l.StepsPassed != 0 || l.ChecksPassed != 0 {
				t.Errorf("hal, unreachable: got %d steps, %d checks passed; want 0 and 0 (unverified)", l.StepsPassed, l.ChecksPassed)
			}
		}
	}
	assertNoProbesLeft(t)
	interruptLive(t, ctx, work, dir)

	// The CSV an LMS imports, from the same submissions offline.
	out, err := exec.Command(cnpaBin, "--no-color", "-o", "csv", "class", "grade", "--roster", roster, dir).Output()
	if err != nil {
		t.Fatalf("cnpa class grade -o csv: %v", err)
	}
	rows, err := csv.NewReader(bytes.NewReader(out)).ReadAll()
	if err != nil || len(rows) != 9 || strings.Join(rows[0][:8], ",") != "learner,steps_passed,checks_passed,checks_total,first_failing_step,diagnosis,flags,graded" {
		t.Errorf("CSV: %v\n%s", err, out)
	}

	// The class page: self-contained, loaded in Chromium with no request.
	b := kit.NeedBrowser(t)
	page, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	kit.AssertSelfContained(t, string(page))
	load, err := b.LoadPage(ctx, t.TempDir(), "file://"+html, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(load.PageRequests) > 0 {
		t.Errorf("the class page made network requests: %v", load.PageRequests)
	}
	for _, s := range []string{`data-learner="eve"`, `data-flag="shares-uids-with"`, `data-flag="unverified"`, `data-flag="tampered"`, `id="pass-rate"`,
		`data-diagnosis="` + labdata.MistakeStatusMain.Name + `"`, `class="learner-report"`, `id="learner-2-step-6"`} {
		if !strings.Contains(load.DOM, s) {
			t.Errorf("the class page's DOM has no %s", s)
		}
	}
	t.Logf("class page: %s", html)
}

// assertNoProbesLeft fails when a live learner's cluster still holds a
// temporary TeamSpace of the grader.
func assertNoProbesLeft(t *testing.T) {
	for name, l := range room.held {
		out, err := exec.Command(l.Cluster.Kubectl(), "--kubeconfig", l.Cluster.Kubeconfig, "get", "teamspaces", "-o", "name").Output()
		if err != nil {
			t.Errorf("%s: list teamspaces: %v", name, err)
			continue
		}
		if strings.Contains(string(out), check.TempPrefix) {
			t.Errorf("%s's cluster still holds probes: %s", name, out)
		}
	}
}

// interruptLive starts live grading of gus alone, Ctrl-C's it once its
// first probe is on gus's cluster, and holds it to its word: every probe
// made is gone when cnpa exits.
func interruptLive(t *testing.T, ctx context.Context, work, subs string) {
	l := room.held["gus"]
	classFile := filepath.Join(work, "gus.yaml")
	if err := os.WriteFile(classFile, []byte("learners:\n- {name: gus, kubeconfig: "+l.Cluster.Kubeconfig+"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, cnpaBin, "--no-color", "class", "grade", "--live", classFile, "--probe-timeout", "60s", filepath.Join(subs, "gus.json"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	seen := ""
	_, _ = poll.Until(ctx, 100*time.Millisecond, 2*time.Minute, func(context.Context) (bool, string, error) {
		out, _ := exec.Command(l.Cluster.Kubectl(), "--kubeconfig", l.Cluster.Kubeconfig, "get", "teamspaces", "-o", "name").Output()
		for _, line := range strings.Fields(string(out)) {
			if strings.Contains(line, check.TempPrefix) {
				seen = line
			}
		}
		return seen != "", "", nil
	})
	if seen == "" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("no probe appeared on gus's cluster while grading live\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("Ctrl-C during live grading: %v, exit %d, want 2 and \"interrupted\"\n%s", err, code, stderr.String())
	}
	t.Logf("interrupted with %s on gus's cluster", seen)
	assertNoProbesLeft(t)
}

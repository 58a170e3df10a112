// Package lab runs `cnpa step all` end to end, for both engines on both
// datastores (etcd, and kine over SQLite as in k3s), each on a fresh real
// control plane, checks every evidence value and the live state the lab
// leaves behind, and grades the run with `cnpa check`.
package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/course"
	"github.com/labhub/cnpa/internal/doctor"
	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/timeline"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
	"github.com/labhub/cnpa/test/labassert"
)

// cnpaBin is the cnpa binary built once for the package.
var cnpaBin string

// labParallel is how many of the package's tests run at once. Each starts
// control planes of its own and mostly waits on them (the controller's
// loop, the garbage collector, step 7's 8 s), so its labs overlap instead
// of running one after the other: TestStepAll's five labs (two of them
// followed by their replay, the longest chain) take the slots of the
// short tests as they end.
// Three, not more: with six, beside make test's other packages, a
// brand-new 2-core machine ran about nine control planes at once and
// their API servers missed /readyz for 90 s. CNPA_LAB_PARALLEL changes it.
const labParallel = 3

func TestMain(m *testing.M) {
	kit.DefaultParallel(labParallel, "CNPA_LAB_PARALLEL")
	kit.RunWithCnpa(m, &cnpaBin)
}

// TestStepAll runs the whole lab for every engine on both datastores, and
// holds each run to LAB.md. The labs also carry two proofs that would
// otherwise need labs of their own:
//   - context and odd paths (the labs not replayed by bash: etcd/own,
//     kine/go, kine/shell): cnpa runs with `--context good` against a
//     kubeconfig whose current-context is a dead server, which KUBECONFIG
//     names too, with the evidence dir and the kubeconfig on paths built to
//     break quoting (kit.OddDir: a space, `%`, `$(touch …)`, `}`, a quote).
//     The Go engine runs cnpa controller, the shell engine reconcile.sh's
//     kubectl and jq, the own engine a learner's script that knows nothing
//     of contexts (it must follow KUBECONFIG, which cnpa sets), all as a
//     process-mode service under the own identity. Anything cnpa writes or
//     starts that lost the context would talk to the dead server; anything
//     that lost the quoting would fail or run the embedded touch;
//   - RBAC as used (kine/go and kine/shell, under the own identity): the
//     API server's audit log records every request of the service's
//     ServiceAccount, reads and watches included, over `cnpa step all`
//     and `cnpa check` (drift in step 5, deletion and archive in step 6),
//     and assets/rbac.yaml is held to the two labs' requests together: a
//     rule granting a verb that no request used fails, and so does a
//     request no rule covers (rbacUse).
func TestStepAll(t *testing.T) {
	t.Parallel()
	runs := map[string][]string{
		cluster.DatastoreEtcd: {"go", "shell", "own"},
		cluster.DatastoreKine: {"go", "shell"},
	}
	rbac := &rbacUse{}
	// After every lab of the test (cleanups run after parallel subtests).
	t.Cleanup(func() { rbac.hold(t) })
	for _, datastore := range []string{cluster.DatastoreEtcd, cluster.DatastoreKine} {
		for _, engine := range runs[datastore] {
			t.Run(datastore+"/"+engine, func(t *testing.T) {
				t.Parallel()
				runLab(t, engine, datastore, rbac)
			})
		}
	}
}

// doctorDatastore is the detail of doctor's datastore line, or "" without one.
func doctorDatastore(r doctor.Report) string {
	for _, x := range r.Results {
		if x.Name == "datastore" {
			return x.Detail
		}
	}
	return ""
}

func runLab(t *testing.T, engine, datastore string, rbac *rbacUse) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	replayed := datastore == cluster.DatastoreEtcd && engine != "own"
	// The replayed labs' shown commands are typed again by bash with this
	// machine's paths swapped for the replay's: they keep plain paths and
	// the cluster's own kubeconfig. The others take the context and the
	// odd paths; the own identity's go and shell labs, the audit log.
	odd := !replayed
	audited := datastore == cluster.DatastoreKine && engine != "own"
	opts := cluster.Options{Datastore: datastore}
	if audited {
		opts.AuditAllOf = []string{identity.Username}
	}
	cl, err := cluster.Start(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Stop)
	l := kit.NewLab(ctx, t, cl, cnpaBin)
	l.Quiet = true
	var markers []string
	if odd {
		base := t.TempDir()
		kcDir, kcMarker := kit.OddDir(filepath.Join(base, "kube"))
		l.Kubeconfig, l.Context = filepath.Join(kcDir, "two contexts"), "good"
		writeTwoContexts(t, cl.Kubeconfig, l.Kubeconfig)
		// The environment's KUBECONFIG is the same file: whatever falls
		// back on it without the context meets the dead server too.
		l.Env = []string{"KUBECONFIG=" + l.Kubeconfig}
		for _, kv := range cl.Env() {
			if !strings.HasPrefix(kv, "KUBECONFIG=") {
				l.Env = append(l.Env, kv)
			}
		}
		var marker string
		l.Dir, marker = kit.OddDir(filepath.Join(base, "lab"))
		markers = append(markers, marker, kcMarker)
	}
	dir, unitDir := l.Dir, l.UnitDir
	// The service runs detached; stop it before the cluster goes (with a
	// context of its own: ctx is cancelled by the time cleanups run).
	t.Cleanup(func() { l.CnpaIn(context.Background(), "service", "stop") })

	// `cnpa doctor` tells the datastore (exit 1 is fine here: the machine
	// may lack systemd; only the datastore line matters).
	r := l.Cnpa("doctor", "-o", "json")
	var rep doctor.Report
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("cnpa doctor -o json does not parse: %v\n%s", err, r.Output)
	}
	if got := doctorDatastore(rep); !strings.HasPrefix(got, datastore+" ") {
		t.Errorf("cnpa doctor's datastore: got %q, want %s (…)", got, datastore)
	}

	var script []byte
	if engine == "own" {
		// The learner's own reconcile.sh: missing at step 3, the step says
		// what LAB.md asks of it; then the learner writes one (here cnpa's
		// shell reference, as `cnpa scaffold` gives it).
		if r := l.Cnpa("step", "1", "--engine", "own", "--service-manager", "process", "--unit-dir", unitDir); r.Code != 0 {
			t.Fatalf("cnpa step 1 --engine own: %v\n%s", r.Err(), r.Output)
		}
		if r := l.Cnpa("step", "2"); r.Code != 0 {
			t.Fatalf("cnpa step 2: %v\n%s", r.Err(), r.Output)
		}
		r := l.Cnpa("step", "3")
		if r.Code == 0 || !strings.Contains(r.Output, "reconcile.sh does not exist") || !strings.Contains(r.Output, "status subresource") {
			t.Fatalf("cnpa step 3 --engine own without reconcile.sh: err %v, want a failure saying it does not exist and what LAB.md asks:\n%s", r.Err(), r.Output)
		}
		if r := l.Cnpa("scaffold", "reconcile.sh", "--engine", "shell"); r.Code != 0 {
			t.Fatalf("cnpa scaffold: %v\n%s", r.Err(), r.Output)
		}
		script, _ = os.ReadFile(filepath.Join(dir, "reconcile.sh"))
	}
	start := time.Now()
	var stepArgs []string
	switch {
	case engine == "own":
		// The own engine's run is not replayed (below): it shows the
		// steps with --quiet, which must hide every command.
		stepArgs = append(stepArgs, "--quiet")
	case replayed && engine == "shell":
		// One replay for each identity: the Go engine's runs under the own
		// identity (the default), whose provisioning step 4 shows as
		// commands too; the shell engine's as root with the admin
		// kubeconfig.
		stepArgs = append(stepArgs, "--service-identity", "admin")
	}
	if replayed {
		// The replay types what --verbose shows: every file and manifest
		// whole (the default output summarises the long ones).
		stepArgs = append(stepArgs, "--verbose")
	}
	r = l.StepAll(engine, stepArgs...)
	stepOut := []byte(r.Output)
	t.Logf("cnpa step all (%s engine) took %s", engine, time.Since(start).Round(time.Millisecond))
	if r.Code != 0 {
		logs := l.Cnpa("service", "logs", "-n", "40")
		t.Fatalf("cnpa step all: %v\n%s\nservice log:\n%s", r.Err(), r.Output, logs.Output)
	}
	if odd {
		if engine == "own" && !bytes.Contains(stepOut, []byte(`sets current-context "good"`)) {
			t.Errorf("step 3 (own engine) does not say how the learner's script gets the context:\n%s", stepOut)
		}
		if bytes.Contains(stepOut, []byte(deadServer)) {
			t.Errorf("step all mentions the dead server %s:\n%s", deadServer, stepOut)
		}
	}

	labassert.Lab(ctx, t, cl.Kubeconfig, dir)
	labassert.Timelines(t, dir)
	if engine != "own" {
		outputShape(t, string(stepOut), engine, replayed)
		timelineRequestsShown(t, dir, string(stepOut), l.Context)
		wordingSlips(t, string(stepOut))
	}
	if engine == "own" {
		if cmds := kit.ShownCommands(string(stepOut)); len(cmds) > 0 || !bytes.Contains(stepOut, []byte("✓ reverted_to")) {
			t.Errorf("cnpa step all --quiet: got %d commands shown (want none) and the ✓ lines kept:\n%s", len(cmds), stepOut)
		}
		if now, _ := os.ReadFile(filepath.Join(dir, "reconcile.sh")); !bytes.Equal(now, script) {
			t.Errorf("the learner's reconcile.sh changed during the lab: cnpa must never write it")
		}
	}
	// The grader agrees. test/grader grades in depth, on etcd; this is the
	// same verdict on every datastore and engine. Five labs run at once
	// here, so the shell loop's passes are slow: the live checks get more
	// than check's default 30 s to see it act.
	start = time.Now()
	chk := l.Cnpa("check", "--timeout", "90s")
	checkOut := []byte(chk.Output)
	if chk.Code != 0 {
		t.Errorf("cnpa check after step all: %v\n%s", chk.Err(), checkOut)
	} else {
		t.Logf("cnpa check passed in %s", time.Since(start).Round(time.Millisecond))
	}
	if audited {
		// What the service's identity asked for over step all and check.
		events, err := cl.AuditSince(0, identity.Username)
		if err != nil {
			t.Fatal(err)
		}
		rbac.add(t, engine, events)
	}
	if odd {
		if logs, err := os.ReadFile(filepath.Join(dir, "cnpa-op.log")); err != nil {
			t.Errorf("the service's log: %v", err)
		} else if bytes.Contains(logs, []byte("127.0.0.1:1")) {
			t.Errorf("the service talked to the dead server:\n%s", logs)
		}
	}
	// The HTML report of this run, in a real browser: once, on etcd with
	// the go engine, as the other runs would show the same page.
	if datastore == cluster.DatastoreEtcd && engine == "go" && chk.Code == 0 {
		t.Run("report", func(t *testing.T) { reportPage(ctx, t, l, dir, checkOut, datastore+"-"+engine) })
	}
	// The service is running when the lab ends.
	if r := l.Cnpa("service", "status"); r.Code != 0 {
		t.Errorf("service not active after step all: %v\n%s", r.Err(), r.Output)
	}
	// Re-running a finished step keeps its evidence.
	beforeData, _ := os.ReadFile(filepath.Join(dir, lab.ReconcileFile))
	if r := l.Cnpa("step", "3"); r.Code != 0 {
		t.Errorf("re-running step 3: %v\n%s", r.Err(), r.Output)
	}
	afterData, _ := os.ReadFile(filepath.Join(dir, lab.ReconcileFile))
	if string(afterData) != string(beforeData) {
		t.Errorf("reconcile.json after re-running step 3: got %s, want %s", afterData, beforeData)
	}
	for _, m := range markers {
		kit.NoMarker(t, m)
	}

	// The commands the steps showed, replayed by hand on a fresh cluster,
	// give the same evidence. Once per cnpa engine, on etcd (the datastore
	// does not change what kubectl sends); the own engine shows the shell
	// engine's commands but for reconcile.sh, which is the learner's file.
	// The first cluster goes first: two at once would crowd the machine.
	if replayed {
		l.CnpaIn(context.Background(), "service", "stop")
		cl.Stop()
		// A budget of its own: the first run may have used much of ctx's
		// on a crowded machine.
		rctx, rcancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer rcancel()
		replayLab(rctx, t, stepOut, cl, dir, unitDir)
	}
}

// timelineRequestsShown: every request to the API server that a timeline
// says you sent (a `kubectl …` action) is a command the steps showed, word
// for word, and the replay sends the shown commands and gets the same
// evidence: what a timeline records is the request that was sent, not a
// description written beside it.
//
// With --context, every shown kubectl carries `--context <name>` and the
// timelines record the request without it: the shown commands are
// compared with that word taken out.
func timelineRequestsShown(t *testing.T, dir, out, kubeContext string) {
	t.Helper()
	shown := kit.ShownCommands(out)
	for i, c := range shown {
		// A long command is shown as bash's line continuations (issue
		// 57): the request is the line bash reads.
		shown[i] = strings.ReplaceAll(c, " \\\n  ", " ")
	}
	if kubeContext != "" {
		word := regexp.MustCompile(`kubectl --context (` + regexp.QuoteMeta(kubeContext) + `|'` + regexp.QuoteMeta(kubeContext) + `') `)
		for i, c := range shown {
			shown[i] = word.ReplaceAllString(c, "kubectl ")
		}
	}
	// sends: the shown command c is the request cmd, captures its answer
	// ($(cmd -o …), $(cmd | jq …)), or feeds it a heredoc.
	sends := func(c, cmd string) bool {
		return c == cmd || strings.Contains(c, "$("+cmd+" ") || strings.Contains(c, "$("+cmd+")") || strings.HasPrefix(c, cmd+" <<")
	}
	n := 0
	for _, s := range course.Steps.Lab().TimelineSteps() {
		tl, err := timeline.Load(dir, s.Number)
		if err != nil || tl == nil {
			t.Errorf("step %d timeline: %v (none: %t)", s.Number, err, tl == nil)
			continue
		}
		for _, e := range tl.Entries {
			cmd := e.Values["command"]
			if e.Kind != timeline.KindAction || e.Actor != timeline.You || !strings.HasPrefix(cmd, "kubectl ") {
				continue
			}
			n++
			found := false
			for _, c := range shown {
				found = found || sends(c, cmd)
			}
			if !found {
				t.Errorf("step %d timeline records %q (%s), which no shown command sends", s.Number, cmd, e.What)
			}
		}
	}
	if n == 0 {
		t.Errorf("the timelines record no kubectl request: got 0, want the steps' actions")
	}
}

// reportPage makes `cnpa report --html` from the lab's real evidence,
// timelines and check, loads it in headless Chromium, and asserts what a
// reader sees: the eight steps, every evidence value as expected (the
// cluster is there, so the uids too), each recorded timeline as a chart
// with one lane per actor and one dot per entry, the check's results, and
// no network request. The screenshot is left in kit.ArtifactDir.
func reportPage(ctx context.Context, t *testing.T, lab *kit.Lab, dir string, checkOut []byte, name string) {
	l := *lab
	l.T = t // this subtest's, to fail it
	b := kit.NeedBrowser(t)
	page := filepath.Join(t.TempDir(), "report.html")
	if r := l.Cnpa("report", "--html", page); r.Code != 0 {
		t.Fatalf("cnpa report --html: %v\n%s", r.Err(), r.Output)
	}
	art := kit.ArtifactDir(t)
	png := filepath.Join(art, "report-lab-"+name+".png")
	html, dom := kit.OpenReport(ctx, t, b, page, course.Steps.Lab().Numbers(), &kit.Shot{PNG: png, Width: 1280, Height: 2400})
	for _, r := range course.Steps.Lab().Rules() {
		if got := kit.ReportValueStatus(dom, r.File, r.Key); got != "ok" {
			t.Errorf("%s %s on the page: status %q, want ok", r.File, r.Key, got)
		}
	}
	// The check on the page is the one just run: its counts, each id.
	m := regexp.MustCompile(`(\d+) passed, 0 failed`).FindSubmatch(checkOut)
	if m == nil {
		t.Fatalf("cnpa check's summary line not found in:\n%s", checkOut)
	}
	if want := `data-passed="` + string(m[1]) + `" data-failed="0"`; !strings.Contains(dom, want) {
		t.Errorf("the page's check summary: want %s", want)
	}
	if strings.Contains(dom, `id="check-stale"`) {
		t.Errorf("the page calls the check just run older than the evidence")
	}
	for _, id := range regexp.MustCompile(`(?m)^\s+✓ (step\d\.\S+)`).FindAllSubmatch(checkOut, -1) {
		if want := `data-check="` + string(id[1]) + `" data-status="pass"`; !strings.Contains(dom, want) {
			t.Errorf("the page lacks the passed check %s", id[1])
		}
	}
	// Steps 4-7 each recorded a timeline (labassert.Timelines checked their
	// content), and the page draws every one of them as a chart.
	for _, s := range course.Steps.Lab().TimelineSteps() {
		step := s.Number
		sec := kit.ReportSection(t, dom, step)
		tl, err := timeline.Load(dir, step)
		if err != nil {
			t.Errorf("step %d's timeline: %v", step, err)
			continue
		}
		if tl == nil || len(tl.Entries) == 0 {
			t.Errorf("step %d recorded no timeline, so the page has no chart for it", step)
			continue
		}
		actors := map[string]bool{}
		for _, e := range tl.Entries {
			actors[e.Actor] = true
		}
		if got := strings.Count(sec, `<g class="lane"`); got != len(actors) {
			t.Errorf("step %d chart: %d lanes, want %d (one per actor %v)", step, got, len(actors), actors)
		}
		if got := strings.Count(sec, `<g class="mark `); got != len(tl.Entries) {
			t.Errorf("step %d chart: %d dots, want %d entries", step, got, len(tl.Entries))
		}
	}
	if err := os.WriteFile(filepath.Join(art, "report-lab-"+name+".html"), html, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("the lab's report and its screenshot: %s, %s", filepath.Join(art, "report-lab-"+name+".html"), png)
}

// wordingSlips holds `cnpa step all`'s output to the newcomer review's
// rows 13 and 19 (reviews/2026-12-01-newcomer.md): each slip seen there is
// absent, in either engine's output.
func wordingSlips(t *testing.T, out string) {
	t.Helper()
	step4, step6 := section(out, 4), section(out, 6)
	for _, slip := range []struct{ where, text, why string }{
		{out, "waited after", `"waited after 8s"`},
		{out, " 1 files", `"removed 1 files"`},
		{out, "controller  cnpa controller", "a timeline line naming the controller twice"},
		{step4, "Error from server (NotFound)", "the shell engine's passing step 4 showing NotFound"},
		{step4, "with the finalizer on", "step 4's wait credits a finalizer the unit turns off (row 13)"},
	} {
		if strings.Contains(slip.where, slip.text) {
			t.Errorf("cnpa step all shows %q again (%s)", slip.text, slip.why)
		}
	}
	if n := strings.Count(step6, "deletionTimestamp 20"); n > 1 {
		t.Errorf("step 6 tells beta's deletionTimestamp %d times, want once:\n%s", n, step6)
	}
}

// outputShape checks what `cnpa step all` shows a learner: by default, step
// 4 shows the unit's ExecStart and Restart=always lines and one line per
// piece of the service's identity, not the unit, the RBAC or the policy
// whole; with --verbose, all of them once. No step shows the unit twice.
func outputShape(t *testing.T, out, engine string, verbose bool) {
	t.Helper()
	step4, step6 := section(out, 4), section(out, 6)
	units := strings.Count(out, "\n  > [Service]\n")
	if verbose {
		if units != 1 || !strings.Contains(step4, "\n  > [Service]\n") {
			t.Errorf("cnpa step all --verbose: the unit shown %d times, want once, in step 4:\n%s", units, step4)
		}
		if engine == "go" && !strings.Contains(step4, "\n  > kind: ClusterRole\n") {
			t.Errorf("cnpa step all --verbose: step 4 does not show the RBAC manifest:\n%s", step4)
		}
		return
	}
	if units != 0 || strings.Contains(step4, "kind: ClusterRole") || strings.Contains(step4, "kind: ValidatingAdmissionPolicy") {
		t.Errorf("cnpa step all: step 4 shows the unit (%d times), the RBAC or the policy whole without --verbose:\n%s", units, step4)
	}
	if !strings.Contains(step4, "  │ ExecStart=") {
		t.Errorf("cnpa step all: step 4 does not show the unit's ExecStart=:\n%s", step4)
	}
	// Each line that matters comes with its mark: beside it when the
	// block fits 80 columns, else on the line below.
	for _, want := range []string{"Restart=always", "ServiceAccount kube-system/cnpa-controller", "ValidatingAdmissionPolicy cnpa-controller-writes"} {
		marked := regexp.MustCompile(`  │ ` + regexp.QuoteMeta(want) + `(  ← |\n  │   ↑ )`)
		if !marked.MatchString(step4) {
			t.Errorf("cnpa step all: step 4 does not show %q with its mark:\n%s", want, step4)
		}
	}
	if strings.Contains(step6, "Restart=always") {
		t.Errorf("cnpa step all: step 6 shows the unit again:\n%s", step6)
	}
}

// section is step n's part of a `cnpa step all` output.
func section(out string, n int) string {
	start := strings.Index(out, fmt.Sprintf("\nStep %d — ", n))
	if start < 0 {
		return ""
	}
	rest := out[start+1:]
	if end := strings.Index(rest, fmt.Sprintf("\nStep %d — ", n+1)); end > 0 {
		return rest[:end]
	}
	return rest
}

// TestMakeLabLines: `make lab` (test/labrun) prints at most 360 lines by
// default, the steps' teaching and every verdict included. It was 350
// until step 1 said, for each of crd.yaml and alpha.yaml, that the file
// is cnpa's because the learner has none, and cnpa's unit said how it
// becomes the learner's (issue 39 asks for both lines): 354 then. 400
// since issue 41 holds prose to 80 columns: the teaching text, the waits'
// why and the comments take 381 lines in English, 387 in Japanese. 430
// since issue 50 holds the rest to 80 as well: a listing's mark that does
// not fit beside its line goes below it (the identity's nine objects), a
// ✓ row with a wide name or value hangs it, and a timeline's command
// goes under its heading: 412 lines in English, 413 in Japanese. 580
// since issue 57 holds the timelines and the shown commands to 80
// columns too (a long entry wraps in its column, a long command goes on
// as bash's line continuations): 525 lines in English, 559 in Japanese.
//
// In English and in Japanese (CNPA_LANG=ja, issue 41), every prose line, ✓
// row and listing's mark is at most 80 display columns, measured with a
// learner's paths (a command, a listing's own lines and a word no wrap
// may break run longer: makeLabProblems), and the Japanese has no line in
// English but commands, values and kubectl's own output.
func TestMakeLabLines(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"en", "ja"} {
		t.Run(lang, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
			defer cancel()
			start := time.Now()
			checkOut := filepath.Join(t.TempDir(), "check.txt")
			cmd := exec.CommandContext(ctx, "go", "run", "./test/labrun", "-cnpa", cnpaBin, "-check-out", checkOut)
			cmd.Dir = moduleRoot(t)
			cmd.Env = append(os.Environ(), "CNPA_LANG="+lang)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("labrun: %v\n%s", err, out)
			}
			// Newcomer review row 19: the command was shown as Go prints a slice,
			// `$ cnpa [step all --engine go …]`; it is a line to paste.
			if strings.Contains(string(out), "$ cnpa [") || !strings.Contains(string(out), "\n$ cnpa step all --engine go --service-manager process --unit-dir ") {
				t.Errorf("make lab does not show `$ cnpa step all --engine go --service-manager process --unit-dir …` as a command line:\n%s", out)
			}
			if n := strings.Count(string(out), "\n"); n > 580 {
				t.Errorf("make lab printed %d lines, want at most 580:\n%s", n, out)
			} else {
				t.Logf("make lab printed %d lines in %s", n, time.Since(start).Round(time.Second))
			}
			if problems := makeLabProblems(string(out), lang == "ja"); len(problems) > 0 {
				t.Errorf("make lab with CNPA_LANG=%s: %d lines break the rules:\n%s\n\nall of it:\n%s", lang, len(problems), strings.Join(problems, "\n"), out)
			}
			// cnpa check's whole output, which make lab summarises in one
			// line: every line of it within 80 columns too (issue 57).
			checked, err := os.ReadFile(checkOut)
			if err != nil {
				t.Fatal(err)
			}
			if problems := checkLineProblems(learnerPaths(string(checked))); len(problems) > 0 {
				t.Errorf("cnpa check with CNPA_LANG=%s: %d lines wider than 80 columns:\n%s\n\nall of it:\n%s", lang, len(problems), strings.Join(problems, "\n"), checked)
			}
			if broken := midWordBreaks(string(out) + string(checked)); len(broken) > 0 {
				t.Errorf("make lab with CNPA_LANG=%s breaks words mid-line:\n%s", lang, strings.Join(broken, "\n"))
			}
			if named := makeLabNamesLABmd(string(out)); len(named) > 0 {
				t.Errorf("make lab with CNPA_LANG=%s names LAB.md, a file the learner never has:\n%s", lang, strings.Join(named, "\n"))
			}
		})
	}
}

// moduleRoot is the cnpa module's root, where `make lab` runs.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(strings.TrimSpace(string(out)))
}

// Package learners grades controllers the way a learner writes them: a
// corpus of reconcile.sh scripts (cases/<name>/, kubectl and jq only, each
// with a case.json saying what is expected) run with `cnpa step all
// --engine own` and graded with `cnpa check`, and the whole lab done by
// hand (byhand/lab.sh) with no cnpa step at all. Every case has a real
// control plane of its own, but for the mistakes that stop step all at
// step 3, before any loop runs, which take turns on one; a few control
// planes run at once.
package learners

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/course"
	"github.com/labhub/cnpa/internal/judge"
	labdata "github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// cnpaBin is the cnpa binary built once for the package.
var cnpaBin string

// slots bounds the control planes running at once: the machine has two
// cores, and each case is an etcd, an API server, a controller-manager
// and a learner's loop: a valid case alone keeps 0.6 of a core busy (71
// CPU s in 115 s). Two at a time, with make test's TEST_PARALLEL at 3:
// together they made make test cheaper and shorter than three with 4, as
// a busier machine lengthens every lab's waits, and so its CPU
// (docs/development.md); up to two more while the machine has CPU to
// spare (slotPool). CNPA_LEARNERS_PARALLEL changes the two,
// CNPA_LEARNERS_MAX the four.
var slots *slotPool

const (
	// stepTimeout is cnpa's --timeout for any one wait; checkTimeout the
	// same for cnpa check's live checks. Both are 60 s: a learner's loop
	// of kubectl calls, beside make test's other control planes, took
	// longer than 30 s to act on check's probes in a fresh-clone CI run.
	stepTimeout  = "60s"
	checkTimeout = "60s"
	// caseDeadline bounds a whole case, cluster start to check: a case
	// that hangs is killed and fails, it never holds up the package. 20
	// min, not 9: on a brand-new 2-core machine a valid case's step all
	// and each check took 3-3.5 min (52 s and 60 s on the machine before),
	// and five valid cases were killed in their last check at 9 min.
	caseDeadline = 20 * time.Minute
	// slotWait bounds a case's wait for a free slot: every other case
	// before it, two at a time, on the slowest machine seen.
	slotWait = 60 * time.Minute
)

func TestMain(m *testing.M) {
	flag.Parse()
	n, most := envInt("CNPA_LEARNERS_PARALLEL", 2), envInt("CNPA_LEARNERS_MAX", 4)
	slots = newSlotPool(n, most)
	// go test runs at most GOMAXPROCS parallel tests (2 here) unless told
	// otherwise; the cases mostly wait on their clusters, so let slots be
	// the limit unless -parallel was given.
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	// Every test at once, so that each waits in the pool, which gives the
	// slots by rank (caseRank): with -parallel at the slots plus two, go
	// test let in the first tests in its own order and the rest waited
	// outside, where no rank reached them (the class learners' cases
	// started last in a fresh-clone run, and TestClass with them). A
	// waiting test costs nothing; the copier and TestClass wait for other
	// cases outside the pool too.
	if !explicit {
		flag.Set("test.parallel", "100")
	}
	kit.RunWithCnpa(m, &cnpaBin)
}

// envInt is the positive integer in the environment variable name, or def.
func envInt(name string, def int) int {
	if p, err := strconv.Atoi(os.Getenv(name)); err == nil && p > 0 {
		return p
	}
	return def
}

// learnerCase is a case.json: what cnpa must make of the script beside it.
type learnerCase struct {
	// Valid: the script meets LAB.md; step all and check both exit 0.
	Valid bool `json:"valid"`
	// Step is where LAB.md's property breaks: the failing step, or the
	// earliest step of a failing check id; no failure belongs to an
	// earlier step.
	Step int `json:"step"`
	// CaughtBy is "step" (cnpa step all exits 1), "check" (step all exits
	// 0 and only check fails) or empty (either).
	CaughtBy string `json:"caught_by"`
	// Says lists phrases of the diagnosis; the output of whatever failed
	// must contain one of them (case-insensitive).
	Says []string `json:"says"`
	// About says what the script does, for people.
	About string `json:"about"`
	// ServiceIdentity is a mistake's --service-identity; empty is own
	// (given as the flag). A valid case may say "default": no flag, so
	// cnpa's default for a learner's own controller (admin, as LAB.md's
	// service runs); for a controller the own identity cannot serve. admin where the own identity's admission policy
	// refuses the mistake's writes, so that the case still tests what the
	// grader sees, not what the policy prevents. A valid case names none:
	// it runs under own, then admin where AdminToo says.
	ServiceIdentity string `json:"service_identity"`
	// Notes are check ids that must carry a note under every identity the
	// case runs with: what the script does that LAB.md does not ask about.
	Notes []string `json:"notes"`
	// AdminToo (a valid case): after its lab under own, step 4 switches
	// the service to admin and the lab is checked again (switchToAdmin).
	// Set where the identity changes what the script does (a foreign
	// namespace adopted under admin, refused under own); a script that
	// passed under own, the narrower identity, and never meets the
	// policy, passes under admin the same way. A plain valid script's
	// whole lab under admin, cnpa's default for a learner's own
	// controller, is TestLearnerWritesEveryFile's.
	AdminToo bool `json:"admin_too"`
	// Ja (a mistake): what its diagnosis says with --lang ja, held in the
	// case's own lab (saysInJapanese).
	Ja *inJapanese `json:"ja"`
	// Fails (a mistake): checks the case's `cnpa check` must fail, each
	// with the mistake's diagnosis and phrases of what it found and of
	// its hint; for the probes of a running controller that the steps
	// never reach (the drift probe of an edge-triggered loop, after step
	// 5 failed).
	Fails []failedCheck `json:"fails"`
}

// failedCheck is one of case.json's "fails".
type failedCheck struct {
	// ID is the check's id; Diagnosis the start of its mistake's name.
	ID        string `json:"id"`
	Diagnosis string `json:"diagnosis"`
	// Actual and Hint are phrases of what it found and of its hint.
	Actual string `json:"actual"`
	Hint   string `json:"hint"`
}

// identities are the --service-identity values a case's lab runs with. A
// valid controller must pass under both: its lab runs under own, the
// narrower, and, where case.json says admin_too, then switches to admin
// (runCase), as docs/identity.md lets a learner do, and is checked again.
// A second lab from step 1 under
// admin would cost as much again (a control plane, step all's 45 s of the
// learner's loop) to show steps 5-7 with more rights than own's, which a
// valid script does not use.
func (c learnerCase) identities() []string {
	switch {
	case c.Valid && c.ServiceIdentity == "default":
		return []string{"default"}
	case c.Valid:
		return []string{"own"}
	case c.ServiceIdentity != "":
		return []string{c.ServiceIdentity}
	}
	return []string{"own"}
}

func loadCase(t *testing.T, dir string) learnerCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "case.json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c learnerCase
	if err := dec.Decode(&c); err != nil {
		t.Fatalf("%s/case.json: %v", dir, err)
	}
	switch {
	case c.Valid && (c.Step != 0 || len(c.Says) > 0 || c.CaughtBy != "" || (c.ServiceIdentity != "" && c.ServiceIdentity != "default")):
		t.Fatalf("%s/case.json: a valid case has no step, says or caught_by, and service_identity only \"default\" (else it runs under own, and admin_too adds admin)", dir)
	case c.Ja != nil && (c.Valid || len(c.Ja.Advice) == 0 || (c.CaughtBy == "step") != (c.Ja.Failed != "")):
		t.Fatalf("%s/case.json: ja is for a mistake: its advice, and a failure line and command where a step catches it (caught_by step), none where only check does", dir)
	case !c.Valid && c.AdminToo:
		t.Fatalf("%s/case.json: admin_too is for a valid case (a mistake names its one service_identity)", dir)
	case !c.Valid && (!validStep(c.Step) || len(c.Says) == 0):
		t.Fatalf("%s/case.json: a mistake needs a step (%s) and at least one phrase in says", dir, course.Steps.Lab().Range(".."))
	case c.CaughtBy != "" && c.CaughtBy != "step" && c.CaughtBy != "check":
		t.Fatalf("%s/case.json: caught_by is step, check or empty, not %q", dir, c.CaughtBy)
	case c.Valid && len(c.Fails) > 0:
		t.Fatalf("%s/case.json: fails is for a mistake: a valid case fails no check", dir)
	}
	for _, f := range c.Fails {
		if f.ID == "" || f.Diagnosis == "" || f.Actual == "" || f.Hint == "" {
			t.Fatalf("%s/case.json: each of fails names its id, diagnosis, actual and hint: %+v", dir, f)
		}
	}
	return c
}

func validStep(n int) bool {
	_, err := course.Steps.Lab().Get(n)
	return err == nil
}

// TestCorpus runs every case under cases/.
func TestCorpus(t *testing.T) {
	t.Parallel()
	// After every case (a parent's cleanups run once its subtests end).
	t.Cleanup(room.submissionsEnded)
	entries, err := os.ReadDir("cases")
	if err != nil {
		t.Fatal(err)
	}
	valid, nMistakes := 0, 0
	ranks[earlyGroup] = rankShort
	var early []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join("cases", e.Name())
		c := loadCase(t, dir)
		if c.Valid {
			valid++
		} else {
			nMistakes++
		}
		ranks[e.Name()] = c.rank()
		// A class learner keeps a cluster of its own: `cnpa class grade`
		// flags two submissions of one cluster.
		if _, class := classLearners[e.Name()+"/own"]; c.beforeLoop() && !class {
			early = append(early, e.Name())
			continue
		}
		for _, identity := range c.identities() {
			t.Run(e.Name()+"/"+identity, func(t *testing.T) {
				t.Parallel()
				runCase(t, newLab(t), dir, c, identity)
			})
		}
	}
	// The other mistakes that stop step all before step 4 starts a loop
	// take turns on one control plane, `cnpa reset --yes` between them: a
	// TestCorpus/step3/<case>/own each.
	if len(early) > 0 {
		t.Run(earlyGroup, func(t *testing.T) {
			t.Parallel()
			runEarly(t, early)
		})
	}
	// The class test's learner who runs cnpa's own Go engine.
	t.Run(goEngineCase, func(t *testing.T) {
		t.Parallel()
		runGoEngine(t)
	})
	// The corpus itself is part of the contract of issues 14 and 22.
	if valid < 7 || nMistakes < 8 {
		t.Errorf("corpus: got %d valid and %d mistakes, want at least 7 and 8", valid, nMistakes)
	}
}

// earlyGroup is the subtest of the cases that share a control plane.
const earlyGroup = "step3"

// beforeLoop: cnpa step all stops this mistake at step 3, before step 4
// starts the service's loop, so nothing of the case runs on after its
// commands, and `cnpa reset --yes` leaves the cluster as new for the next.
func (c learnerCase) beforeLoop() bool {
	return !c.Valid && c.Step == 3 && c.CaughtBy == "step" && slices.Equal(c.identities(), []string{"own"})
}

// runEarly runs the cases named, one after the other, on one control
// plane (a slot's), each with evidence and unit dirs of its own and its
// own deadline, and `cnpa reset --yes` after each.
func runEarly(t *testing.T, names []string) {
	shared := newLab(t)
	for _, name := range names {
		dir := filepath.Join("cases", name)
		c := loadCase(t, dir)
		base := t.TempDir()
		caseDir, unitDir := filepath.Join(base, "cnpa-op"), filepath.Join(base, "systemd")
		passed := t.Run(name+"/own", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), caseDeadline)
			t.Cleanup(cancel)
			l := &lab{kit.NewLab(ctx, t, shared.Cluster, cnpaBin)}
			l.Env, l.Dir, l.UnitDir = shared.Env, caseDir, unitDir
			runCase(t, l, dir, c, "own")
		})
		// The group's, after the case's own cleanups (its loop, if one
		// ran, is stopped), on the case's evidence dir.
		after := *shared.Lab
		after.Dir, after.UnitDir = caseDir, unitDir
		if r := after.Reset(); r.Code != 0 {
			t.Fatalf("cnpa reset --yes after %s (passed: %t): the next case needs a clean cluster\n%s", name, passed, r)
		}
		// Reset removes what is the lab's; a namespace the mistake made
		// without an owner (no-owner-reference) is not, and stays. The
		// next case's step 1 wants no team-alpha: delete what is left of
		// the lab's namespaces, and wait until they are gone.
		removeTeamNamespaces(t, shared)
	}
}

// removeTeamNamespaces deletes every namespace team-* on l's cluster and
// waits until they are gone.
func removeTeamNamespaces(t *testing.T, l *lab) {
	t.Helper()
	out := l.Run(nil, l.Cluster.Kubectl(), "--kubeconfig", l.Cluster.Kubeconfig, "get", "namespaces", "-o", "name")
	if out.Code != 0 {
		t.Fatalf("list namespaces: %s", out)
	}
	var names []string
	for _, n := range strings.Fields(out.Stdout) {
		if strings.HasPrefix(n, "namespace/team-") {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return
	}
	args := append([]string{"--kubeconfig", l.Cluster.Kubeconfig, "delete", "--wait=true", "--timeout=2m"}, names...)
	if r := l.Run(nil, l.Cluster.Kubectl(), args...); r.Code != 0 {
		t.Fatalf("delete the namespaces reset left: %s", r)
	}
}

// The ranks of the labs waiting for a slot (slotPool), lowest first:
// longest first, so that the package does not end on a long lab alone
// (a make test of c160047 started edge-triggered, its longest case, at
// 1,104 s of its 1,349), once the class learners' cases are under way.
const (
	// rankClass: the class learners' cases; TestClass waits for them.
	rankClass = iota
	// rankLong: a case that makes cnpa wait out a timeout, or runs a
	// second part (learnerCase.long): 200-220 s in a make test.
	rankLong
	// rankPlain: the other cases, and the other tests' labs: 100-150 s.
	rankPlain
	// rankShort: the step-3 group, three labs that end at step 3 in
	// turn: about 70 s.
	rankShort
)

// ranks are the corpus's cases' ranks, by name (caseRank), and the step-3
// group's. Written by TestCorpus before its parallel subtests go on.
var ranks = map[string]int{}

// rank is the case's rank among the labs waiting for a slot (caseRank).
func (c learnerCase) rank() int {
	if c.long() {
		return rankLong
	}
	return rankPlain
}

// long: the case makes cnpa wait out a timeout, a mistake that a step
// from 4 on catches (the step waits its --timeout for what never comes,
// and then check's probe its own) or that only check catches, or it is
// a valid case checked again under admin (admin_too: step 4 and a whole
// check more).
func (c learnerCase) long() bool {
	return c.AdminToo || !c.Valid && (c.CaughtBy == "check" || c.Step >= 4)
}

// caseRank is the rank of the test t waiting for a slot: rankClass for a
// class learner's case, the corpus's for its cases, rankPlain for the
// other tests' labs.
func caseRank(t *testing.T) int {
	if _, _, ok := learnerOf(t); ok {
		return rankClass
	}
	name, inCorpus := strings.CutPrefix(t.Name(), "TestCorpus/")
	if name, _, _ = strings.Cut(name, "/"); inCorpus {
		if r, ok := ranks[name]; ok {
			return r
		}
	}
	return rankPlain
}

// lab is one case's world: a control plane, an evidence dir, a unit dir,
// and cnpa run on them (kit.Lab).
type lab struct {
	*kit.Lab
}

// newLab waits for a slot, then starts a control plane for the test. The
// slot is given back after the cluster has stopped.
func newLab(t *testing.T) *lab {
	t.Helper()
	if name, _, ok := learnerOf(t); ok {
		// A class learner's case, however it ends, counts towards
		// TestClass's start (the first cleanup runs last, after the
		// case's submit and its cluster's hold or stop).
		t.Cleanup(room.classCaseEnded)
		// copied's case, however it ends, lets the copier go on.
		if name == copied {
			t.Cleanup(room.copiedEnded)
		}
	}
	room.awaitCopied(t)
	// go test lets more cases run than there are slots (TestMain), so a
	// case waits here; its deadline starts once it has a slot, so that
	// the queue does not eat it.
	if err := slots.acquire(caseRank(t), slotWait); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(slots.release)
	ctx, cancel := context.WithTimeout(context.Background(), caseDeadline)
	t.Cleanup(cancel)
	start := time.Now()
	cl, err := cluster.Start(ctx, cluster.Options{})
	if err != nil {
		t.Fatalf("start control plane: %v", err)
	}
	t.Logf("control plane up in %s", time.Since(start).Round(time.Millisecond))
	l := &lab{kit.NewLab(ctx, t, cl, cnpaBin)}
	// Everything a case runs sees the cluster's KUBECONFIG and kubectl,
	// and no CNPA_* variable of the caller's.
	for _, kv := range cl.Env() {
		if !strings.HasPrefix(kv, "CNPA_") {
			l.Env = append(l.Env, kv)
		}
	}
	// A lab the class test grades live outlives its case (room.hold).
	if !room.hold(t, l) {
		t.Cleanup(cl.Stop)
	}
	return l
}

// check runs `cnpa check -o json` as the case's learner would and parses
// its report.
func (l *lab) check() (kit.Result, *judge.Report) {
	l.T.Helper()
	var rep judge.Report
	r := l.Check(&rep, "--timeout", checkTimeout, "--service-manager", "process", "--unit-dir", l.UnitDir)
	return r, &rep
}

// runCase copies the case's reconcile.sh into l's fresh evidence dir, runs
// the lab with the own engine on l's cluster, checks it, and holds the
// outcome to case.json.
func runCase(t *testing.T, l *lab, dir string, c learnerCase, identity string) {
	if err := os.MkdirAll(l.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(filepath.Join(dir, "reconcile.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(l.Dir, "reconcile.sh"), script, 0o755); err != nil {
		t.Fatal(err)
	}
	// Before the cluster stops (cleanups run last-in first-out), stop the
	// loop; with a context of its own, since the case's may be over.
	t.Cleanup(func() { l.StopService() })

	// --quiet: the diagnosis must be found in what the step says about
	// the mistake, not in the commands it shows or the learner's script
	// it quotes (which may name the very thing that is wrong).
	args := []string{"step", "all", "--engine", "own", "--service-manager", "process", "--unit-dir", l.UnitDir, "--timeout", stepTimeout, "--quiet"}
	if identity != "default" {
		// The flag given where the case depends on it: the default for a
		// learner's own controller is admin, as the lab's service runs.
		args = append(args, "--service-identity", identity)
	}
	steps := l.Cnpa(args...)
	if steps.Code == 2 {
		t.Fatalf("cnpa step all --engine own: usage or environment error\n%s", steps)
	}
	if steps.Code != 0 && steps.Code != 1 {
		t.Fatalf("cnpa step all: unexpected exit code\n%s", steps)
	}
	l.nothingOfCnpasLeft(labdata.ProbePrefix, labdata.TempPrefix)
	if c.Ja != nil {
		l.saysInJapanese(c)
	}
	chk, rep := room.check(t, l, filepath.Base(dir)+"/"+identity)
	if *update {
		golden(t, l, filepath.Base(dir))
	}
	failed := failedChecks(rep)
	for _, id := range c.Notes {
		if ch := findCheck(rep, id); ch == nil || ch.Note == "" {
			t.Errorf("check %s: want a note (what the script does that LAB.md does not ask about), got %+v", id, ch)
		} else {
			t.Logf("%s: %s; note: %s", id, ch.Status, ch.Note)
		}
	}
	for _, ch := range rep.Checks {
		if ch.Status == judge.Note && !slices.Contains(c.Notes, ch.ID) {
			t.Errorf("check %s is a note that case.json does not name: %s; %s", ch.ID, ch.Actual, ch.Note)
		}
	}

	if c.Valid {
		if steps.Code != 0 {
			t.Errorf("valid controller: cnpa step all exit %d, want 0\n%s\nservice log:\n%s", steps.Code, steps, l.ServiceLog(30))
		}
		if chk.Code != 0 || !rep.OK() {
			t.Errorf("valid controller: cnpa check exit %d, failed %v, want exit 0 and none failed\n%s", chk.Code, failedSummary(rep), steps.Stdout)
		}
		if identity == "default" {
			if st, err := labenv.LoadState(l.Dir); err != nil || st.Identity() != "admin" {
				t.Errorf("a learner's own controller with no --service-identity: the lab's state says identity %q (%v), want admin, as the lab's service runs", st.Identity(), err)
			}
			return
		}
		if steps.Code == 0 && c.AdminToo {
			l.switchToAdmin(c)
		}
		return
	}

	switch {
	case c.CaughtBy == "step" && steps.Code != 1:
		t.Errorf("cnpa step all exit %d, want 1 (the mistake breaks step %d)\n%s", steps.Code, c.Step, steps)
	case c.CaughtBy == "check" && steps.Code != 0:
		t.Errorf("cnpa step all exit %d, want 0 (only check can see this mistake)\n%s", steps.Code, steps)
	}
	if steps.Code == 1 {
		if got := failingStep(steps); got != c.Step {
			t.Errorf("cnpa step all failed at step %d, want step %d\n%s", got, c.Step, steps)
		}
		if line, ok := says(l.stepDiagnosis(steps, c.Step), c.Says); ok {
			t.Logf("cnpa step all says: %s", line)
		} else {
			t.Errorf("cnpa step all's output names none of %q\n%s", c.Says, steps)
		}
	}
	if chk.Code != 1 {
		t.Errorf("cnpa check exit %d, want 1 (%d passed, failed %v)\n%s", chk.Code, rep.Passed, failedSummary(rep), chk.Stderr)
	}
	for _, f := range c.Fails {
		switch ch := findCheck(rep, f.ID); {
		case ch == nil:
			t.Errorf("cnpa check reports no %s (failed %v)", f.ID, failedSummary(rep))
		case ch.Status != judge.Fail:
			t.Errorf("%s: %s (%s), want a failure", f.ID, ch.Status, ch.Actual)
		case !strings.HasPrefix(ch.Diagnosis.Name, f.Diagnosis):
			t.Errorf("%s diagnosis %q, want %q", f.ID, ch.Diagnosis.Name, f.Diagnosis)
		case !strings.Contains(ch.Actual, f.Actual):
			t.Errorf("%s found %q, want it to say %q", f.ID, ch.Actual, f.Actual)
		case !strings.Contains(ch.Hint, f.Hint):
			t.Errorf("%s hint %q, want it to say %q", f.ID, ch.Hint, f.Hint)
		default:
			t.Logf("%s: %s; %s", f.ID, ch.Actual, ch.Hint)
		}
	}
	if len(failed) == 0 {
		t.Errorf("cnpa check: no failed check, want one of step %d", c.Step)
		return
	}
	if first := failed[0].Step; first != c.Step {
		t.Errorf("cnpa check: the earliest failed check is of step %d (%v), want step %d", first, failedSummary(rep), c.Step)
	}
	if steps.Code == 0 {
		// Only check saw it: its failed checks must name the mistake.
		var text strings.Builder
		for _, f := range failed {
			fmt.Fprintf(&text, "%s: %s; %s\n", f.ID, f.Actual, f.Hint)
		}
		if line, ok := says(l.withoutPaths(text.String()), c.Says); ok {
			t.Logf("cnpa check says: %s", line)
		} else {
			t.Errorf("cnpa check's failed checks name none of %q:\n%s", c.Says, text.String())
		}
	}
	t.Logf("caught: step all exit %d, failed checks %v", steps.Code, failedSummary(rep))
}

// switchToAdmin runs step 4 again with --service-identity admin, which
// rewrites the unit and restarts the service on root and the admin
// kubeconfig, and holds the valid controller to a passing check under it,
// with the same notes.
func (l *lab) switchToAdmin(c learnerCase) {
	l.T.Helper()
	step4 := l.Cnpa("step", "4", "--engine", "own", "--service-manager", "process", "--unit-dir", l.UnitDir,
		"--timeout", stepTimeout, "--quiet", "--service-identity", "admin")
	if step4.Code != 0 {
		l.T.Errorf("valid controller: cnpa step 4 --service-identity admin exit %d, want 0\n%s\nservice log:\n%s", step4.Code, step4, l.ServiceLog(30))
		return
	}
	if st, err := labenv.LoadState(l.Dir); err != nil || st.Identity() != "admin" {
		l.T.Errorf("after step 4 --service-identity admin the lab's state says identity %q (%v), want admin", st.Identity(), err)
	}
	chk, rep := l.check()
	if chk.Code != 0 || !rep.OK() {
		l.T.Errorf("valid controller under admin: cnpa check exit %d, failed %v, want exit 0 and none failed\n%s", chk.Code, failedSummary(rep), chk.Stderr)
	}
	for _, ch := range rep.Checks {
		if ch.Status == judge.Note && !slices.Contains(c.Notes, ch.ID) {
			l.T.Errorf("under admin: check %s is a note that case.json does not name: %s; %s", ch.ID, ch.Actual, ch.Note)
		}
	}
	for _, id := range c.Notes {
		if ch := findCheck(rep, id); ch == nil || ch.Note == "" {
			l.T.Errorf("under admin: check %s: want a note, got %+v", id, ch)
		}
	}
}

// stepHeader is the heading `cnpa step` prints before each step.
var (
	stepHeader = regexp.MustCompile(`(?m)^Step (\d) —`)
	stepFailed = regexp.MustCompile(`(?m)^step (\d) failed`)
)

// failingStep is the step at which `cnpa step all` stopped: the one its
// error line names, else the last one it began.
func failingStep(r kit.Result) int {
	if m := stepFailed.FindStringSubmatch(r.Stderr); m != nil {
		n, _ := strconv.Atoi(m[1])
		return n
	}
	m := stepHeader.FindAllStringSubmatch(r.Stdout, -1)
	if len(m) == 0 {
		return 0
	}
	n, _ := strconv.Atoi(m[len(m)-1][1])
	return n
}

// stepDiagnosis is what `cnpa step all` said about the failing step n:
// its section of stdout without the step's teaching text (which names
// every mistake of the step whether made or not), and stderr; the
// case's own paths, whose temp dirs hold the test's name, read <dir>.
func (l *lab) stepDiagnosis(r kit.Result, n int) string {
	section := r.Stdout
	if m := stepHeader.FindAllStringIndex(r.Stdout, -1); len(m) > 0 {
		section = r.Stdout[m[len(m)-1][0]:]
	}
	if s, err := course.Steps.Lab().Get(n); err == nil {
		for _, line := range strings.Split(s.Teaching(), "\n") {
			if line = strings.TrimSpace(line); line != "" {
				section = strings.ReplaceAll(section, line, "")
			}
		}
	}
	return l.withoutPaths(section + "\n" + r.Stderr)
}

// withoutPaths replaces the case's evidence and unit dirs with <dir>.
func (l *lab) withoutPaths(s string) string {
	return strings.NewReplacer(l.Dir, "<dir>", l.UnitDir, "<unit-dir>").Replace(s)
}

// findCheck is the check with that id, or nil.
func findCheck(rep *judge.Report, id string) *judge.Check {
	for i := range rep.Checks {
		if rep.Checks[i].ID == id {
			return &rep.Checks[i]
		}
	}
	return nil
}

// failedChecks are the failed checks, earliest step first.
func failedChecks(rep *judge.Report) []judge.Check {
	var out []judge.Check
	for _, c := range rep.Checks {
		if c.Status == judge.Fail {
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Step < out[j].Step })
	return out
}

func failedSummary(rep *judge.Report) []string {
	var out []string
	for _, c := range failedChecks(rep) {
		out = append(out, fmt.Sprintf("%s (%s; expected %s)", c.ID, c.Actual, c.Expected))
	}
	return out
}

// says returns the first line of out holding one of the phrases, ignoring
// case, and whether there is one.
func says(out string, phrases []string) (string, bool) {
	for _, line := range strings.Split(out, "\n") {
		lower := strings.ToLower(line)
		for _, p := range phrases {
			if strings.Contains(lower, strings.ToLower(p)) {
				return strings.TrimSpace(line), true
			}
		}
	}
	return "", false
}

// update: each case also submits its lab (cnpa submit) into
// golden/testdata/<case>.json, where test/learners/golden judges it again
// in milliseconds.
var update = flag.Bool("update", false, "write each case's submission to golden/testdata/<case>.json")

// golden writes the case's submission for test/learners/golden.
func golden(t *testing.T, l *lab, name string) {
	t.Helper()
	out, err := filepath.Abs(filepath.Join("golden", "testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	r := l.Cnpa("-o", "json", "submit", "--learner", name, "--out", out, "--timeout", checkTimeout,
		"--service-manager", "process", "--unit-dir", l.UnitDir)
	if _, err := os.Stat(out); r.Code == 2 || err != nil {
		t.Errorf("cnpa submit for the golden file: %v\n%s", err, r)
	}
}

// killGroup ends the process group whose leader's pid is in pidFile: the
// by-hand loop, started with setsid by byhand/lab.sh.
func killGroup(t *testing.T, pidFile string) {
	data, err := os.ReadFile(pidFile)
	if err != nil {
		return // never started, or already stopped
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 1 {
		t.Logf("%s: no pid in %q", pidFile, data)
		return
	}
	if err := syscall.Kill(-pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		t.Logf("stop the by-hand loop (pgid %d): %v", pid, err)
	}
}

// nothingOfCnpasLeft holds the cluster, right after a step, to having no
// TeamSpace, namespace or quota of cnpa's temporary objects named with one
// of prefixes (cnpa-probe-*, cnpa-check-*), marked for deletion or not: a step
// deletes its probes and waits until they are gone (issue 39).
func (l *lab) nothingOfCnpasLeft(prefixes ...string) {
	l.T.Helper()
	r := l.Run(nil, l.Cluster.Kubectl(), "--kubeconfig", l.Cluster.Kubeconfig, "get", "teamspaces,namespaces", "-o", "name")
	q := l.Run(nil, l.Cluster.Kubectl(), "--kubeconfig", l.Cluster.Kubeconfig, "get", "resourcequotas", "-A", "-o",
		`jsonpath={range .items[*]}resourcequota/{.metadata.namespace}/{.metadata.name}{"\n"}{end}`)
	if r.Code != 0 || q.Code != 0 {
		l.T.Errorf("list what is left: %s\n%s", r, q)
		return
	}
	for _, line := range strings.Split(r.Stdout+q.Stdout, "\n") {
		for _, prefix := range prefixes {
			if strings.Contains(line, "/"+prefix) || strings.Contains(line, "/team-"+prefix) {
				l.T.Errorf("left behind after the steps: %s (a step must delete its probes and wait until they are gone)", line)
			}
		}
	}
}

package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/course"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/ui"
)

// call is one judgement asked of the fake judge.
type call struct {
	step int
	ask  asked
}

// asked is what an Ask asked for, comparable.
type asked struct{ Script, Live bool }

// fakeJudge answers each judgement from answer and reports every call.
type fakeJudge struct {
	mu     sync.Mutex
	answer func(step int, ask Ask) (*judge.Report, error)
	calls  chan call
}

func (f *fakeJudge) judge(_ context.Context, step int, ask Ask) (*judge.Report, error) {
	f.mu.Lock()
	a := f.answer
	f.mu.Unlock()
	f.calls <- call{step, asked{ask.Script, ask.Live}}
	return a(step, ask)
}

func (f *fakeJudge) set(a func(int, Ask) (*judge.Report, error)) {
	f.mu.Lock()
	f.answer = a
	f.mu.Unlock()
}

// next is the next judgement asked; the deadline only guards against a
// hang.
func (f *fakeJudge) next(t *testing.T) call {
	t.Helper()
	select {
	case c := <-f.calls:
		return c
	case <-time.After(10 * time.Second):
		t.Fatal("nothing judged")
		return call{}
	}
}

// until reads calls until want comes, failing on one that asks for the
// script when script is false.
func (f *fakeJudge) until(t *testing.T, want call, script bool) {
	t.Helper()
	for {
		c := f.next(t)
		if c.ask.Script && !script {
			t.Fatalf("judged %+v: the script ran where it must not", c)
		}
		if c == want {
			return
		}
	}
}

// none says no judgement is asked for d.
func (f *fakeJudge) none(t *testing.T, d time.Duration, why string) {
	t.Helper()
	select {
	case c := <-f.calls:
		t.Fatalf("judged %+v: %s", c, why)
	case <-time.After(d):
	}
}

// noScript says no judgement runs the script for d.
func (f *fakeJudge) noScript(t *testing.T, d time.Duration, why string) {
	t.Helper()
	end := time.After(d)
	for {
		select {
		case c := <-f.calls:
			if c.ask.Script {
				t.Fatalf("judged %+v: %s", c, why)
			}
		case <-end:
			return
		}
	}
}

// waitFor polls cond; the deadline only guards against a hang.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(end) {
			t.Fatal("condition never held")
		}
	}
}

// theProbes are the fake lab's probes: step 3's script probe, steps 4
// and 5's controller probes.
var theProbes = Probes{Script: map[string]int{"script": 3}, Live: map[string]int{"live4": 4, "live5": 5}}

// fakeLab answers as the fake lab: every step's rule (ca) passes; the script
// probe (step 3) says script; the controller's probes pass.
func fakeLab(script judge.Status) func(int, Ask) (*judge.Report, error) {
	return func(step int, ask Ask) (*judge.Report, error) {
		rep := &judge.Report{}
		for n := 1; n <= 8; n++ {
			if step == 0 || step == n {
				rep.Checks = append(rep.Checks, judge.Check{ID: "ca", Step: n, Status: judge.Pass, Title: "rule"})
			}
		}
		if ask.Script {
			rep.Checks = append(rep.Checks, judge.Check{ID: "script", Step: 3, Status: script, Title: "reruns write nothing"})
		}
		if ask.Live {
			rep.Checks = append(rep.Checks, judge.Check{ID: fmt.Sprintf("live%d", step), Step: step, Status: judge.Pass, Title: "serves"})
		}
		return rep, nil
	}
}

// watching is a Run on dir in JSON with the fake judge, its sources and
// outputs.
type watching struct {
	f         *fakeJudge
	keys      chan rune
	files     chan []Change
	changed   chan struct{}
	down      chan error
	out, errw syncBuf
	done      chan error
	held      func() string
	mu        sync.Mutex
	// shift moves the loop's clock on (liveAgain passed at once).
	shift atomic.Int64
}

func startWatch(t *testing.T, dir string, answer func(int, Ask) (*judge.Report, error)) *watching {
	t.Helper()
	return startWatchUnit(t, dir, "", answer)
}

// startWatchUnit is startWatch with the unit at unitPath.
func startWatchUnit(t *testing.T, dir, unitPath string, answer func(int, Ask) (*judge.Report, error)) *watching {
	t.Helper()
	w := &watching{f: &fakeJudge{answer: answer, calls: make(chan call, 64)}, keys: make(chan rune), files: make(chan []Change),
		changed: make(chan struct{}, 1), down: make(chan error), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		<-w.done
	})
	go func() {
		w.done <- Run(ctx, Options{Steps: course.Steps.Lab(), Dir: dir, View: &View{P: ui.New(nil, true)}, Format: JSON,
			Out: &w.out, Err: &w.errw, Judge: w.f.judge, Probes: theProbes, Keys: w.keys, Files: w.files, Changed: w.changed,
			Down: w.down, Retry: time.Millisecond, Poll: 5 * time.Millisecond, UnitPath: unitPath,
			Now: func() time.Time { return time.Now().Add(time.Duration(w.shift.Load())) },
			Held: func(context.Context) string {
				w.mu.Lock()
				defer w.mu.Unlock()
				if w.held == nil {
					return ""
				}
				return w.held()
			}})
	}()
	return w
}

// verdicts are the JSON lines so far, as id@step=status.
func (w *watching) verdicts(t *testing.T) []string {
	t.Helper()
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(w.out.String()), "\n") {
		if line == "" {
			continue
		}
		var v Verdict
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got = append(got, fmt.Sprintf("%s@%d=%s", v.ID, v.Step, v.Status))
	}
	return got
}

func (w *watching) has(t *testing.T, v string) func() bool {
	return func() bool { return slices.Contains(w.verdicts(t), v) }
}

// Watch resumes where the learner was, looks at every step at once, then
// runs the current step's probes: the script's (asked: watch started on
// it), then the controller's. A save of the script runs it again; a
// change of the cluster never does; the cluster gone is said, asked
// again, and carried on; n judges the next step with its probes.
func TestRunJudgesFromWhereTheLearnerIs(t *testing.T) {
	defer i18n.Set(i18n.Current())
	i18n.Set(i18n.English)
	dir := t.TempDir()
	if err := SavePosition(dir, 4); err != nil {
		t.Fatal(err)
	}
	w := startWatch(t, dir, fakeLab(judge.Pass))
	// The look and the probes start side by side.
	if a, b := w.f.next(t), w.f.next(t); !(a == call{0, asked{}} && b == call{4, asked{Live: true}}) && !(b == call{0, asked{}} && a == call{4, asked{Live: true}}) {
		t.Fatalf("first judgements %+v %+v, want the look at every step and step 4's controller probes", a, b)
	}
	waitFor(t, w.has(t, "live4@4=pass"))
	// A change of the cluster: a look, and the current step's live probes
	// (not within liveAgain of the last); never the script.
	w.changed <- struct{}{}
	w.f.until(t, call{0, asked{}}, false)
	w.f.none(t, 300*time.Millisecond, "within liveAgain of the last live judgement")
	// The script saved: the current step's controller probes first (the
	// script's are step 3's), then the script's, then the controller's of
	// the other steps from 3 on; the look beside them.
	w.files <- []Change{{Path: filepath.Join(dir, "reconcile.sh"), Step: 3}}
	var probes []call
	for len(probes) < 3 {
		if c := w.f.next(t); c != (call{0, asked{}}) {
			probes = append(probes, c)
		}
	}
	if want := []call{{4, asked{Live: true}}, {0, asked{Script: true}}, {5, asked{Live: true}}}; !slices.Equal(probes, want) {
		t.Errorf("probes after the save %+v, want %+v", probes, want)
	}
	waitFor(t, w.has(t, "script@3=pass"))
	// The cluster goes away: said, asked again, and carried on.
	var calls atomic.Int32
	w.f.set(func(step int, ask Ask) (*judge.Report, error) {
		if calls.Add(1) == 1 {
			return nil, &check.UnreachableError{Err: errors.New("connection refused")}
		}
		return fakeLab(judge.Pass)(step, ask)
	})
	w.files <- []Change{{Path: filepath.Join(dir, "crd.yaml"), Step: 1}}
	waitFor(t, func() bool { return strings.Contains(w.errw.String(), "the cluster answers again") })
	w.keys <- 'n'
	w.f.until(t, call{5, asked{Live: true}}, false)
	waitFor(t, func() bool { return LoadPosition(course.Steps.Lab(), dir) == 5 })
	w.keys <- 'q'
	if err := <-w.done; err != nil {
		t.Fatal(err)
	}
	w.done <- nil
	notes := w.errw.String()
	for _, want := range []string{"going on at step 4", "the cluster cannot be reached (connection refused); asking again", "the cluster answers again"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notices lack %q:\n%s", want, notes)
		}
	}
}

// The blocker of issue 57: while a `cnpa step` runs (its mark under
// .cnpa), watch judges nothing, a saved script included; when it ends,
// everything is judged, the script's probes as the save asked. While the
// lab has the service stopped (Held), a saved script is said and not run.
func TestRunWaitsForARunningStep(t *testing.T) {
	defer i18n.Set(i18n.Current())
	i18n.Set(i18n.English)
	dir := t.TempDir()
	if err := SavePosition(dir, 3); err != nil {
		t.Fatal(err)
	}
	w := startWatch(t, dir, fakeLab(judge.Pass))
	w.f.until(t, call{0, asked{Script: true}}, true)
	waitFor(t, w.has(t, "script@3=pass"))
	if err := labenv.MarkRunning(dir, 7); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // the mark seen (Poll is 5 ms)
	for len(w.f.calls) > 0 {
		<-w.f.calls // what ran before the mark was seen
	}
	w.changed <- struct{}{}
	w.files <- []Change{{Path: filepath.Join(dir, "reconcile.sh"), Step: 3}}
	w.keys <- 'c'
	w.f.none(t, 500*time.Millisecond, "a `cnpa step` runs")
	labenv.UnmarkRunning(dir)
	w.f.until(t, call{0, asked{Script: true}}, true)

	// The service stopped by the lab: the saved script is not run, and
	// that is said.
	w.mu.Lock()
	w.held = func() string { return "reconcile.sh not run: cnpa-op is stopped" }
	w.mu.Unlock()
	w.files <- []Change{{Path: filepath.Join(dir, "reconcile.sh"), Step: 3}}
	waitFor(t, func() bool { return strings.Contains(w.errw.String(), "reconcile.sh not run: cnpa-op is stopped") })
	w.f.noScript(t, 300*time.Millisecond, "the service is stopped")
}

// A script verdict that fails is judged again until two agree: the first
// rerun after a fix cleans up what the previous version wrote (a write),
// the next writes nothing. What is shown is the agreed verdict.
func TestRunJudgesAFailedScriptAgain(t *testing.T) {
	defer i18n.Set(i18n.Current())
	i18n.Set(i18n.English)
	dir := t.TempDir()
	if err := SavePosition(dir, 3); err != nil {
		t.Fatal(err)
	}
	var runs atomic.Int32
	w := startWatch(t, dir, func(step int, ask Ask) (*judge.Report, error) {
		status := judge.Pass
		if ask.Script {
			if runs.Add(1) == 1 {
				status = judge.Fail // the fix's first rerun removes the old label
			}
		}
		return fakeLab(status)(step, ask)
	})
	waitFor(t, w.has(t, "script@3=pass"))
	if slices.Contains(w.verdicts(t), "script@3=fail") {
		t.Errorf("verdicts %v: the transitional fail was shown", w.verdicts(t))
	}
	if n := runs.Load(); n != 3 {
		t.Errorf("the script's probes ran %d times, want 3 (fail, pass, pass)", n)
	}
}

// A controller's verdict is shown as soon as it is in (Ask.Judged),
// while its probes' temporary TeamSpaces are still being removed, and
// once: the plan goes on when the removal is done.
func TestRunShowsALiveVerdictBeforeTheCleanup(t *testing.T) {
	defer i18n.Set(i18n.Current())
	i18n.Set(i18n.English)
	dir := t.TempDir()
	if err := SavePosition(dir, 5); err != nil {
		t.Fatal(err)
	}
	removed := make(chan struct{})
	var done atomic.Bool
	w := startWatch(t, dir, func(step int, ask Ask) (*judge.Report, error) {
		rep, err := fakeLab(judge.Pass)(step, ask)
		if ask.Live && ask.Judged != nil {
			ask.Judged(rep)
			<-removed // the temporaries being removed
			done.Store(true)
		}
		return rep, err
	})
	waitFor(t, w.has(t, "live5@5=pass"))
	if done.Load() {
		t.Fatal("the verdict was shown only after the cleanup")
	}
	close(removed)
	waitFor(t, done.Load)
	w.keys <- 'q'
	if err := <-w.done; err != nil {
		t.Fatal(err)
	}
	w.done <- nil
	n := 0
	for _, v := range w.verdicts(t) {
		if v == "live5@5=pass" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("step 5's verdict shown %d times, want once: %v", n, w.verdicts(t))
	}
}

// A unit saved by the learner is said to need a restart, with the
// command whole; one written by a running `cnpa step` (step 4 installs
// and starts it) is not: that step started the service with it.
func TestRunSaysARestartOnlyForTheLearnersUnit(t *testing.T) {
	defer i18n.Set(i18n.Current())
	i18n.Set(i18n.English)
	dir := t.TempDir()
	if err := SavePosition(dir, 4); err != nil {
		t.Fatal(err)
	}
	w := startWatchUnit(t, dir, filepath.Join(dir, "cnpa-op.service"), fakeLab(judge.Pass))
	unit := []Change{{Path: filepath.Join(dir, "cnpa-op.service"), Step: 4}}
	restart := "restart the service to use it"
	if err := labenv.MarkRunning(dir, 4); err != nil {
		t.Fatal(err)
	}
	w.files <- unit
	w.files <- []Change{{Path: filepath.Join(dir, "crd.yaml"), Step: 1}} // after the unit's notices, if any
	waitFor(t, func() bool { return strings.Contains(w.errw.String(), "crd.yaml changed") })
	if strings.Contains(w.errw.String(), restart) {
		t.Errorf("a unit written by a running cnpa step is said to need a restart:\n%s", w.errw.String())
	}
	labenv.UnmarkRunning(dir)
	for len(w.f.calls) > 0 {
		<-w.f.calls
	}
	// A look comes once the loop knows no step runs (a save is looked
	// at at once then, or with everything when the step's end is seen).
	w.files <- []Change{{Path: filepath.Join(dir, "crd.yaml"), Step: 1}}
	w.f.until(t, call{0, asked{}}, false)
	w.files <- unit
	waitFor(t, func() bool { return strings.Contains(w.errw.String(), restart) })
	if !strings.Contains(w.errw.String(), "`cnpa service restart`") && !strings.Contains(w.errw.String(), "`systemctl daemon-reload && systemctl restart cnpa-op`") {
		t.Errorf("the restart command is not one code span:\n%s", w.errw.String())
	}
}

// A controller's probes take seconds, a saved file is looked at in a
// fraction of one: a judgement with probes that began before the file
// was saved, and ends after the look at it, gives its probes' verdicts
// and never its older look at the file (found in Japanese beside step 5:
// drift.json judged present, then 'drift.json: does not exist' again).
func TestRunKeepsTheNewerLookAtTheFiles(t *testing.T) {
	defer i18n.Set(i18n.Current())
	i18n.Set(i18n.English)
	dir := t.TempDir()
	if err := SavePosition(dir, 5); err != nil {
		t.Fatal(err)
	}
	var saved atomic.Bool
	var lives atomic.Int32
	release := make(chan struct{})
	w := startWatch(t, dir, func(step int, ask Ask) (*judge.Report, error) {
		file := judge.Fail
		if saved.Load() {
			file = judge.Pass
		}
		rep := &judge.Report{Checks: []judge.Check{{ID: "step5.file", Step: 5, Status: file, Title: "drift.json"}}}
		if ask.Live {
			if lives.Add(1) > 1 {
				<-release // the controller's probes, taking their time
			}
			rep.Checks = append(rep.Checks, judge.Check{ID: "live5", Step: 5, Status: judge.Pass, Title: "serves"})
		}
		return rep, nil
	})
	waitFor(t, w.has(t, "live5@5=pass"))
	// The learner edits the quota (a change of the cluster): the probes
	// run again, liveAgain after the last; then drift.json is saved.
	w.shift.Store(int64(2 * liveAgain))
	w.changed <- struct{}{}
	waitFor(t, func() bool { return lives.Load() == 2 })
	saved.Store(true)
	w.files <- []Change{{Path: filepath.Join(dir, "drift.json"), Step: 5}}
	waitFor(t, w.has(t, "step5.file@5=pass"))
	close(release)
	waitFor(t, func() bool { return strings.Count(strings.Join(w.verdicts(t), " "), "live5@5=pass") >= 2 })
	w.keys <- 'q'
	if err := <-w.done; err != nil {
		t.Fatal(err)
	}
	w.done <- nil
	vs := w.verdicts(t)
	last := ""
	for _, v := range vs {
		if strings.HasPrefix(v, "step5.file@5=") {
			last = v
		}
	}
	if last != "step5.file@5=pass" {
		t.Errorf("drift.json's last verdict %q, want pass (the newer look): %v", last, vs)
	}
}

// q right after a controller's verdict: watch ends once the judgement's
// temporary TeamSpaces are removed (check.Run does on every path), and
// says why it waits; before, the process went and left them behind.
func TestRunEndsAfterTheProbesCleanup(t *testing.T) {
	defer i18n.Set(i18n.Current())
	i18n.Set(i18n.English)
	dir := t.TempDir()
	if err := SavePosition(dir, 5); err != nil {
		t.Fatal(err)
	}
	removed := make(chan struct{})
	var gone atomic.Bool
	w := startWatch(t, dir, func(step int, ask Ask) (*judge.Report, error) {
		rep, err := fakeLab(judge.Pass)(step, ask)
		if ask.Live && ask.Judged != nil {
			ask.Judged(rep)
			<-removed // the removal goes on, cancelled or not
			gone.Store(true)
		}
		return rep, err
	})
	waitFor(t, w.has(t, "live5@5=pass"))
	w.keys <- 'q'
	select {
	case err := <-w.done:
		w.done <- err
		close(removed)
		t.Fatalf("watch ended (%v) with the probes' TeamSpaces still being removed", err)
	case <-time.After(100 * time.Millisecond):
	}
	close(removed)
	if err := <-w.done; err != nil {
		t.Fatal(err)
	}
	w.done <- nil
	if !gone.Load() {
		t.Error("watch ended before the removal did")
	}
	if !strings.Contains(w.errw.String(), "removing the TeamSpaces cnpa made to judge") {
		t.Errorf("watch did not say why it waits:\n%s", w.errw.String())
	}
}

// A reset under watch (its position gone): the learner starts over where
// the evidence says, and the old marks go.
func TestRunStartsOverAfterAReset(t *testing.T) {
	defer i18n.Set(i18n.Current())
	i18n.Set(i18n.English)
	dir := t.TempDir()
	if err := SavePosition(dir, 8); err != nil {
		t.Fatal(err)
	}
	w := startWatch(t, dir, fakeLab(judge.Pass))
	w.f.until(t, call{0, asked{}}, false)
	if err := os.RemoveAll(filepath.Join(dir, ".cnpa")); err != nil {
		t.Fatal(err)
	}
	w.f.until(t, call{0, asked{}}, false)
	w.keys <- 'n' // from where it started over
	waitFor(t, func() bool { return LoadPosition(course.Steps.Lab(), dir) == 2 })
}

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestClassify(t *testing.T) {
	defer i18n.Set(i18n.Current())
	i18n.Set(i18n.English)
	dir := t.TempDir()
	write := func(name, data string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	whole := write("drift.json", `{"deleted_uid": "a"}`, 0o644)
	half := write("catchup.json", `{"generation": 3, "obs`, 0o644)
	empty := write("report.json", ``, 0o644)
	script := write("reconcile.sh", "#!/bin/bash\n", 0o755)
	for _, c := range []struct {
		path       string
		problem    string
		incomplete bool
	}{
		{whole, "", false},
		{half, "catchup.json is incomplete (saved mid-write?): waiting for the next save", true},
		{empty, "report.json is incomplete (saved mid-write?): waiting for the next save", true},
		{script, "", false},
		{filepath.Join(dir, "cleanup.json"), "cleanup.json was removed", false},
	} {
		got := Classify(c.path, 5)
		if got.Problem != c.problem || got.Incomplete != c.incomplete {
			t.Errorf("%s: %+v, want problem %q incomplete %v", filepath.Base(c.path), got, c.problem, c.incomplete)
		}
	}
	if os.Geteuid() != 0 { // root reads a file whatever its mode
		locked := write("before.json", `{}`, 0o000)
		if got := Classify(locked, 1); !strings.HasPrefix(got.Problem, "cannot read before.json") || got.Incomplete {
			t.Errorf("unreadable: %+v", got)
		}
	}
}

func TestDebounceGathersABurst(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := make(chan string)
	out := debounce(ctx, in, 50*time.Millisecond)
	// A burst sent faster than the quiet time, as an editor saves: the
	// values, once each, in one batch. in is unbuffered, so each send has
	// been taken before the next, and closing in flushes what is pending
	// without waiting for the timer.
	for _, s := range []string{"a.sh", "a.sh", "b.json", "a.sh"} {
		in <- s
	}
	close(in)
	var batches [][]string
	for b := range out {
		batches = append(batches, b)
	}
	if len(batches) != 1 || strings.Join(batches[0], ",") != "a.sh,b.json" {
		t.Errorf("batches %q, want one: a.sh,b.json", batches)
	}
}

func TestDebounceSeparatesQuietBursts(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	in := make(chan string)
	out := debounce(ctx, in, time.Millisecond)
	in <- "a"
	if b := <-out; strings.Join(b, ",") != "a" {
		t.Errorf("first batch %q", b)
	}
	in <- "a"
	if b := <-out; strings.Join(b, ",") != "a" {
		t.Errorf("second batch %q: a file saved again is judged again", b)
	}
}

func TestFilesSeesARenameOnSave(t *testing.T) {
	defer i18n.Set(i18n.Current())
	i18n.Set(i18n.English)
	dir, units := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	script := filepath.Join(dir, "reconcile.sh")
	if err := os.WriteFile(script, []byte("old"), 0o755); err != nil {
		t.Fatal(err)
	}
	changes, err := Files(ctx, LearnerFiles(course.Steps.Lab(), dir, filepath.Join(units, "cnpa-op.service")), time.Millisecond, func(s string) { t.Error(s) })
	if err != nil {
		t.Fatal(err)
	}
	// An editor's save: a swap file (ignored), written, renamed over.
	tmp := filepath.Join(dir, ".reconcile.sh.swp")
	if err := os.WriteFile(tmp, []byte("new"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, script); err != nil {
		t.Fatal(err)
	}
	select {
	case cs := <-changes:
		if len(cs) != 1 || cs[0].Path != script || cs[0].Step != 3 || cs[0].Problem != "" {
			t.Errorf("changes %+v, want reconcile.sh, step 3", cs)
		}
	case <-time.After(10 * time.Second): // a hang guard, not a timing target
		t.Fatal("no change seen")
	}
	if err := os.Remove(script); err != nil {
		t.Fatal(err)
	}
	select {
	case cs := <-changes:
		if len(cs) != 1 || cs[0].Problem != "reconcile.sh was removed" {
			t.Errorf("changes %+v, want reconcile.sh removed", cs)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no removal seen")
	}
	if got, err := os.ReadDir(dir); err != nil || len(got) != 0 {
		t.Errorf("watch left %v in the dir (%v): it never writes the learner's files", got, err)
	}
}

func TestPosition(t *testing.T) {
	dir := t.TempDir()
	if got := LoadPosition(course.Steps.Lab(), dir); got != 0 {
		t.Errorf("no position: %d, want 0", got)
	}
	if got := FirstUndone(course.Steps.Lab(), dir); got != 1 {
		t.Errorf("empty dir: first undone %d, want 1", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "before.json"), []byte(`{"uid":"u","namespace_exists":false}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := FirstUndone(course.Steps.Lab(), dir); got != 2 {
		t.Errorf("before.json written: first undone %d, want 2", got)
	}
	for _, f := range []string{"generation.json", "reconcile.json"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(`{}`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if got := FirstUndone(course.Steps.Lab(), dir); got != 4 {
		t.Errorf("steps 1-3 written: first undone %d, want 4 (it writes no file)", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "drift.json"), []byte(`{}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := FirstUndone(course.Steps.Lab(), dir); got != 6 {
		t.Errorf("drift.json written: first undone %d, want 6 (step 4 is done once 5 is)", got)
	}
	if err := os.MkdirAll(filepath.Join(dir, ".cnpa"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(PositionPath(dir), []byte(`{"step": 12}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := LoadPosition(course.Steps.Lab(), dir); got != 0 {
		t.Errorf("no step 12: %d, want 0", got)
	}
	if err := SavePosition(dir, 6); err != nil {
		t.Fatal(err)
	}
	if got := LoadPosition(course.Steps.Lab(), dir); got != 6 {
		t.Errorf("saved 6, loaded %d", got)
	}
}

package watch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/course"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/ui"
)

// fakeJudge answers each step from answer and reports every call.
type fakeJudge struct {
	mu     sync.Mutex
	answer func(step int) (*judge.Report, error)
	calls  chan int
}

func (f *fakeJudge) judge(_ context.Context, step int) (*judge.Report, error) {
	f.mu.Lock()
	a := f.answer
	f.mu.Unlock()
	f.calls <- step
	return a(step)
}

func (f *fakeJudge) set(a func(int) (*judge.Report, error)) {
	f.mu.Lock()
	f.answer = a
	f.mu.Unlock()
}

// next is the next step judged; the deadline only guards against a hang.
func (f *fakeJudge) next(t *testing.T) int {
	t.Helper()
	select {
	case s := <-f.calls:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("no step judged")
		return 0
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

func TestRunJudgesFromWhereTheLearnerIs(t *testing.T) {
	defer i18n.Set(i18n.Current())
	i18n.Set(i18n.English)
	dir := t.TempDir()
	if err := SavePosition(dir, 3); err != nil {
		t.Fatal(err)
	}
	fails := func(step int) (*judge.Report, error) { return report(step, judge.Pass, judge.Fail), nil }
	passes := func(step int) (*judge.Report, error) { return report(step, judge.Pass), nil }
	f := &fakeJudge{answer: fails, calls: make(chan int, 16)}
	keys, files := make(chan rune), make(chan []Change)
	down := make(chan error)
	var out, errw syncBuf
	done := make(chan error)
	go func() {
		done <- Run(context.Background(), Options{Steps: course.Steps.Lab(), Dir: dir, View: &View{P: ui.New(nil, true)}, Format: JSON,
			Out: &out, Err: &errw, Judge: f.judge, Keys: keys, Files: files, Down: down, Retry: time.Millisecond})
	}()

	lines := func(n int) func() bool { return func() bool { return strings.Count(out.String(), "\n") == n } }
	// Resumed at step 3, which fails: nothing after it is judged. Each
	// phase waits for its verdicts: a save cancels a judgement still
	// running, as a learner's next save does.
	if s := f.next(t); s != 3 {
		t.Fatalf("first judged step %d, want 3 (the saved position)", s)
	}
	waitFor(t, lines(2))
	// A file cut short mid-write is said, not judged; the next save is.
	files <- []Change{{Path: filepath.Join(dir, "drift.json"), Step: 5, Incomplete: true, Problem: "drift.json is incomplete"}}
	f.set(func(step int) (*judge.Report, error) {
		if step >= 5 {
			return fails(step)
		}
		return passes(step)
	})
	files <- []Change{{Path: filepath.Join(dir, "reconcile.sh"), Step: 3}}
	// The fixed script: 3 passes, so 4.. follow until one fails.
	for _, want := range []int{3, 4, 5} {
		if s := f.next(t); s != want {
			t.Fatalf("judged step %d, want %d", s, want)
		}
	}
	waitFor(t, lines(6))
	// The cluster goes away: said, asked again, and carried on.
	calls := 0
	f.set(func(step int) (*judge.Report, error) {
		if calls++; calls == 1 {
			return nil, &check.UnreachableError{Err: errors.New("connection refused")}
		}
		return fails(step)
	})
	files <- []Change{{Path: filepath.Join(dir, "crd.yaml"), Step: 1}}
	for range 2 {
		if s := f.next(t); s != 1 {
			t.Fatalf("judged step %d, want 1 (crd.yaml's), then again", s)
		}
	}
	waitFor(t, lines(8))
	keys <- 'n'
	if s := f.next(t); s != 4 {
		t.Fatalf("n judged step %d, want 4", s)
	}
	waitFor(t, lines(10))
	keys <- 'q'
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := LoadPosition(course.Steps.Lab(), dir); got != 4 {
		t.Errorf("position kept %d, want 4", got)
	}
	notes := errw.String()
	for _, want := range []string{"going on at step 3", "drift.json is incomplete",
		"the cluster cannot be reached (connection refused); asking again", "the cluster answers again"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notices lack %q:\n%s", want, notes)
		}
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var v Verdict
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		got = append(got, v.ID+"@"+string(rune('0'+v.Step))+"="+string(v.Status))
	}
	want := "ca@3=pass cb@3=fail ca@3=pass ca@4=pass ca@5=pass cb@5=fail ca@1=pass cb@1=fail ca@4=pass cb@4=fail"
	if strings.Join(got, " ") != want {
		t.Errorf("verdicts\n got %s\nwant %s", strings.Join(got, " "), want)
	}
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

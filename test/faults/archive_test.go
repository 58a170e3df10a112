package faults

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/manifest"
	"github.com/labhub/cnpa/internal/ui"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// TestArchiveCrashSafety kills the controller with SIGKILL at the two
// moments of a finalization that matter (CNPA_FAULT, see
// internal/faultinject: the second one inside the real atomicfile.WriteFile)
// and restarts it without the hook: the record is never lost, never
// half-visible, and the TeamSpace goes.
func TestArchiveCrashSafety(t *testing.T) {
	t.Run("killed after the archive rename, before the finalizer goes", func(t *testing.T) {
		e := kit.New(t, cluster.Shared(t))
		dir := t.TempDir()
		const name = "arch-after"
		p := e.StartController("after-archive", kit.CtrlOpts{ArchiveDir: dir, Env: []string{"CNPA_FAULT=after-archive"}, Tags: []string{"faultinject"}})
		uid := e.Create(name, 6, "500m").GetUID()
		e.WaitFor(name+" converged", time.Minute, e.Converged(name, 6, "500m", true))

		e.Delete(name)
		st := p.WaitExit(time.Minute)
		if st == nil || !killedBySIGKILL(st) {
			t.Fatalf("controller with CNPA_FAULT=after-archive: got %v, want death by SIGKILL at the archive (is cnpa built with -tags faultinject?)\n%s", st, ui.Tail(p.Log(), 20))
		}
		first, raw := readRecord(t, dir, name)
		if want := (evidence.ArchiveRecord{Name: name, UID: string(uid), Pods: 6}); first != want {
			t.Fatalf("archive right after the crash: got %+v, want %+v", first, want)
		}
		ts, err := e.GetTeamSpace(name)
		if err != nil || ts.DeletionTimestamp == nil || len(ts.Finalizers) == 0 {
			t.Fatalf("after the crash: got %+v (err %v), want %s still there, being deleted, held by our finalizer", ts, err, name)
		}
		if files := listDir(t, dir); len(files) != 1 {
			t.Fatalf("archive dir after the crash: got %v, want only %s.json", files, name)
		}

		restarted := time.Now()
		e.StartController("restarted", kit.CtrlOpts{ArchiveDir: dir})
		e.WaitFor(name+" finalized by the restarted controller", time.Minute, e.Gone(name))
		again, rawAgain := readRecord(t, dir, name)
		if again != first {
			t.Errorf("archive after the restart: got %+v, want it unchanged %+v", again, first)
		}
		if files := listDir(t, dir); len(files) != 1 {
			t.Errorf("archive dir after the restart: got %v, want only %s.json", files, name)
		}
		t.Logf("crash left %s.json = %s with the TeamSpace still held; the restarted controller released it %s after its start; record byte-identical after the rewrite: %v",
			name, strings.TrimSpace(raw), time.Since(restarted).Round(time.Millisecond), raw == rawAgain)
	})

	t.Run("killed during the archive write", func(t *testing.T) {
		e := kit.New(t, cluster.Shared(t))
		dir := t.TempDir()
		const name = "arch-during"
		final := filepath.Join(dir, name+".json")
		// A reader looking all the time must never see a partial record
		// under the final name.
		w := watchFinal(t, final)

		p := e.StartController("during-write", kit.CtrlOpts{ArchiveDir: dir, Env: []string{"CNPA_FAULT=during-write"}, Tags: []string{"faultinject"}})
		uid := e.Create(name, 3, "250m").GetUID()
		e.WaitFor(name+" converged", time.Minute, e.Converged(name, 3, "250m", true))
		e.Delete(name)
		st := p.WaitExit(time.Minute)
		if st == nil || !killedBySIGKILL(st) {
			t.Fatalf("controller with CNPA_FAULT=during-write: got %v, want death by SIGKILL in the archive write (is cnpa built with -tags faultinject?)\n%s", st, ui.Tail(p.Log(), 20))
		}
		files := listDir(t, dir)
		if len(files) != 1 || !strings.HasPrefix(files[0], "."+name+".json.tmp-") {
			t.Fatalf("archive dir after the crash: got %v, want only a .%s.json.tmp-* temp", files, name)
		}
		partial, _ := os.ReadFile(filepath.Join(dir, files[0]))
		if json.Valid(partial) {
			t.Errorf("temp file %s: got a complete record %q, want the half the hook wrote", files[0], partial)
		}
		if ts, err := e.GetTeamSpace(name); err != nil || ts.DeletionTimestamp == nil || len(ts.Finalizers) == 0 {
			t.Fatalf("after the crash: got %+v (err %v), want %s still held by our finalizer", ts, err, name)
		}

		restarted := time.Now()
		e.StartController("restarted", kit.CtrlOpts{ArchiveDir: dir})
		e.WaitFor(name+" finalized by the restarted controller", time.Minute, e.Gone(name))
		rec, raw := readRecord(t, dir, name)
		if want := (evidence.ArchiveRecord{Name: name, UID: string(uid), Pods: 3}); rec != want {
			t.Errorf("archive after the restart: got %+v, want %+v", rec, want)
		}
		seen, bad := w.stop()
		if len(bad) > 0 {
			t.Errorf("a reader saw a partial record under %s: %q", final, bad)
		}
		after := listDir(t, dir)
		t.Logf("crash left only %s (%d of %d bytes); restart finalized in %s and wrote %s; a reader polling all along saw the final name %d times, never partial; files now %v",
			files[0], len(partial), len(raw), time.Since(restarted).Round(time.Millisecond), strings.TrimSpace(raw), seen, after)
	})
}

func readRecord(t *testing.T, dir, name string) (evidence.ArchiveRecord, string) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(dir, name+".json"))
	if err != nil {
		t.Fatalf("archive record: %v", err)
	}
	var rec evidence.ArchiveRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		t.Fatalf("archive record %q: %v", raw, err)
	}
	return rec, string(raw)
}

// listDir lists the records and anything stray in an archive dir, but not
// cnpa's own manifest directory (manifest.OwnDir), which notes the records
// the controller wrote so that `cnpa reset --purge` removes those alone.
func listDir(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.Name() == manifest.OwnDir {
			continue
		}
		names = append(names, e.Name())
	}
	sort.Strings(names)
	return names
}

// finalWatcher reads one path in a tight loop and remembers every time it
// existed without holding a complete record.
type finalWatcher struct {
	done chan struct{}
	wg   sync.WaitGroup
	seen int
	bad  []string
}

func watchFinal(t *testing.T, path string) *finalWatcher {
	w := &finalWatcher{done: make(chan struct{})}
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for {
			select {
			case <-w.done:
				return
			default:
			}
			data, err := os.ReadFile(path)
			if err == nil {
				w.seen++
				var rec evidence.ArchiveRecord
				if err := json.Unmarshal(data, &rec); err != nil || rec.Name == "" || rec.UID == "" || rec.Pods == 0 {
					w.bad = append(w.bad, fmt.Sprintf("%q", data))
				}
			}
			time.Sleep(time.Millisecond) // a sampling rate, not synchronisation
		}
	}()
	t.Cleanup(func() { w.stop() })
	return w
}

func (w *finalWatcher) stop() (int, []string) {
	select {
	case <-w.done:
	default:
		close(w.done)
	}
	w.wg.Wait()
	return w.seen, w.bad
}

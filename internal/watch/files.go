package watch

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
)

// Debounce is how long a burst of file events must be quiet before the
// files are judged: an editor's save is several events (a write, a
// rename, a chmod), and a script saved twice in a blink is judged once.
const Debounce = 200 * time.Millisecond

// Watched are the learner's files watch follows, by path: the evidence
// dir's (reconcile.sh, crd.yaml, alpha.yaml, the JSON evidence) and the
// unit. Each maps to the step it belongs to.
type Watched map[string]int

// LearnerFiles are the files of dir and the unit at unitPath, each with
// its step.
func LearnerFiles(steps lab.Table, dir, unitPath string) Watched {
	w := Watched{
		filepath.Join(dir, lab.CRDFile):    1,
		filepath.Join(dir, lab.AlphaFile):  1,
		filepath.Join(dir, lab.ScriptName): 3,
		unitPath:                           4,
	}
	for _, s := range steps {
		if s.File != "" {
			w[filepath.Join(dir, s.File)] = s.Number
		}
	}
	return w
}

// dirs are the directories that hold the files: watched, not the files,
// so that an editor's rename-on-save (a new inode) is seen.
func (w Watched) dirs() []string {
	seen := map[string]bool{}
	var out []string
	for p := range w {
		if d := filepath.Dir(p); !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// Change is one learner's file after a burst of events, as read once.
type Change struct {
	Path string
	Step int
	// Problem says what is wrong with the file as read ("" when it reads):
	// a notice for the learner, never a reason to stop.
	Problem string
	// Incomplete: the file is JSON cut short (saved mid-write); judging it
	// would fail what the next save fixes, so watch waits for that save.
	Incomplete bool
}

// Classify reads the file at path once and says what watch makes of it:
// a file that is not a regular one, or too large to be a lab's, is said
// (and judged, as check judges it). It never writes: the files are the
// learner's.
func Classify(path string, step int) Change {
	c := Change{Path: path, Step: step}
	name := filepath.Base(path)
	// Never blocking (a FIFO), nor reading a huge file whole.
	data, err := lab.ReadEvidence(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		c.Problem = i18n.T("watch.file.removed", i18n.Args{"File": name})
	case err != nil:
		c.Problem = i18n.T("watch.file.unreadable", i18n.Args{"File": name, "Err": err.Error()})
	case strings.HasSuffix(name, ".json") && !json.Valid(data):
		c.Incomplete = true
		c.Problem = i18n.T("watch.file.incomplete", i18n.Args{"File": name})
	}
	return c
}

// Files watches w's directories and sends, after each burst of events
// on w's files has been quiet for quiet, the files that changed, each
// read once (Classify). Events on other files (an editor's swap file)
// are ignored. Errors of the watcher itself go to problems. It ends with
// ctx.
func Files(ctx context.Context, w Watched, quiet time.Duration, problems func(string)) (<-chan []Change, error) {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, err
	}
	for _, d := range w.dirs() {
		if err := fw.Add(d); err != nil {
			// A unit dir that does not exist yet, say: the evidence
			// files are still watched; the learner is told.
			problems(i18n.T("watch.dir_unwatched", i18n.Args{"Dir": d, "Err": err.Error()}))
		}
	}
	names := make(chan string)
	go func() {
		defer fw.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case ev, ok := <-fw.Events:
				if !ok {
					return
				}
				if _, mine := w[ev.Name]; mine && ev.Op != fsnotify.Chmod {
					select {
					case names <- ev.Name:
					case <-ctx.Done():
						return
					}
				}
			case err, ok := <-fw.Errors:
				if !ok {
					return
				}
				problems(i18n.T("watch.watcher_error", i18n.Args{"Err": err.Error()}))
			}
		}
	}()
	out := make(chan []Change)
	go func() {
		for batch := range debounce(ctx, names, quiet) {
			var cs []Change
			for _, p := range batch {
				cs = append(cs, Classify(p, w[p]))
			}
			select {
			case out <- cs:
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// debounce gathers what arrives on in until nothing has for quiet, then
// sends it, each value once, in the order first seen. It closes its
// channel when ctx ends or in closes.
func debounce[T comparable](ctx context.Context, in <-chan T, quiet time.Duration) <-chan []T {
	out := make(chan []T)
	go func() {
		defer close(out)
		var batch []T
		seen := map[T]bool{}
		timer := time.NewTimer(quiet)
		timer.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case v, ok := <-in:
				if !ok {
					if len(batch) > 0 {
						select {
						case out <- batch:
						case <-ctx.Done():
						}
					}
					return
				}
				if !seen[v] {
					seen[v] = true
					batch = append(batch, v)
				}
				timer.Reset(quiet)
			case <-timer.C:
				select {
				case out <- batch:
				case <-ctx.Done():
					return
				}
				batch, seen = nil, map[T]bool{}
			}
		}
	}()
	return out
}

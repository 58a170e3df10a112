// Package timeline is the record of what happened after a learner's action
// in steps 4 to 7: who acted (you, the controller, the garbage collector),
// what they did, and when, relative to the action. The steps write one file
// per step under the evidence dir; `cnpa report --html` draws them.
//
// The files are cnpa's own, not evidence LAB.md asks for, so they live in
// the hidden directory <dir>/.cnpa/ that cnpa alone writes.
package timeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/labhub/cnpa/internal/atomicfile"
	"github.com/labhub/cnpa/internal/manifest"
)

// OwnDir is the directory under the evidence dir that holds the files cnpa
// writes for itself (timelines, the last check), never the learner's; its
// home is package manifest, whose manifest lives there too.
const OwnDir = manifest.OwnDir

// Who acted. Free text is allowed; these are the ones the steps use.
const (
	You              = "you"
	Controller       = "controller"
	GarbageCollector = "garbage collector"
	APIServer        = "kube-apiserver"
)

// Where an entry was seen.
const (
	FromWatch = "watch" // a watch event on the object
	FromEvent = "event" // a Kubernetes Event the controller recorded
	FromLog   = "log"   // a line of the controller's own output (shell, own)
	FromRead  = "read"  // a read-back by cnpa
)

// Entry is one thing that happened.
type Entry struct {
	// At is the time since the learner's action; negative for what came
	// before it.
	At     time.Duration `json:"at_ns"`
	Actor  string        `json:"actor"`
	What   string        `json:"what"`
	Source string        `json:"source"`
}

// Timeline is one step's record.
type Timeline struct {
	Step   int    `json:"step"`
	Title  string `json:"title"`
	Engine string `json:"engine,omitempty"`
	// Action is the learner's action the times are relative to, as the
	// command a learner would type.
	Action  string    `json:"action"`
	Start   time.Time `json:"start"`
	Entries []Entry   `json:"entries"`
}

// Add records an entry seen at wall-clock time t.
func (tl *Timeline) Add(t time.Time, actor, what, source string) {
	tl.Entries = append(tl.Entries, Entry{At: t.Sub(tl.Start), Actor: actor, What: what, Source: source})
}

// Sorted orders the entries by time, keeping the order of equal times.
func (tl *Timeline) Sorted() {
	sort.SliceStable(tl.Entries, func(i, j int) bool { return tl.Entries[i].At < tl.Entries[j].At })
}

// Path is where step's timeline is kept.
func Path(dir string, step int) string {
	return filepath.Join(dir, OwnDir, fmt.Sprintf("timeline-step%d.json", step))
}

// Save writes tl atomically to Path(dir, tl.Step).
func Save(dir string, tl *Timeline) error {
	tl.Sorted()
	data, err := json.MarshalIndent(tl, "", "  ")
	if err != nil {
		return err
	}
	p := Path(dir, tl.Step)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return atomicfile.WriteFile(p, append(data, '\n'), 0o644)
}

// Load reads step's timeline; (nil, nil) when the step has none yet.
func Load(dir string, step int) (*Timeline, error) {
	data, err := os.ReadFile(Path(dir, step))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var tl Timeline
	if err := json.Unmarshal(data, &tl); err != nil {
		return nil, fmt.Errorf("%s: %w (run the step again to rewrite it)", Path(dir, step), err)
	}
	return &tl, nil
}

// Package timeline is the record of what happened after a learner's action
// in steps 4 to 7: who acted (you, the controller, the garbage collector),
// what they did, and when, relative to the action. The steps write one file
// per step under the evidence dir; `cnpa report --html` draws them.
//
// The files are cnpa's own, not evidence LAB.md asks for, so they live in
// the hidden directory <dir>/.cnpa/ that cnpa alone writes.
//
// # The file format
//
// <dir>/.cnpa/timeline-step<N>.json, one per step (4, 5, 6, 7), rewritten
// each time the step runs; UTF-8 JSON, one object:
//
//	{
//	  "step": 5,                     // the lab step
//	  "title": "…",                  // the step's title
//	  "engine": "go",                // go, shell or own
//	  "action": "kubectl delete …",  // the action at +0, as a learner types it
//	  "start": "2026-…Z",            // wall-clock time of +0 (RFC 3339, ns)
//	  "entries": [                   // ordered by at_ns
//	    {
//	      "at_ns": 4000000,          // nanoseconds since start; < 0 before it
//	      "actor": "controller",     // who: see You, Controller, … below
//	      "what": "team-quota created (uid …, hard.pods=6)", // for people
//	      "source": "watch",         // how it was seen: watch, event, log, file, read
//	      "kind": "created",         // for programs: see the Kind constants (optional)
//	      "object": "resourcequota team-alpha/team-quota", // what it is about (optional)
//	      "values": {"uid": "…"},    // the facts behind what, as strings (optional)
//	      "said": [{"id": "timeline.what.quota_created", "args": {"Name": "team-quota", …}}]
//	                                 // what as catalog messages, or texts said as
//	                                 // they are ({"text": …}), for people in their
//	                                 // language (optional; what is their English)
//	    }
//	  ]
//	}
//
// Fields are only ever added, never renamed or retyped: a reader ignores
// keys it does not know. Times come from where each entry was seen: a
// watch event or an Event at the moment cnpa received it, a journal line at
// journald's timestamp, a process-mode log line or an archive file when
// cnpa read it (within a few milliseconds of the write).
package timeline

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"time"

	"github.com/labhub/cnpa/internal/atomicfile"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/manifest"
)

// Who acted. Free text is allowed; these are the ones the steps use.
const (
	You              = "you"
	Controller       = "controller"
	GarbageCollector = "garbage collector"
	APIServer        = "kube-apiserver"
	// NamespaceController empties a deleted namespace and removes it.
	NamespaceController = "namespace controller"
	// QuotaController writes a ResourceQuota's status (hard, used).
	QuotaController = "quota controller"
	// ServiceManager is systemd, or cnpa's process mode.
	ServiceManager = "service manager"
	// OtherWriter is whoever recorded an Event that is not the
	// controller's: another source, or about another object of that name.
	OtherWriter = "another writer"
)

// Where an entry was seen.
const (
	FromWatch = "watch" // a watch event on the object
	FromEvent = "event" // a Kubernetes Event the controller recorded
	FromLog   = "log"   // a line of the controller's own output (shell, own)
	FromRead  = "read"  // a read-back by cnpa, or the API's answer to an action
	FromFile  = "file"  // a file the controller wrote (the archive record)
)

// Kinds of entry, for programs that draw or test a timeline.
const (
	KindAction             = "action"              // the learner's action (actor You)
	KindCreated            = "created"             // an object appeared
	KindChanged            = "changed"             // an object's spec (or labels) changed
	KindStatus             = "status"              // an object's status changed
	KindGeneration         = "generation"          // metadata.generation moved (values: generation, observed)
	KindObservedGeneration = "observed-generation" // status.observedGeneration moved (values: generation, observed)
	KindDeletionTimestamp  = "deletion-timestamp"  // deletion requested; finalizers hold the object
	KindFinalizerAdded     = "finalizer-added"
	KindFinalizerRemoved   = "finalizer-removed"
	KindGone               = "gone"     // the object no longer exists
	KindArchived           = "archived" // the archive record was written
	KindEvent              = "event"    // a Kubernetes Event (values: reason)
	KindLog                = "log"      // a line of the controller's output
	KindService            = "service"  // the service started or stopped
	KindRead               = "read"     // a value cnpa read for the step
)

// Entry is one thing that happened.
type Entry struct {
	// At is the time since the learner's action; negative for what came
	// before it.
	At     time.Duration `json:"at_ns"`
	Actor  string        `json:"actor"`
	What   string        `json:"what"`
	Source string        `json:"source"`
	// Kind, Object and Values say the same as What, for programs.
	Kind   string            `json:"kind,omitempty"`
	Object string            `json:"object,omitempty"`
	Values map[string]string `json:"values,omitempty"`
	// Said is What as catalog messages, said in the reader's language
	// (Text); What is their English (Words).
	Said []Message `json:"said,omitempty"`
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

// Put records e, seen at wall-clock time t (e.At is set from t).
func (tl *Timeline) Put(t time.Time, e Entry) {
	e.At = t.Sub(tl.Start)
	tl.Entries = append(tl.Entries, e)
}

// Find returns the first entry of kind about object ("" matches any
// object), or nil.
func (tl *Timeline) Find(kind, object string) *Entry {
	for i := range tl.Entries {
		e := &tl.Entries[i]
		if e.Kind == kind && (object == "" || e.Object == object) {
			return e
		}
	}
	return nil
}

// Sorted orders the entries by time, keeping the order of equal times.
func (tl *Timeline) Sorted() {
	sort.SliceStable(tl.Entries, func(i, j int) bool { return tl.Entries[i].At < tl.Entries[j].At })
}

// Path is where step's timeline is kept.
func Path(dir string, step int) string {
	return filepath.Join(dir, manifest.OwnDir, fmt.Sprintf("timeline-step%d.json", step))
}

// Save writes tl atomically to Path(dir, tl.Step).
func Save(dir string, tl *Timeline) error {
	tl.Sorted()
	return atomicfile.WriteJSON(Path(dir, tl.Step), tl)
}

// Load reads step's timeline; (nil, nil) when the step has none yet.
func Load(dir string, step int) (*Timeline, error) {
	var tl Timeline
	found, err := atomicfile.ReadJSON(Path(dir, step), &tl)
	var bad *atomicfile.DecodeError
	switch {
	case errors.As(err, &bad):
		return nil, fmt.Errorf("%s: %w %s", bad.Path, bad.Err, i18n.T("timeline.rewrite"))
	case err != nil:
		return nil, err
	case !found:
		return nil, nil
	}
	return &tl, nil
}

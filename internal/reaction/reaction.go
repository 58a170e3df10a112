// Package reaction records the controller's reaction to a learner's
// action as a timeline (package timeline says what one holds): a step
// starts a Recorder with the watches it needs before it acts, marks what
// it does, and finishes it into a timeline saved beside the evidence.
//
// It reads the cluster, the service and the evidence dir through labenv
// and knows nothing of the steps that use it: the step's number and
// title, and which TeamSpaces it is about (a Match), are handed in.
package reaction

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/timeline"
)

// A Recorder records the controller's reaction to one action of the
// learner. Phases:
//
//  1. Start opens every watch (and follows the service's log) before the
//     action, so nothing that follows it can be missed;
//  2. the step marks its action (+0, Action) and any other of the
//     learner's acts (You); what the watches see is kept with the time it
//     was received;
//  3. Finish waits for stragglers, stops the watches, turns what was seen
//     into the timeline, saves it and returns it.
//
// Entries are interpreted as they arrive but dated and filtered at Finish:
// only then are the resourceVersions of the learner's own writes known
// (their echo on the watch is dropped: the action itself is the entry).
//
// Every method is safe on a nil *Recorder, so helpers shared with code
// that records nothing can call them unconditionally.
type Recorder struct {
	env    *labenv.Env
	tl     timeline.Timeline
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu   sync.Mutex
	seen []seenEntry
	last time.Time // when the last entry arrived, for finish's settling
	// echoes are keys of entries that only echo the learner's own write.
	echoes map[string]bool
	// answered dates entries with a key no later than the moment the step
	// knew the change had happened (sawNow), however late the recorder's
	// own watch event then reached cnpa.
	answered map[string]time.Time
	logLines int
}

type seenEntry struct {
	t   time.Time
	key string
	e   timeline.Entry
}

// A Watcher opens one source of entries; it returns once the source is open
// and feeds rx from goroutines counted in rx.wg.
type Watcher func(ctx context.Context, rx *Recorder) error

// Match tells whether a TeamSpace name is one the timeline is about.
type Match func(name string) bool

// Only matches the TeamSpaces named.
func Only(names ...string) Match { return func(n string) bool { return slices.Contains(names, n) } }

// Probes matches step 4's temporary TeamSpaces (lab.ProbePrefix).
func Probes(n string) bool { return strings.HasPrefix(n, lab.ProbePrefix) }

// Any matches every TeamSpace.
func Any(string) bool { return true }

// Timing constants of Finish: an entry is often still on its way when the
// step has seen what it waited for (the step and the recorder watch the
// same objects on separate connections; the controller's Event follows
// its write).
const (
	settleQuiet = 500 * time.Millisecond
	settleMax   = 3 * time.Second
	// maxLogLines bounds the lines of a learner's loop output in one
	// timeline: a loop that prints every pass would bury the rest.
	maxLogLines = 40
	// archivePoll is how often the archive record is looked for; its
	// entry is dated when it was seen, so this bounds how late. It must
	// stay well below the controller's next step, the API write that
	// releases the finalizer, for the timeline to show them in order; a
	// stat a millisecond costs nothing, and stops once the record is seen.
	archivePoll = time.Millisecond
)

// Start opens the watches for the timeline of step (number and title).
// The caller must call Finish (or Stop, when the step fails).
func Start(ctx context.Context, env *labenv.Env, step int, title string, watchers ...Watcher) (*Recorder, error) {
	ctx, cancel := context.WithCancel(ctx)
	rx := &Recorder{env: env, cancel: cancel, echoes: map[string]bool{}, answered: map[string]time.Time{},
		tl: timeline.Timeline{Step: step, Title: title, Engine: env.Engine}}
	for _, w := range watchers {
		if err := w(ctx, rx); err != nil {
			rx.Stop()
			return nil, fmt.Errorf("%s: %w", i18n.T("timeline.open_watches", i18n.Args{"N": step}), err)
		}
	}
	return rx, nil
}

// put keeps an entry seen at t; key names it for echoes and answers.
func (rx *Recorder) put(t time.Time, key string, e timeline.Entry) {
	if rx == nil {
		return
	}
	rx.mu.Lock()
	defer rx.mu.Unlock()
	rx.seen = append(rx.seen, seenEntry{t: t, key: key, e: e})
	rx.last = time.Now()
}

// Action marks +0: the learner's action, as the command they would type
// (cmd) and what it does (what, timeline.Say), about object. echoes are
// keys of what the watches will see of the action itself (DeletedKey,
// VersionKey).
func (rx *Recorder) Action(cmd string, what timeline.Message, object string, echoes ...string) {
	if rx == nil {
		return
	}
	now := time.Now()
	rx.mu.Lock()
	rx.tl.Start, rx.tl.Action = now, cmd
	for _, k := range echoes {
		rx.echoes[k] = true
	}
	rx.mu.Unlock()
	rx.put(now, "", timeline.Entry{Actor: timeline.You, Source: timeline.FromRead,
		Kind: timeline.KindAction, Object: object, Values: map[string]string{"command": cmd}}.Words(what))
}

// You records another act of the learner, at this moment.
func (rx *Recorder) You(cmd string, what timeline.Message, object string) {
	rx.put(time.Now(), "", timeline.Entry{Actor: timeline.You, Source: timeline.FromRead,
		Kind: timeline.KindAction, Object: object, Values: map[string]string{"command": cmd}}.Words(what))
}

// Echo says that the write which produced resourceVersion rv was the
// learner's (the action's own entry says so already).
func (rx *Recorder) Echo(rv string) {
	if rx == nil {
		return
	}
	rx.mu.Lock()
	defer rx.mu.Unlock()
	rx.echoes[VersionKey(rv)] = true
}

// SawNow notes that the change behind key had happened by now: the API
// server answered the request that made it, or the step's own watch saw
// it. The recorder's watch, on a connection of its own, may receive it a
// moment later; its entry is dated no later than this.
func (rx *Recorder) SawNow(key string) {
	if rx == nil {
		return
	}
	rx.mu.Lock()
	defer rx.mu.Unlock()
	rx.answered[key] = time.Now()
}

// Read records a fact cnpa read itself at this moment.
func (rx *Recorder) Read(actor, kind, object string, what timeline.Message) {
	rx.put(time.Now(), "", timeline.Entry{Actor: actor, Source: timeline.FromRead, Kind: kind, Object: object}.Words(what))
}

// ServiceUp records the service as its manager reports it now.
func (rx *Recorder) ServiceUp(ctx context.Context) {
	if rx == nil {
		return
	}
	st, err := rx.env.Service.Status(ctx)
	what := timeline.Say("timeline.what.service_active", "Unit", UnitName, "PID", fmt.Sprint(st.MainPID), "Manager", st.Manager)
	switch {
	case err != nil || !st.Active:
		what = timeline.Say("timeline.what.service_not_active", "Unit", UnitName, "Manager", st.Manager)
	case st.Restarting:
		what = timeline.Say("timeline.what.service_restarting", "Unit", UnitName, "Manager", st.Manager)
	}
	rx.Read(timeline.ServiceManager, timeline.KindService, "service "+UnitName, what)
}

// Stop ends every watch; safe to call more than once.
func (rx *Recorder) Stop() {
	if rx == nil {
		return
	}
	rx.cancel()
	rx.wg.Wait()
}

// Finish waits for entries still on their way (until none has come for
// settleQuiet, at most settleMax), stops the watches, builds the timeline,
// saves it under <dir>/.cnpa/ and returns it. The error says only that
// the timeline could not be saved: the timeline is returned all the same,
// and what to make of that is the caller's (for a step, a note: it is
// cnpa's picture of the step, not evidence). A nil Recorder returns nil.
func (rx *Recorder) Finish(ctx context.Context) (*timeline.Timeline, error) {
	if rx == nil {
		return nil, nil
	}
	began := time.Now()
	for time.Since(began) < settleMax {
		rx.mu.Lock()
		quiet := time.Since(rx.last) >= settleQuiet && time.Since(began) >= settleQuiet
		rx.mu.Unlock()
		if quiet || ctx.Err() != nil {
			break
		}
		select {
		case <-time.After(50 * time.Millisecond):
		case <-ctx.Done():
		}
	}
	rx.Stop()
	rx.mu.Lock()
	tl := rx.tl
	if tl.Start.IsZero() { // no action marked: the first entry is +0
		for _, s := range rx.seen {
			if tl.Start.IsZero() || s.t.Before(tl.Start) {
				tl.Start = s.t
			}
		}
	}
	for _, s := range rx.seen {
		if rx.echoes[s.key] {
			continue
		}
		t := s.t
		if a, ok := rx.answered[s.key]; ok && a.Before(t) {
			t = a
		}
		tl.Put(t, s.e)
	}
	rx.mu.Unlock()
	datedByEffect(&tl)
	tl.Sorted()
	return &tl, timeline.Save(rx.env.Dir, &tl)
}

// datedByEffect dates a TeamSpace's deletionTimestamp no later than the
// controller's first reaction to it (the archive record, the finalizer
// released), saying when it was seen. The controller can see a change
// before cnpa does: in the systemd suite the Go engine had written and
// synced beta's archive record 2 ms before cnpa's watch (and the answer to
// its own delete request) brought it the deletionTimestamp that caused it.
// Nothing else is moved: an archive record written after the finalizer
// went is a learner's mistake the timeline must show as it happened.
func datedByEffect(tl *timeline.Timeline) {
	for i := range tl.Entries {
		cause := &tl.Entries[i]
		if cause.Kind != timeline.KindDeletionTimestamp || !strings.HasPrefix(cause.Object, "teamspace ") {
			continue
		}
		seen := cause.At
		for _, e := range tl.Entries {
			if e.Object == cause.Object && (e.Kind == timeline.KindArchived || e.Kind == timeline.KindFinalizerRemoved) && e.At <= cause.At && e.At > 0 {
				cause.At = e.At - 1 // a nanosecond before: it sorts before what it caused
			}
		}
		if cause.At != seen {
			cause.AddWords(timeline.Say("timeline.what.seen_at", "At", timeline.FormatAt(seen)))
			if cause.Values == nil {
				cause.Values = map[string]string{}
			}
			cause.Values["seen_at_ns"] = fmt.Sprint(int64(seen))
		}
	}
}

// UnitName is the service as systemctl and journalctl take it, and as a
// timeline names it ("service cnpa-op").
var UnitName = strings.TrimSuffix(service.Name, ".service")

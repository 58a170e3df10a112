package steps

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/timeline"
)

// A reaction records the controller's reaction to a learner's action in
// steps 4 to 7, as package timeline describes it. Phases:
//
//  1. startReaction opens every watch (and follows the service's log)
//     before the action, so nothing that follows it can be missed;
//  2. the step marks its action (+0) and any other of the learner's acts;
//     what the watches see is kept with the time it was received;
//  3. finish waits for stragglers, stops the watches, turns what was seen
//     into the step's timeline, saves it and hands it to the result.
//
// Entries are interpreted as they arrive but dated and filtered at finish:
// only then are the resourceVersions of the learner's own writes known
// (their echo on the watch is dropped: the action itself is the entry).
//
// Every method is safe on a nil *reaction, so helpers shared with code
// that records nothing can call them unconditionally.
type reaction struct {
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

// watcher opens one source of entries; it returns once the source is open
// and feeds rx from goroutines counted in rx.wg.
type watcher func(ctx context.Context, rx *reaction) error

// match tells whether a TeamSpace name is one the timeline is about.
type match func(name string) bool

func only(names ...string) match { return func(n string) bool { return slices.Contains(names, n) } }

func probes(n string) bool { return strings.HasPrefix(n, ProbePrefix) }

// Timing constants of finish: an entry is often still on its way when the
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

// startReaction opens the watches for step s's timeline. The caller must
// call finish (or stop, when the step fails).
func startReaction(ctx context.Context, env *labenv.Env, s *Step, watchers ...watcher) (*reaction, error) {
	ctx, cancel := context.WithCancel(ctx)
	rx := &reaction{env: env, cancel: cancel, echoes: map[string]bool{}, answered: map[string]time.Time{},
		tl: timeline.Timeline{Step: s.Number, Title: s.Title, Engine: env.Engine}}
	for _, w := range watchers {
		if err := w(ctx, rx); err != nil {
			rx.stop()
			return nil, fmt.Errorf("open the watches for step %d's timeline: %w", s.Number, err)
		}
	}
	return rx, nil
}

// put keeps an entry seen at t; key names it for echoes and answers.
func (rx *reaction) put(t time.Time, key string, e timeline.Entry) {
	if rx == nil {
		return
	}
	rx.mu.Lock()
	defer rx.mu.Unlock()
	rx.seen = append(rx.seen, seenEntry{t: t, key: key, e: e})
	rx.last = time.Now()
}

// action marks +0: the learner's action, as the command they would type
// (cmd) and what it does (what), about object. echoes are keys of what
// the watches will see of the action itself (deletedKey, rvKey).
func (rx *reaction) action(cmd, what, object string, echoes ...string) {
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
	rx.put(now, "", timeline.Entry{Actor: timeline.You, What: what, Source: timeline.FromRead,
		Kind: timeline.KindAction, Object: object, Values: map[string]string{"command": cmd}})
}

// you records another act of the learner, at this moment.
func (rx *reaction) you(cmd, what, object string) {
	rx.put(time.Now(), "", timeline.Entry{Actor: timeline.You, What: what, Source: timeline.FromRead,
		Kind: timeline.KindAction, Object: object, Values: map[string]string{"command": cmd}})
}

// echo says that the write which produced resourceVersion rv was the
// learner's (the action's own entry says so already).
func (rx *reaction) echo(rv string) {
	if rx == nil {
		return
	}
	rx.mu.Lock()
	defer rx.mu.Unlock()
	rx.echoes[rvKey(rv)] = true
}

// sawNow notes that the change behind key had happened by now: the API
// server answered the request that made it, or the step's own watch saw
// it. The recorder's watch, on a connection of its own, may receive it a
// moment later; its entry is dated no later than this.
func (rx *reaction) sawNow(key string) {
	if rx == nil {
		return
	}
	rx.mu.Lock()
	defer rx.mu.Unlock()
	rx.answered[key] = time.Now()
}

// read records a fact cnpa read itself at this moment.
func (rx *reaction) read(actor, kind, object, what string) {
	rx.put(time.Now(), "", timeline.Entry{Actor: actor, What: what, Source: timeline.FromRead, Kind: kind, Object: object})
}

// serviceUp records the service as its manager reports it now.
func (rx *reaction) serviceUp(ctx context.Context) {
	if rx == nil {
		return
	}
	st, err := rx.env.Service.Status(ctx)
	what := fmt.Sprintf("%s active, main pid %d (%s)", unitName, st.MainPID, st.Manager)
	if err != nil || !st.Active {
		what = fmt.Sprintf("%s not active (%s)", unitName, st.Manager)
	}
	rx.read(timeline.ServiceManager, timeline.KindService, "service "+unitName, what)
}

// stop ends every watch; safe to call more than once.
func (rx *reaction) stop() {
	if rx == nil {
		return
	}
	rx.cancel()
	rx.wg.Wait()
}

// finish waits for entries still on their way (until none has come for
// settleQuiet, at most settleMax), stops the watches, builds the timeline,
// saves it under <dir>/.cnpa/ and puts it on r. A timeline that cannot be
// saved is a note, not a failed step: it is cnpa's picture of the step,
// not evidence.
func (rx *reaction) finish(ctx context.Context, r *Result) {
	if rx == nil {
		return
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
	rx.stop()
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
	r.Timeline = &tl
	if err := timeline.Save(rx.env.Dir, &tl); err != nil {
		r.note("timeline not saved: %v", err)
	}
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
			cause.What += fmt.Sprintf(" (seen at %s; what it caused came first)", timeline.FormatAt(seen))
			if cause.Values == nil {
				cause.Values = map[string]string{}
			}
			cause.Values["seen_at_ns"] = fmt.Sprint(int64(seen))
		}
	}
}

// followWatch lists (for the state before the action and the
// resourceVersion to watch from), then watches until ctx ends, reopening
// a watch the server closes from the last version seen. seed gets each
// listed object, on each change.
func (rx *reaction) followWatch(ctx context.Context, list func(context.Context) (string, []runtime.Object, error),
	open func(ctx context.Context, rv string) (watch.Interface, error),
	seed func(runtime.Object), on func(t time.Time, typ watch.EventType, obj runtime.Object)) error {
	rv, items, err := list(ctx)
	if err != nil {
		return err
	}
	for _, o := range items {
		seed(o)
	}
	w, err := open(ctx, rv)
	if err != nil {
		return err
	}
	rx.wg.Add(1)
	go func() {
		defer rx.wg.Done()
		for {
			for ev := range w.ResultChan() {
				t := time.Now()
				if ev.Type == watch.Error || ev.Type == watch.Bookmark {
					continue
				}
				if m, err := metaOf(ev.Object); err == nil {
					rv = m.GetResourceVersion()
				}
				on(t, ev.Type, ev.Object)
			}
			w.Stop()
			if ctx.Err() != nil {
				return
			}
			// The server ended the watch (its timeout): go on from where
			// it stopped. A version too old to resume from (410) ends the
			// timeline's view of this object; the step itself goes on.
			if w, err = open(ctx, rv); err != nil {
				return
			}
		}
	}()
	return nil
}

func metaOf(o runtime.Object) (metav1.Object, error) {
	if u, ok := o.(*unstructured.Unstructured); ok {
		return u, nil
	}
	if m, ok := o.(metav1.Object); ok {
		return m, nil
	}
	return nil, fmt.Errorf("%T has no metadata", o)
}

// watchTeamSpaces watches the TeamSpaces m matches: deletion requested,
// finalizers added and released, generation against observedGeneration.
func watchTeamSpaces(m match) watcher {
	return func(ctx context.Context, rx *reaction) error {
		res := rx.env.Clients.Dynamic.Resource(teamspace.GVR)
		prev := map[string]*teamspace.TeamSpace{}
		decode := func(o runtime.Object) *teamspace.TeamSpace {
			u, ok := o.(*unstructured.Unstructured)
			if !ok || !m(u.GetName()) {
				return nil
			}
			ts, err := teamspace.FromUnstructured(u)
			if err != nil {
				return nil // a spec cnpa cannot read is the step's to report
			}
			return ts
		}
		return rx.followWatch(ctx,
			func(ctx context.Context) (string, []runtime.Object, error) {
				l, err := res.List(ctx, metav1.ListOptions{})
				if err != nil {
					return "", nil, err
				}
				var items []runtime.Object
				for i := range l.Items {
					items = append(items, &l.Items[i])
				}
				return l.GetResourceVersion(), items, nil
			},
			func(ctx context.Context, rv string) (watch.Interface, error) {
				return res.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
			},
			func(o runtime.Object) {
				if ts := decode(o); ts != nil {
					prev[ts.Name] = ts
				}
			},
			func(t time.Time, typ watch.EventType, o runtime.Object) {
				ts := decode(o)
				if ts == nil {
					return
				}
				rx.teamSpaceChanged(t, typ, prev[ts.Name], ts)
				prev[ts.Name] = ts
				if typ == watch.Deleted {
					delete(prev, ts.Name)
				}
			})
	}
}

// deletionKey names the API's answer to a TeamSpace's delete request.
func deletionKey(name string) string { return "delete teamspace " + name }

func (rx *reaction) teamSpaceChanged(t time.Time, typ watch.EventType, was, ts *teamspace.TeamSpace) {
	obj := "teamspace " + ts.Name
	gens := func() map[string]string {
		return map[string]string{"generation": fmt.Sprint(ts.Generation), "observed": fmt.Sprint(ts.Status.ObservedGeneration)}
	}
	if typ == watch.Added {
		rx.put(t, "", timeline.Entry{Actor: timeline.APIServer, Source: timeline.FromWatch, Kind: timeline.KindCreated, Object: obj,
			What: fmt.Sprintf("TeamSpace %s created (uid %s, generation %d)", ts.Name, ts.UID, ts.Generation), Values: gens()})
		return
	}
	if was == nil { // not seen before: nothing to compare with
		was = ts
	}
	if ts.DeletionTimestamp != nil && was.DeletionTimestamp == nil {
		rx.put(t, deletionKey(ts.Name), timeline.Entry{Actor: timeline.APIServer, Source: timeline.FromWatch,
			Kind: timeline.KindDeletionTimestamp, Object: obj,
			What: fmt.Sprintf("deletionTimestamp set; finalizers %v hold %s", ts.Finalizers, ts.Name)})
	}
	for _, f := range ts.Finalizers {
		if !slices.Contains(was.Finalizers, f) {
			rx.put(t, "", timeline.Entry{Actor: timeline.Controller, Source: timeline.FromWatch, Kind: timeline.KindFinalizerAdded,
				Object: obj, What: "finalizer " + f + " added", Values: map[string]string{"finalizer": f}})
		}
	}
	for _, f := range was.Finalizers {
		// The update that removes the last finalizer of an object being
		// deleted deletes it: the watch shows no separate change then.
		if !slices.Contains(ts.Finalizers, f) || (typ == watch.Deleted && was.DeletionTimestamp != nil) {
			rx.put(t, "", timeline.Entry{Actor: timeline.Controller, Source: timeline.FromWatch, Kind: timeline.KindFinalizerRemoved,
				Object: obj, What: "finalizer " + f + " removed: " + ts.Name + " released", Values: map[string]string{"finalizer": f}})
		}
	}
	if ts.Generation != was.Generation {
		// A custom resource's generation also moves when its deletion
		// starts: the API server counts that as a change of what is asked.
		why := "spec changed"
		if ts.DeletionTimestamp != nil {
			why = "deletion started"
		}
		rx.put(t, "", timeline.Entry{Actor: timeline.APIServer, Source: timeline.FromWatch, Kind: timeline.KindGeneration, Object: obj,
			What: fmt.Sprintf("%s: generation %d → %d, observedGeneration %d (%s)",
				why, was.Generation, ts.Generation, ts.Status.ObservedGeneration, syncWord(ts)), Values: gens()})
	}
	if ts.Status.ObservedGeneration != was.Status.ObservedGeneration {
		rx.put(t, "", timeline.Entry{Actor: timeline.Controller, Source: timeline.FromWatch, Kind: timeline.KindObservedGeneration, Object: obj,
			What: fmt.Sprintf("status.observedGeneration %d → %d, generation %d (%s)",
				was.Status.ObservedGeneration, ts.Status.ObservedGeneration, ts.Generation, syncWord(ts)), Values: gens()})
	}
	if typ == watch.Deleted {
		rx.put(t, "", timeline.Entry{Actor: timeline.APIServer, Source: timeline.FromWatch, Kind: timeline.KindGone, Object: obj,
			What: "TeamSpace " + ts.Name + " gone"})
	}
}

func syncWord(ts *teamspace.TeamSpace) string {
	if d := ts.Generation - ts.Status.ObservedGeneration; d > 0 {
		return fmt.Sprintf("behind by %d: not acted on yet", d)
	}
	return "in sync"
}

// watchNamespaces watches team-<name> of the TeamSpaces m matches: created,
// deleted by the garbage collector, gone.
func watchNamespaces(m match) watcher {
	return func(ctx context.Context, rx *reaction) error {
		api := rx.env.Clients.Kube.CoreV1().Namespaces()
		ours := func(o runtime.Object) *corev1.Namespace {
			ns, ok := o.(*corev1.Namespace)
			if !ok || !strings.HasPrefix(ns.Name, teamspace.NamespacePrefix) || !m(strings.TrimPrefix(ns.Name, teamspace.NamespacePrefix)) {
				return nil
			}
			return ns
		}
		deleting := map[string]bool{}
		return rx.followWatch(ctx,
			func(ctx context.Context) (string, []runtime.Object, error) {
				l, err := api.List(ctx, metav1.ListOptions{})
				if err != nil {
					return "", nil, err
				}
				var items []runtime.Object
				for i := range l.Items {
					items = append(items, &l.Items[i])
				}
				return l.ResourceVersion, items, nil
			},
			func(ctx context.Context, rv string) (watch.Interface, error) {
				return api.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
			},
			func(o runtime.Object) {
				if ns := ours(o); ns != nil {
					deleting[ns.Name] = ns.DeletionTimestamp != nil
				}
			},
			func(t time.Time, typ watch.EventType, o runtime.Object) {
				ns := ours(o)
				if ns == nil {
					return
				}
				obj := "namespace " + ns.Name
				switch {
				case typ == watch.Added:
					rx.put(t, "", timeline.Entry{Actor: timeline.Controller, Source: timeline.FromWatch, Kind: timeline.KindCreated,
						Object: obj, What: "namespace " + ns.Name + " created"})
				case typ == watch.Deleted:
					rx.put(t, "", timeline.Entry{Actor: timeline.NamespaceController, Source: timeline.FromWatch, Kind: timeline.KindGone,
						Object: obj, What: "namespace " + ns.Name + " gone: emptied and removed"})
				case ns.DeletionTimestamp != nil && !deleting[ns.Name]:
					rx.put(t, "", timeline.Entry{Actor: timeline.GarbageCollector, Source: timeline.FromWatch, Kind: timeline.KindDeletionTimestamp,
						Object: obj, What: "namespace " + ns.Name + " deleted: its owner is gone (Terminating)"})
				}
				deleting[ns.Name] = ns.DeletionTimestamp != nil
			})
	}
}

// watchQuotas watches team-quota in team-<name> of the TeamSpaces m matches:
// created (with its uid), its limits changed, its status written by the
// quota controller, deleted.
func watchQuotas(m match) watcher {
	return func(ctx context.Context, rx *reaction) error {
		api := rx.env.Clients.Kube.CoreV1().ResourceQuotas(metav1.NamespaceAll)
		ours := func(o runtime.Object) *corev1.ResourceQuota {
			q, ok := o.(*corev1.ResourceQuota)
			if !ok || q.Name != teamspace.QuotaName || !strings.HasPrefix(q.Namespace, teamspace.NamespacePrefix) ||
				!m(strings.TrimPrefix(q.Namespace, teamspace.NamespacePrefix)) {
				return nil
			}
			return q
		}
		prev := map[string]*corev1.ResourceQuota{}
		return rx.followWatch(ctx,
			func(ctx context.Context) (string, []runtime.Object, error) {
				l, err := api.List(ctx, metav1.ListOptions{})
				if err != nil {
					return "", nil, err
				}
				var items []runtime.Object
				for i := range l.Items {
					items = append(items, &l.Items[i])
				}
				return l.ResourceVersion, items, nil
			},
			func(ctx context.Context, rv string) (watch.Interface, error) {
				return api.Watch(ctx, metav1.ListOptions{ResourceVersion: rv})
			},
			func(o runtime.Object) {
				if q := ours(o); q != nil {
					prev[q.Namespace] = q
				}
			},
			func(t time.Time, typ watch.EventType, o runtime.Object) {
				q := ours(o)
				if q == nil {
					return
				}
				rx.quotaChanged(t, typ, prev[q.Namespace], q)
				prev[q.Namespace] = q
				if typ == watch.Deleted {
					delete(prev, q.Namespace)
				}
			})
	}
}

// rvKey names the write that produced resourceVersion rv.
func rvKey(rv string) string { return "rv:" + rv }

// deletedKey names the learner's delete of an object with uid.
func deletedKey(uid string) string { return "deleted " + uid }

func (rx *reaction) quotaChanged(t time.Time, typ watch.EventType, was, q *corev1.ResourceQuota) {
	obj := "resourcequota " + q.Namespace + "/" + q.Name
	pods := quotaPods(q)
	switch {
	case typ == watch.Deleted:
		rx.put(t, deletedKey(string(q.UID)), timeline.Entry{Actor: timeline.APIServer, Source: timeline.FromWatch, Kind: timeline.KindGone,
			Object: obj, What: fmt.Sprintf("%s (uid %s) gone", q.Name, q.UID), Values: map[string]string{"uid": string(q.UID)}})
	case typ == watch.Added || was == nil || was.UID != q.UID:
		rx.put(t, rvKey(q.ResourceVersion), timeline.Entry{Actor: timeline.Controller, Source: timeline.FromWatch, Kind: timeline.KindCreated,
			Object: obj, What: fmt.Sprintf("%s created (uid %s, hard.pods=%s)", q.Name, q.UID, pods),
			Values: map[string]string{"uid": string(q.UID), "pods": pods}})
	case !hardEqual(was.Spec.Hard, q.Spec.Hard):
		rx.put(t, rvKey(q.ResourceVersion), timeline.Entry{Actor: timeline.Controller, Source: timeline.FromWatch, Kind: timeline.KindChanged,
			Object: obj, What: fmt.Sprintf("%s hard.pods %s → %s", q.Name, quotaPods(was), pods),
			Values: map[string]string{"uid": string(q.UID), "pods": pods, "pods_before": quotaPods(was)}})
	case !hardEqual(was.Status.Hard, q.Status.Hard) || !hardEqual(was.Status.Used, q.Status.Used):
		used := q.Status.Used[corev1.ResourcePods]
		hard := q.Status.Hard[corev1.ResourcePods]
		rx.put(t, rvKey(q.ResourceVersion), timeline.Entry{Actor: timeline.QuotaController, Source: timeline.FromWatch, Kind: timeline.KindStatus,
			Object: obj, What: fmt.Sprintf("%s status written: hard.pods=%s used.pods=%s", q.Name, hard.String(), used.String())})
	}
}

func hardEqual(a, b corev1.ResourceList) bool {
	return maps.EqualFunc(a, b, func(x, y resource.Quantity) bool { return x.Cmp(y) == 0 })
}

// watchEvents watches the Events recorded on the TeamSpaces m matches: the Go
// engine's Synced, DriftCorrected, Archived; any engine's warnings.
// TeamSpaces are cluster-scoped, so their Events live in "default".
func watchEvents(m match) watcher {
	return func(ctx context.Context, rx *reaction) error {
		api := rx.env.Clients.Kube.CoreV1().Events(metav1.NamespaceDefault)
		opts := metav1.ListOptions{FieldSelector: "involvedObject.kind=" + teamspace.Kind}
		counts := map[string]int32{}
		return rx.followWatch(ctx,
			func(ctx context.Context) (string, []runtime.Object, error) {
				l, err := api.List(ctx, opts)
				if err != nil {
					return "", nil, err
				}
				var items []runtime.Object
				for i := range l.Items {
					items = append(items, &l.Items[i])
				}
				return l.ResourceVersion, items, nil
			},
			func(ctx context.Context, rv string) (watch.Interface, error) {
				o := opts
				o.ResourceVersion = rv
				return api.Watch(ctx, o)
			},
			func(o runtime.Object) {
				if e, ok := o.(*corev1.Event); ok {
					counts[e.Name] = e.Count
				}
			},
			func(t time.Time, typ watch.EventType, o runtime.Object) {
				e, ok := o.(*corev1.Event)
				if !ok || typ == watch.Deleted || !m(e.InvolvedObject.Name) {
					return
				}
				// A repeated Event is the same object with a higher count.
				if seen, known := counts[e.Name]; known && e.Count <= seen && typ == watch.Modified {
					return
				}
				counts[e.Name] = e.Count
				rx.put(t, "", timeline.Entry{Actor: timeline.Controller, Source: timeline.FromEvent, Kind: timeline.KindEvent,
					Object: "teamspace " + e.InvolvedObject.Name, What: e.Reason + ": " + e.Message,
					Values: map[string]string{"reason": e.Reason, "type": e.Type}})
			})
	}
}

// watchServiceLog follows the service's own output (journal or log file): the
// shell engine's "teamspace <name>: …" lines, the Go engine's structured
// lines other than its events (the Events watch has those), and whatever
// a learner's loop prints.
func watchServiceLog(m match) watcher {
	return func(ctx context.Context, rx *reaction) error {
		lines, err := service.Follow(ctx, rx.env.Service)
		if err != nil {
			return err
		}
		rx.wg.Add(1)
		go func() {
			defer rx.wg.Done()
			for l := range lines {
				rx.logLine(l, m)
			}
		}()
		return nil
	}
}

func (rx *reaction) logLine(l service.LogLine, m match) {
	if l.Manager { // systemd's own "Started/Stopped cnpa-op.service"
		rx.put(l.Time, "", timeline.Entry{Actor: timeline.ServiceManager, Source: timeline.FromLog, Kind: timeline.KindService, What: l.Text})
		return
	}
	t, what, ok := parseLogLine(rx.env.Engine, l, m)
	if !ok {
		return
	}
	rx.mu.Lock()
	rx.logLines++
	n := rx.logLines
	rx.mu.Unlock()
	switch {
	case n == maxLogLines+1:
		what = fmt.Sprintf("… more output; the rest is in `cnpa service logs` (shown: the first %d lines)", maxLogLines)
	case n > maxLogLines:
		return
	}
	rx.put(t, "", timeline.Entry{Actor: timeline.Controller, Source: timeline.FromLog, Kind: timeline.KindLog, What: what})
}

// parseLogLine reads one line of the service's output as the engine
// writes it; ok is false for lines the timeline leaves out.
func parseLogLine(engine string, l service.LogLine, m match) (time.Time, string, bool) {
	text := strings.TrimSpace(l.Text)
	if text == "" {
		return l.Time, "", false
	}
	switch engine {
	case labenv.EngineGo:
		kv := parseLogfmt(text)
		msg, ok := kv["msg"]
		if !ok || msg == "event" { // events: the Events watch shows them
			return l.Time, "", false
		}
		if name, about := kv["teamspace"]; about && !m(name) {
			return l.Time, "", false
		}
		t := l.Time
		if at, err := time.Parse(time.RFC3339Nano, kv["time"]); err == nil {
			t = at // the controller's own clock, to the millisecond
		}
		for _, k := range []string{"teamspace", "err", "after"} {
			if v, ok := kv[k]; ok {
				msg += " " + k + "=" + v
			}
		}
		return t, msg, true
	case labenv.EngineShell:
		// reconcile.sh's lines are "teamspace <name>: <what it did>".
		if rest, ok := strings.CutPrefix(text, "teamspace "); ok {
			if name, _, ok := strings.Cut(rest, ": "); ok && !m(name) {
				return l.Time, "", false
			}
		}
		return l.Time, text, true
	}
	// A learner's loop: every line, as it printed it.
	return l.Time, text, true
}

// parseLogfmt splits a log/slog text line (key=value, values quoted when
// they hold spaces) into its keys and values.
func parseLogfmt(line string) map[string]string {
	kv := map[string]string{}
	for line != "" {
		line = strings.TrimLeft(line, " ")
		k, rest, ok := strings.Cut(line, "=")
		if !ok || strings.Contains(k, " ") {
			return kv
		}
		var v string
		if strings.HasPrefix(rest, `"`) {
			end := 1
			for end < len(rest) && (rest[end] != '"' || rest[end-1] == '\\') {
				end++
			}
			v = strings.ReplaceAll(rest[1:min(end, len(rest))], `\"`, `"`)
			rest = rest[min(end+1, len(rest)):]
		} else {
			v, rest, _ = strings.Cut(rest, " ")
		}
		kv[k] = v
		line = rest
	}
	return kv
}

// watchArchive watches for <archive dir>/<name>.json being written (a new
// record, or a different one than before the action).
func watchArchive(name string) watcher {
	return func(ctx context.Context, rx *reaction) error {
		path := filepath.Join(rx.env.ArchiveDir(), name+".json")
		before := fileStamp(path)
		rx.wg.Add(1)
		go func() {
			defer rx.wg.Done()
			tick := time.NewTicker(archivePoll)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
				now := fileStamp(path)
				if now == "" || now == before {
					continue
				}
				t := time.Now()
				what := fmt.Sprintf("%s/%s.json written", evidence.ArchiveDir, name)
				values := map[string]string{}
				if rec, err := evidence.ReadArchive(rx.env.ArchiveDir(), name); err == nil && rec != nil {
					what += fmt.Sprintf(": name %s, uid %s, pods %d", rec.Name, rec.UID, rec.Pods)
					values["uid"] = rec.UID
				}
				rx.put(t, "", timeline.Entry{Actor: timeline.Controller, Source: timeline.FromFile, Kind: timeline.KindArchived,
					Object: "teamspace " + name, What: what, Values: values})
				return
			}
		}()
		return nil
	}
}

// fileStamp tells one version of a file from another; "" when absent.
func fileStamp(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	var inode uint64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		inode = st.Ino // an atomic write renames a new file over the old
	}
	return fmt.Sprintf("%d/%d/%d", fi.Size(), fi.ModTime().UnixNano(), inode)
}

// unitName is the service as systemctl and journalctl take it.
var unitName = strings.TrimSuffix(service.Name, ".service")

// serviceCommand is the command a learner types to start or stop the
// service with the lab's service manager.
func serviceCommand(env *labenv.Env, verb string) string {
	if env.Service.Name() == "systemd" {
		return "systemctl " + verb + " " + unitName
	}
	if strings.HasPrefix(verb, "enable") {
		verb = "start" // process mode has nothing to enable
	}
	return "cnpa service " + verb
}

package reaction

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/timeline"
)

// TeamSpaces watches the TeamSpaces m matches: deletion requested,
// finalizers added and released, generation against observedGeneration.
func TeamSpaces(m Match) Watcher {
	return func(ctx context.Context, rx *Recorder) error {
		api := rx.env.Clients.Dynamic.Resource(teamspace.GVR)
		return followChanges[*unstructured.UnstructuredList](ctx, rx, api, metav1.ListOptions{},
			func(o runtime.Object) (string, *teamspace.TeamSpace) {
				u, ok := o.(*unstructured.Unstructured)
				if !ok || !m(u.GetName()) {
					return "", nil
				}
				ts, err := teamspace.FromUnstructured(u)
				if err != nil {
					return "", nil // a spec cnpa cannot read is the step's to report
				}
				return ts.Name, ts
			},
			rx.teamSpaceChanged)
	}
}

// DeletionKey names the API's answer to a TeamSpace's delete request.
func DeletionKey(name string) string { return "delete teamspace " + name }

func (rx *Recorder) teamSpaceChanged(t time.Time, typ watch.EventType, was, ts *teamspace.TeamSpace) {
	obj := "teamspace " + ts.Name
	gens := func() map[string]string {
		return map[string]string{"generation": fmt.Sprint(ts.Generation), "observed": fmt.Sprint(ts.Status.ObservedGeneration)}
	}
	if typ == watch.Added {
		rx.put(t, "", timeline.Entry{Actor: timeline.APIServer, Source: timeline.FromWatch, Kind: timeline.KindCreated, Object: obj,
			Values: gens()}.Words(timeline.Say("timeline.what.teamspace_created", "Name", ts.Name, "UID", string(ts.UID), "Generation", fmt.Sprint(ts.Generation))))
		return
	}
	if was == nil { // not seen before: nothing to compare with
		was = ts
	}
	if ts.DeletionTimestamp != nil && was.DeletionTimestamp == nil {
		rx.put(t, DeletionKey(ts.Name), timeline.Entry{Actor: timeline.APIServer, Source: timeline.FromWatch,
			Kind: timeline.KindDeletionTimestamp, Object: obj}.Words(timeline.Say("timeline.what.deletion_set", "Finalizers", fmt.Sprint(ts.Finalizers), "Name", ts.Name)))
	}
	for _, f := range ts.Finalizers {
		if !slices.Contains(was.Finalizers, f) {
			rx.put(t, "", timeline.Entry{Actor: timeline.Controller, Source: timeline.FromWatch, Kind: timeline.KindFinalizerAdded,
				Object: obj, Values: map[string]string{"finalizer": f}}.Words(timeline.Say("timeline.what.finalizer_added", "Finalizer", f)))
		}
	}
	for _, f := range was.Finalizers {
		// The update that removes the last finalizer of an object being
		// deleted deletes it: the watch shows no separate change then.
		if !slices.Contains(ts.Finalizers, f) || (typ == watch.Deleted && was.DeletionTimestamp != nil) {
			rx.put(t, "", timeline.Entry{Actor: timeline.Controller, Source: timeline.FromWatch, Kind: timeline.KindFinalizerRemoved,
				Object: obj, Values: map[string]string{"finalizer": f}}.Words(timeline.Say("timeline.what.finalizer_removed", "Finalizer", f, "Name", ts.Name)))
		}
	}
	if ts.Generation != was.Generation {
		// A custom resource's generation also moves when its deletion
		// starts: the API server counts that as a change of what is asked.
		why := "timeline.what.spec_changed"
		if ts.DeletionTimestamp != nil {
			why = "timeline.what.deletion_started"
		}
		rx.put(t, "", timeline.Entry{Actor: timeline.APIServer, Source: timeline.FromWatch, Kind: timeline.KindGeneration, Object: obj,
			Values: gens()}.Words(timeline.Say(why, "From", fmt.Sprint(was.Generation), "To", fmt.Sprint(ts.Generation),
			"Observed", fmt.Sprint(ts.Status.ObservedGeneration)), syncWords(ts)))
	}
	if ts.Status.ObservedGeneration != was.Status.ObservedGeneration {
		rx.put(t, "", timeline.Entry{Actor: timeline.Controller, Source: timeline.FromWatch, Kind: timeline.KindObservedGeneration, Object: obj,
			Values: gens()}.Words(timeline.Say("timeline.what.observed_moved", "From", fmt.Sprint(was.Status.ObservedGeneration),
			"To", fmt.Sprint(ts.Status.ObservedGeneration), "Generation", fmt.Sprint(ts.Generation)), syncWords(ts)))
	}
	if typ == watch.Deleted {
		rx.put(t, "", timeline.Entry{Actor: timeline.APIServer, Source: timeline.FromWatch, Kind: timeline.KindGone, Object: obj}.Words(
			timeline.Say("timeline.what.teamspace_gone", "Name", ts.Name)))
	}
}

// syncWords end a generation's entry: " (in sync)", or how far the
// controller is behind.
func syncWords(ts *teamspace.TeamSpace) timeline.Message {
	if d := ts.Generation - ts.Status.ObservedGeneration; d > 0 {
		return timeline.Say("timeline.what.behind", "N", fmt.Sprint(d))
	}
	return timeline.Say("timeline.what.in_sync")
}

// Namespaces watches team-<name> of the TeamSpaces m matches: created,
// deleted by the garbage collector, gone.
func Namespaces(m Match) Watcher {
	return func(ctx context.Context, rx *Recorder) error {
		api := rx.env.Clients.Kube.CoreV1().Namespaces()
		ours := func(o runtime.Object) *corev1.Namespace {
			ns, ok := o.(*corev1.Namespace)
			if !ok || !strings.HasPrefix(ns.Name, teamspace.NamespacePrefix) || !m(strings.TrimPrefix(ns.Name, teamspace.NamespacePrefix)) {
				return nil
			}
			return ns
		}
		deleting := map[string]bool{}
		return follow[*corev1.NamespaceList](ctx, rx, api, metav1.ListOptions{},
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
						Object: obj}.Words(timeline.Say("timeline.what.namespace_created", "Name", ns.Name)))
				case typ == watch.Deleted:
					rx.put(t, "", timeline.Entry{Actor: timeline.NamespaceController, Source: timeline.FromWatch, Kind: timeline.KindGone,
						Object: obj}.Words(timeline.Say("timeline.what.namespace_gone", "Name", ns.Name)))
				case ns.DeletionTimestamp != nil && !deleting[ns.Name]:
					rx.put(t, "", timeline.Entry{Actor: timeline.GarbageCollector, Source: timeline.FromWatch, Kind: timeline.KindDeletionTimestamp,
						Object: obj}.Words(timeline.Say("timeline.what.namespace_collected", "Name", ns.Name)))
				}
				deleting[ns.Name] = ns.DeletionTimestamp != nil
			})
	}
}

// Quotas watches team-quota in team-<name> of the TeamSpaces m matches:
// created (with its uid), its limits changed, its status written by the
// quota controller, deleted.
func Quotas(m Match) Watcher {
	return func(ctx context.Context, rx *Recorder) error {
		api := rx.env.Clients.Kube.CoreV1().ResourceQuotas(metav1.NamespaceAll)
		ours := func(o runtime.Object) *corev1.ResourceQuota {
			q, ok := o.(*corev1.ResourceQuota)
			if !ok || q.Name != teamspace.QuotaName || !strings.HasPrefix(q.Namespace, teamspace.NamespacePrefix) ||
				!m(strings.TrimPrefix(q.Namespace, teamspace.NamespacePrefix)) {
				return nil
			}
			return q
		}
		return followChanges[*corev1.ResourceQuotaList](ctx, rx, api, metav1.ListOptions{},
			func(o runtime.Object) (string, *corev1.ResourceQuota) {
				if q := ours(o); q != nil {
					return q.Namespace, q
				}
				return "", nil
			},
			rx.quotaChanged)
	}
}

// VersionKey names the write that produced resourceVersion rv.
func VersionKey(rv string) string { return "rv:" + rv }

// DeletedKey names the learner's delete of an object with uid.
func DeletedKey(uid string) string { return "deleted " + uid }

func (rx *Recorder) quotaChanged(t time.Time, typ watch.EventType, was, q *corev1.ResourceQuota) {
	obj := "resourcequota " + q.Namespace + "/" + q.Name
	pods := teamspace.QuotaPods(q)
	switch {
	case typ == watch.Deleted:
		rx.put(t, DeletedKey(string(q.UID)), timeline.Entry{Actor: timeline.APIServer, Source: timeline.FromWatch, Kind: timeline.KindGone,
			Object: obj, Values: map[string]string{"uid": string(q.UID)}}.Words(timeline.Say("timeline.what.quota_gone", "Name", q.Name, "UID", string(q.UID))))
	case typ == watch.Added || was == nil || was.UID != q.UID:
		rx.put(t, VersionKey(q.ResourceVersion), timeline.Entry{Actor: timeline.Controller, Source: timeline.FromWatch, Kind: timeline.KindCreated,
			Object: obj, Values: map[string]string{"uid": string(q.UID), "pods": pods}}.Words(
			timeline.Say("timeline.what.quota_created", "Name", q.Name, "UID", string(q.UID), "Pods", pods)))
	case !hardEqual(was.Spec.Hard, q.Spec.Hard):
		rx.put(t, VersionKey(q.ResourceVersion), timeline.Entry{Actor: timeline.Controller, Source: timeline.FromWatch, Kind: timeline.KindChanged,
			Object: obj, What: fmt.Sprintf("%s hard.pods %s → %s", q.Name, teamspace.QuotaPods(was), pods),
			Values: map[string]string{"uid": string(q.UID), "pods": pods, "pods_before": teamspace.QuotaPods(was)}})
	case !hardEqual(was.Status.Hard, q.Status.Hard) || !hardEqual(was.Status.Used, q.Status.Used):
		used := q.Status.Used[corev1.ResourcePods]
		hard := q.Status.Hard[corev1.ResourcePods]
		rx.put(t, VersionKey(q.ResourceVersion), timeline.Entry{Actor: timeline.QuotaController, Source: timeline.FromWatch, Kind: timeline.KindStatus,
			Object: obj}.Words(timeline.Say("timeline.what.quota_status", "Name", q.Name, "Hard", hard.String(), "Used", used.String())))
	}
}

func hardEqual(a, b corev1.ResourceList) bool {
	return maps.EqualFunc(a, b, func(x, y resource.Quantity) bool { return x.Cmp(y) == 0 })
}

// Events watches the Events recorded on the TeamSpaces m matches: the Go
// engine's Synced, DriftCorrected, Archived; any engine's warnings.
// TeamSpaces are cluster-scoped, so their Events live in "default".
//
// Anyone allowed to create Events can write one about alpha, so an Event
// is the controller's only when its source component (or reporting
// controller) is one of cnpa's engines' and its involvedObject.uid is the
// TeamSpace's uid; any other is shown as another writer's, with who it
// says it is from (eventActor).
func Events(m Match) Watcher {
	return func(ctx context.Context, rx *Recorder) error {
		api := rx.env.Clients.Kube.CoreV1().Events(metav1.NamespaceDefault)
		opts := metav1.ListOptions{FieldSelector: "involvedObject.kind=" + teamspace.Kind}
		counts := map[string]int32{}
		uids := teamSpaceUIDs(ctx, rx, m)
		return follow[*corev1.EventList](ctx, rx, api, opts,
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
				actor, note := eventActor(e, uids(e.InvolvedObject.Name))
				// The Event's reason and message are the controller's words.
				words := []timeline.Message{timeline.Literal(e.Reason + ": " + e.Message)}
				if note.ID != "" {
					words = append(words, note)
				}
				rx.put(t, "", timeline.Entry{Actor: actor, Source: timeline.FromEvent, Kind: timeline.KindEvent,
					Object: "teamspace " + e.InvolvedObject.Name, Values: map[string]string{"reason": e.Reason, "type": e.Type}}.Words(words...))
			})
	}
}

// Archive watches for <archive dir>/<name>.json being written (a new
// record, or a different one than before the action).
func Archive(name string) Watcher {
	return func(ctx context.Context, rx *Recorder) error {
		path := filepath.Join(rx.env.ArchiveDir(), name+".json")
		before := fileStamp(path)
		opened := time.Now()
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
				// Dated by the file's own mtime, set when the record was
				// written: a poll on a busy machine can see it after the
				// finalizer release that followed it.
				t := time.Now()
				if fi, err := os.Stat(path); err == nil && fi.ModTime().After(opened) && fi.ModTime().Before(t) {
					t = fi.ModTime()
				}
				file := fmt.Sprintf("%s/%s.json", evidence.ArchiveDir, name)
				what := timeline.Say("timeline.what.archived", "File", file)
				values := map[string]string{}
				if rec, err := evidence.ReadArchive(rx.env.ArchiveDir(), name); err == nil && rec != nil {
					what = timeline.Say("timeline.what.archived_record", "File", file, "Name", rec.Name, "UID", rec.UID, "Pods", fmt.Sprint(rec.Pods))
					values["uid"] = rec.UID
				}
				rx.put(t, "", timeline.Entry{Actor: timeline.Controller, Source: timeline.FromFile, Kind: timeline.KindArchived,
					Object: "teamspace " + name, Values: values}.Words(what))
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

// eventActor tells who an Event is from: the controller when one of cnpa's
// engines says it recorded it (source component or reporting controller)
// about the TeamSpace with uid; otherwise another writer, with a note
// saying why (none for the controller's). uid is "" when the TeamSpace
// could not be read: then no Event can be proven the controller's.
func eventActor(e *corev1.Event, uid types.UID) (actor string, note timeline.Message) {
	from := e.ReportingController
	if from == "" {
		from = e.Source.Component
	}
	ours := from == teamspace.EventSource || from == teamspace.ShellEventSource
	switch {
	case !ours && from == "":
		return timeline.OtherWriter, timeline.Say("timeline.what.from_no_source")
	case !ours:
		return timeline.OtherWriter, timeline.Say("timeline.what.from_other", "From", from)
	case uid == "" || e.InvolvedObject.UID != uid:
		return timeline.OtherWriter, timeline.Say("timeline.what.about_other_uid", "UID", strconv.Quote(string(e.InvolvedObject.UID)), "Ours", string(uid))
	}
	return timeline.Controller, timeline.Message{}
}

// teamSpaceUIDs returns a lookup of the uid of each TeamSpace m matches,
// read when the watch opens and, for one created since, when its first
// Event arrives ("" when it cannot be read). The watch's goroutine is its
// only caller.
func teamSpaceUIDs(ctx context.Context, rx *Recorder, m Match) func(name string) types.UID {
	known := map[string]types.UID{}
	api := rx.env.Clients.Dynamic.Resource(teamspace.GVR)
	if l, err := api.List(ctx, metav1.ListOptions{}); err == nil {
		for _, ts := range l.Items {
			if m(ts.GetName()) {
				known[ts.GetName()] = ts.GetUID()
			}
		}
	}
	return func(name string) types.UID {
		if uid, ok := known[name]; ok {
			return uid
		}
		ts, err := api.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return "" // gone, or unreadable: not cached, asked again next time
		}
		known[name] = ts.GetUID()
		return ts.GetUID()
	}
}

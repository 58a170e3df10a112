package labassert

import (
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/course"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/timeline"
)

// Timelines asserts the timelines steps 4 to 7 saved under <dir>/.cnpa/
// after a full lab run: each step's action at +0 and the controller's
// reaction after it, in the order Kubernetes makes it happen, with the
// values of the evidence files. The engine is read from the lab's state.
func Timelines(t *testing.T, dir string) {
	t.Helper()
	st, err := labenv.LoadState(dir)
	if err != nil || st == nil {
		t.Fatalf("lab state in %s: %v (none: %t)", dir, err, st == nil)
	}
	load := func(step int) *timeline.Timeline {
		t.Helper()
		tl, err := timeline.Load(dir, step)
		if err != nil || tl == nil {
			t.Fatalf("timeline of step %d: %v (none: %t)", step, err, tl == nil)
		}
		if tl.Step != step || tl.Engine != st.Engine || tl.Action == "" || tl.Start.IsZero() {
			t.Errorf("step %d timeline header: got step %d engine %q action %q start %v, want step %d engine %q and an action",
				step, tl.Step, tl.Engine, tl.Action, tl.Start, step, st.Engine)
		}
		t.Logf("step %d timeline (%s engine, times since %s):\n%s", step, tl.Engine, tl.Action, dump(tl))
		for i := 1; i < len(tl.Entries); i++ {
			if tl.Entries[i].At < tl.Entries[i-1].At {
				t.Errorf("step %d timeline: entry %d at %s before entry %d at %s", step, i, tl.Entries[i].At, i-1, tl.Entries[i-1].At)
			}
		}
		return tl
	}
	timelineStep4(t, load(4))
	timelineStep5(t, dir, st.Engine, load(5))
	timelineStep6(t, dir, st.Engine, load(6))
	timelineStep7(t, load(7))
}

// tlView finds entries of one timeline and says what it holds on failure.
type tlView struct {
	t  *testing.T
	tl *timeline.Timeline
}

// first is the first entry after (strictly later than) after of kind about
// object ("" any) for which ok holds; it fails the test when there is none.
func (v tlView) first(after time.Duration, kind, object, want string, ok func(timeline.Entry) bool) timeline.Entry {
	v.t.Helper()
	for _, e := range v.tl.Entries {
		if e.At > after && e.Kind == kind && (object == "" || e.Object == object) && (ok == nil || ok(e)) {
			return e
		}
	}
	v.t.Errorf("step %d timeline: no %s entry on %q after %s (%s); got:\n%s", v.tl.Step, kind, object, timeline.FormatAt(after), want, dump(v.tl))
	return timeline.Entry{At: after}
}

// action is the learner's action whose command contains cmd.
func (v tlView) action(cmd string) timeline.Entry {
	v.t.Helper()
	for _, e := range v.tl.Entries {
		if e.Kind == timeline.KindAction && e.Actor == timeline.You && strings.Contains(e.Values["command"], cmd) {
			return e
		}
	}
	v.t.Errorf("step %d timeline: no action of yours running %q; got:\n%s", v.tl.Step, cmd, dump(v.tl))
	return timeline.Entry{}
}

func dump(tl *timeline.Timeline) string {
	var b strings.Builder
	for _, e := range tl.Entries {
		b.WriteString("  " + timeline.FormatAt(e.At) + "  " + e.Actor + "  " + e.Kind + "  " + e.Object + "  " + e.What + "  (" + e.Source + ")\n")
	}
	return b.String()
}

// Step 4: the service starts at +0, then the probe TeamSpace gets its
// namespace and quota from the controller, after you created it.
func timelineStep4(t *testing.T, tl *timeline.Timeline) {
	v := tlView{t, tl}
	start := v.first(-1, timeline.KindAction, "service cnpa-op", "your start of the service", nil)
	if start.At != 0 || !strings.Contains(start.Values["command"], "start") && !strings.Contains(start.Values["command"], "enable --now") {
		t.Errorf("step 4: %q at %s, want the service's start (`systemctl enable --now` or `cnpa service start`) at +0",
			start.Values["command"], timeline.FormatAt(start.At))
	}
	v.first(-1, timeline.KindService, "", "the service active", func(e timeline.Entry) bool { return strings.Contains(e.What, "active, main pid") })
	created := v.first(-1, timeline.KindAction, "", "you created the probe", func(e timeline.Entry) bool { return strings.HasPrefix(e.What, "created TeamSpace cnpa-probe-") })
	probe := strings.TrimPrefix(created.Object, "teamspace ")
	ns := v.first(created.At, timeline.KindCreated, "namespace "+teamspace.NamespaceName(probe), "the controller creates the probe's namespace", nil)
	if ns.Actor != timeline.Controller {
		t.Errorf("step 4: probe namespace created by %q, want %q", ns.Actor, timeline.Controller)
	}
	v.first(created.At, timeline.KindCreated, "resourcequota "+teamspace.NamespaceName(probe)+"/"+teamspace.QuotaName, "the controller creates the probe's quota",
		func(e timeline.Entry) bool { return e.Actor == timeline.Controller && e.Values["pods"] == "1" })
}

// Step 5: your delete at +0; the controller re-creates team-quota with the
// new uid step 5 recorded; your edit to 99, then the controller's revert.
func timelineStep5(t *testing.T, dir, engine string, tl *timeline.Timeline) {
	var drift lab.DriftRecord
	if _, err := course.Steps.Lab().ReadFile(dir, lab.DriftFile, &drift); err != nil {
		t.Fatal(err)
	}
	v := tlView{t, tl}
	quota := "resourcequota team-alpha/" + teamspace.QuotaName
	del := v.action("kubectl delete resourcequota team-quota")
	if del.At != 0 || !strings.Contains(del.What, drift.DeletedUID) {
		t.Errorf("step 5: deletion %q at %s, want at +0 naming uid %s", del.What, timeline.FormatAt(del.At), drift.DeletedUID)
	}
	created := v.first(0, timeline.KindCreated, quota, "team-quota re-created with restored_uid "+drift.RestoredUID,
		func(e timeline.Entry) bool { return e.Values["uid"] == drift.RestoredUID })
	if created.Actor != timeline.Controller || created.Values["uid"] == drift.DeletedUID {
		t.Errorf("step 5: re-creation by %q with uid %s, want %q and a uid other than %s", created.Actor, created.Values["uid"], timeline.Controller, drift.DeletedUID)
	}
	for _, e := range tl.Entries {
		if e.Kind == timeline.KindGone && e.Object == quota {
			t.Errorf("step 5: the echo of your own delete is in the timeline at %s: %s", timeline.FormatAt(e.At), e.What)
		}
	}
	edit := v.action(`"pods":"99"`)
	if edit.At <= created.At {
		t.Errorf("step 5: your edit at %s, want after the re-creation at %s", timeline.FormatAt(edit.At), timeline.FormatAt(created.At))
	}
	v.first(edit.At, timeline.KindChanged, quota, "the controller reverts 99",
		func(e timeline.Entry) bool {
			return e.Actor == timeline.Controller && e.Values["pods_before"] == "99" && e.Values["pods"] == "6"
		})
	switch engine {
	case labenv.EngineGo:
		v.first(0, timeline.KindEvent, "teamspace alpha", "the DriftCorrected Event", func(e timeline.Entry) bool { return e.Values["reason"] == "DriftCorrected" })
	default: // the shell reference script, as the own engine's learner scaffolded it
		v.first(0, timeline.KindLog, "", "the loop's log line", func(e timeline.Entry) bool {
			return strings.Contains(e.What, "teamspace alpha: quota team-alpha/team-quota created")
		})
	}
}

// fileTick bounds how much earlier than its write a file's mtime reads:
// the kernel stamps files from its coarse clock, up to a tick (1-10 ms
// by CONFIG_HZ) behind.
const fileTick = 10 * time.Millisecond

// Step 6: your delete at +0, then in that order: deletionTimestamp, the
// archive record, the finalizer released, team-beta garbage-collected.
// The archive record is dated by its file's mtime and the deletionTimestamp
// by when cnpa's own watch saw it, which may be after the controller's
// watch did and the record was written: a make test of a7bd9c6 read
// deletionTimestamp +4 ms and the record -0 ms. Between those two, what
// can be seen is that the record came after your delete, less a tick of
// the file clock, and before the release, which the watch saw.
func timelineStep6(t *testing.T, dir, engine string, tl *timeline.Timeline) {
	var cleanup lab.CleanupRecord
	if _, err := course.Steps.Lab().ReadFile(dir, lab.CleanupFile, &cleanup); err != nil {
		t.Fatal(err)
	}
	v := tlView{t, tl}
	del := v.action("kubectl delete --raw /apis/platform.labhub.io/v1alpha1/teamspaces/beta")
	if del.At != 0 {
		t.Errorf("step 6: deletion at %s, want +0", timeline.FormatAt(del.At))
	}
	marked := v.first(-1, timeline.KindDeletionTimestamp, "teamspace beta", "deletionTimestamp set", nil)
	archived := v.first(-fileTick, timeline.KindArchived, "teamspace beta", "the archive record, after your delete",
		func(e timeline.Entry) bool { return e.Values["uid"] == cleanup.UID })
	released := v.first(archived.At-1, timeline.KindFinalizerRemoved, "teamspace beta", "the finalizer released, after the record",
		func(e timeline.Entry) bool { return e.Values["finalizer"] == teamspace.Finalizer })
	if released.Actor != timeline.Controller {
		t.Errorf("step 6: finalizer released by %q, want %q", released.Actor, timeline.Controller)
	}
	if marked.At < 0 || archived.At <= -fileTick || released.At < archived.At || released.At < marked.At {
		t.Errorf("step 6: deletionTimestamp %s, archive %s, release %s: want each from +0 (the archive's file clock a tick less), the release after both",
			timeline.FormatAt(marked.At), timeline.FormatAt(archived.At), timeline.FormatAt(released.At))
	}
	gc := v.first(released.At-1, timeline.KindDeletionTimestamp, "namespace team-beta", "the garbage collector deletes team-beta", nil)
	if gc.Actor != timeline.GarbageCollector {
		t.Errorf("step 6: team-beta deleted by %q, want %q", gc.Actor, timeline.GarbageCollector)
	}
	v.first(gc.At, timeline.KindGone, "namespace team-beta", "team-beta gone, last", nil)
	switch engine {
	case labenv.EngineGo:
		v.first(0, timeline.KindEvent, "teamspace beta", "the Archived Event", func(e timeline.Entry) bool { return e.Values["reason"] == "Archived" })
	default:
		v.first(0, timeline.KindLog, "", "the loop's log line", func(e timeline.Entry) bool {
			return strings.Contains(e.What, "teamspace beta: archived to")
		})
	}
}

// Step 7: stopped before +0, your edit at +0 leaves observedGeneration
// behind; only after you start the controller does it catch up.
func timelineStep7(t *testing.T, tl *timeline.Timeline) {
	v := tlView{t, tl}
	stop := v.action("stop")
	edit := v.action(`"pods":8`)
	start := v.action("start")
	if !(stop.At < 0 && edit.At == 0 && start.At > 0) {
		t.Errorf("step 7: stop %s, edit %s, start %s: want stop < +0 = edit < start",
			timeline.FormatAt(stop.At), timeline.FormatAt(edit.At), timeline.FormatAt(start.At))
	}
	behind := v.first(-1, timeline.KindGeneration, "teamspace alpha", "generation 3 with observedGeneration 2",
		func(e timeline.Entry) bool {
			return e.Source == timeline.FromWatch && e.Values["generation"] == "3" && e.Values["observed"] == "2"
		})
	if behind.At >= start.At {
		t.Errorf("step 7: generation 3 seen at %s, want before the start at %s", timeline.FormatAt(behind.At), timeline.FormatAt(start.At))
	}
	for _, e := range tl.Entries {
		if e.Kind == timeline.KindObservedGeneration && e.At < start.At {
			t.Errorf("step 7: observedGeneration moved at %s while the controller was stopped: %s", timeline.FormatAt(e.At), e.What)
		}
	}
	v.first(start.At, timeline.KindObservedGeneration, "teamspace alpha", "observedGeneration catches up to 3 after the start",
		func(e timeline.Entry) bool {
			return e.Actor == timeline.Controller && e.Values["observed"] == "3" && e.Values["generation"] == "3"
		})
	v.first(start.At, timeline.KindChanged, "resourcequota team-alpha/"+teamspace.QuotaName, "quota pods 6 → 8 after the start",
		func(e timeline.Entry) bool { return e.Values["pods_before"] == "6" && e.Values["pods"] == "8" })
}

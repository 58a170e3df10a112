package reaction

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/timeline"
)

// An entry's What is the English the timeline file has always kept, word
// for word (programs and tests read it: test/labassert), and its Text is
// said in the reader's language from the messages beside it.
func TestEntriesInTheReadersLanguage(t *testing.T) {
	rx := &Recorder{echoes: map[string]bool{}, answered: map[string]time.Time{}}
	now := time.Now()
	was := &teamspace.TeamSpace{ObjectMeta: metav1.ObjectMeta{Name: "alpha", Generation: 1}, Status: teamspace.Status{ObservedGeneration: 1}}
	ts := &teamspace.TeamSpace{ObjectMeta: metav1.ObjectMeta{Name: "alpha", Generation: 2, Finalizers: []string{teamspace.Finalizer}},
		Status: teamspace.Status{ObservedGeneration: 1}}
	rx.teamSpaceChanged(now, watch.Modified, was, ts)
	rx.Action("kubectl delete …", timeline.Say("timeline.what.you_deleted_uid", "Object", "TeamSpace beta", "UID", "u-1"), "teamspace beta")
	rx.You("systemctl stop cnpa-op", timeline.Say("timeline.what.you_stopped"), "service cnpa-op")
	rx.quotaChanged(now, watch.Added, nil, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "team-quota", Namespace: "team-alpha", UID: "q-1"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("6")}}})
	_, note := eventActor(&corev1.Event{ReportingController: "someone"}, "u-1")
	e := timeline.Entry{}.Words(timeline.Literal("DriftCorrected: quota recreated"), note)

	var got []timeline.Entry
	for _, s := range rx.seen {
		got = append(got, s.e)
	}
	got = append(got, e)
	want := []struct{ en, ja string }{
		{"finalizer platform.labhub.io/cleanup added", "finalizer platform.labhub.io/cleanupが付いた"},
		{"spec changed: generation 1 → 2, observedGeneration 1 (behind by 1: not acted on yet)",
			"specが変わった: generation 1 → 2、observedGeneration 1（1遅れ: まだ反映していない）"},
		{"deleted TeamSpace beta (uid u-1)", "TeamSpace betaを削除した（uid u-1）"},
		{"stopped the controller", "コントローラーを止めた"},
		{"team-quota created (uid q-1, hard.pods=6)", "team-quotaが作成された（uid q-1、hard.pods=6）"},
		{"DriftCorrected: quota recreated (from someone, not cnpa's controller)",
			"DriftCorrected: quota recreated（送り主はsomeone。cnpaのコントローラーではない）"},
	}
	if len(got) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(got), len(want), got)
	}
	defer i18n.Set(i18n.Current())
	for i, w := range want {
		i18n.Set(i18n.English)
		if got[i].What != w.en || got[i].Text() != w.en {
			t.Errorf("entry %d: What %q, Text %q; want %q", i, got[i].What, got[i].Text(), w.en)
		}
		i18n.Set(i18n.Japanese)
		if got[i].Text() != w.ja || got[i].What != w.en {
			t.Errorf("entry %d in Japanese: Text %q, What %q; want %q, What in English", i, got[i].Text(), got[i].What, w.ja)
		}
	}
	// datedByEffect's note is added to the words in both.
	tl := &timeline.Timeline{Entries: []timeline.Entry{
		{At: 12 * time.Millisecond, Kind: timeline.KindArchived, Object: "teamspace beta"},
		timeline.Entry{At: 14 * time.Millisecond, Kind: timeline.KindDeletionTimestamp, Object: "teamspace beta"}.Words(
			timeline.Say("timeline.what.deletion_set", "Finalizers", "[x]", "Name", "beta")),
	}}
	datedByEffect(tl)
	d := tl.Find(timeline.KindDeletionTimestamp, "")
	if d.What != "deletionTimestamp set; finalizers [x] hold beta (seen at +14 ms; what it caused came first)" ||
		!strings.HasSuffix(d.Text(), "（見えたのは+14 ms。これが起こしたことのほうが先に見えた）") {
		t.Errorf("datedByEffect: What %q, Text %q", d.What, d.Text())
	}
}

package timeline

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/ui"
)

func TestFormatAt(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "+0 ms"}, {4 * time.Millisecond, "+4 ms"}, {-120 * time.Millisecond, "-120 ms"},
		{2315 * time.Millisecond, "+2315 ms"}, {46200 * time.Millisecond, "+46.2 s"},
	} {
		if got := FormatAt(c.d); got != c.want {
			t.Errorf("FormatAt(%s): got %q, want %q", c.d, got, c.want)
		}
	}
}

// TestSaveLoadPrint: a timeline comes back as saved, sorted, and prints
// one aligned line per entry.
func TestSaveLoadPrint(t *testing.T) {
	dir := t.TempDir()
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	tl := &Timeline{Step: 5, Title: "drift", Engine: "go", Action: "kubectl delete resourcequota team-quota -n team-alpha", Start: start}
	tl.Put(start.Add(5*time.Millisecond), Entry{Actor: Controller, What: "team-quota created (uid b)", Source: FromWatch,
		Kind: KindCreated, Object: "resourcequota team-alpha/team-quota", Values: map[string]string{"uid": "b"}})
	tl.Add(start, You, "deleted team-quota (uid a)", FromRead)
	tl.Add(start.Add(4*time.Millisecond), Controller, "DriftCorrected: quota recreated", FromEvent)
	if err := Save(dir, tl); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir, 5)
	if err != nil || got == nil {
		t.Fatalf("Load: %v, %v", got, err)
	}
	if len(got.Entries) != 3 || got.Entries[0].Actor != You || got.Entries[2].Values["uid"] != "b" || !got.Start.Equal(start) {
		t.Fatalf("got %+v, want the three entries in time order with their values", got)
	}
	if e := got.Find(KindCreated, "resourcequota team-alpha/team-quota"); e == nil || e.At != 5*time.Millisecond {
		t.Errorf("Find created: got %+v, want the entry at +5 ms", e)
	}
	var out bytes.Buffer
	Print(ui.New(&out, true), got)
	want := "" +
		"  timeline (times since: kubectl delete resourcequota team-quota -n team-alpha)\n" +
		"  +0 ms  you         deleted team-quota (uid a)       read\n" +
		"  +4 ms  controller  DriftCorrected: quota recreated  event\n" +
		"  +5 ms  controller  team-quota created (uid b)       watch\n"
	if out.String() != want {
		t.Errorf("Print:\ngot:\n%s\nwant:\n%s", out.String(), want)
	}
	if missing, err := Load(dir, 6); missing != nil || err != nil {
		t.Errorf("Load of a step without a timeline: got %v, %v, want nil, nil", missing, err)
	}
	if strings.Contains(out.String(), "\x1b[") {
		t.Errorf("colour with noColor set")
	}
}

// In Japanese the actors are the catalog's words and the columns stay
// aligned by display width (a Japanese character is two columns); what was
// recorded (the action, what happened, how it was seen) is as recorded.
func TestPrintJapanese(t *testing.T) {
	defer i18n.Set(i18n.Current())
	i18n.Set(i18n.Japanese)
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	tl := &Timeline{Step: 6, Action: "kubectl delete teamspace beta", Start: start}
	tl.Add(start, You, "deleted beta", FromRead)
	tl.Add(start.Add(4*time.Millisecond), Controller, "archive/beta.json written", FromFile)
	tl.Add(start.Add(900*time.Millisecond), GarbageCollector, "namespace team-beta deleted", FromWatch)
	var out bytes.Buffer
	Print(ui.New(&out, true), tl)
	want := "" +
		"  タイムライン (時刻は次からの経過: kubectl delete teamspace beta)\n" +
		"    +0 ms  あなた              deleted beta                 read\n" +
		"    +4 ms  コントローラー      archive/beta.json written    file\n" +
		"  +900 ms  ガベージコレクター  namespace team-beta deleted  watch\n"
	if out.String() != want {
		t.Errorf("Print:\ngot:\n%s\nwant:\n%s", out.String(), want)
	}
}

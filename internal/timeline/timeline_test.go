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
// recorded (the action, what happened) is as recorded; how it was seen is
// said in the chosen language.
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
		"  タイムライン （「kubectl delete teamspace beta」からの経過時間）\n" +
		"    +0 ms  あなた              deleted beta                 読取\n" +
		"    +4 ms  コントローラー      archive/beta.json written    ファイル\n" +
		"  +900 ms  ガベージコレクター  namespace team-beta deleted  watch\n"
	if out.String() != want {
		t.Errorf("Print:\ngot:\n%s\nwant:\n%s", out.String(), want)
	}
}

// An entry's words (Words, Say) keep their English in What, as the file
// always had it, and beside it the messages, which Print says in the
// reader's language, aligned by display width; an entry without them, or
// with a message this cnpa does not know (another cnpa's), is What as
// recorded. A long what is cut by display width.
func TestWordsSaidInTheReadersLanguage(t *testing.T) {
	defer i18n.Set(i18n.Current())
	dir := t.TempDir()
	start := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	tl := &Timeline{Step: 5, Action: "kubectl delete resourcequota team-quota -n team-alpha", Start: start}
	tl.Put(start, Entry{Actor: You, Source: FromRead, Kind: KindAction}.Words(Say("timeline.what.you_deleted_uid", "Object", "team-quota", "UID", "a")))
	tl.Put(start.Add(4*time.Millisecond), Entry{Actor: Controller, Source: FromEvent}.Words(Literal("DriftCorrected: quota recreated"),
		Say("timeline.what.from_other", "From", "someone")))
	tl.Put(start.Add(5*time.Millisecond), Entry{Actor: Controller, Source: FromWatch}.Words(Say("timeline.what.no_such_message")))
	tl.Add(start.Add(6*time.Millisecond), QuotaController, "team-quota hard.pods 99 → 6", FromWatch)
	if tl.Entries[0].What != "deleted team-quota (uid a)" || tl.Entries[1].What != "DriftCorrected: quota recreated (from someone, not cnpa's controller)" {
		t.Fatalf("What is not the English: %q, %q", tl.Entries[0].What, tl.Entries[1].What)
	}
	tl.Entries[2].What = "what another cnpa wrote"
	if err := Save(dir, tl); err != nil {
		t.Fatal(err)
	}
	got, err := Load(dir, 5)
	if err != nil || len(got.Entries) != 4 || len(got.Entries[1].Said) != 2 {
		t.Fatalf("Load: %+v, %v", got, err)
	}
	i18n.Set(i18n.Japanese)
	var out bytes.Buffer
	Print(ui.New(&out, true), got)
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	// The heading, and the action it is since on the line below when
	// both are wider than 80 columns together, as in Japanese here.
	if len(lines) < 6 || lines[0] != "  タイムライン" || !strings.Contains(lines[1], "kubectl delete resourcequota team-quota -n team-alpha") || ui.Width(lines[1]) > ui.Cols {
		t.Errorf("Print in Japanese: want the heading, then the action below within 80 columns:\n%s", out.String())
	}
	// Every row within 80 columns: a long entry wraps in its column
	// (issue 57); the text is whole once its lines are joined.
	joined := ""
	for _, l := range lines {
		if ui.Width(l) > ui.Cols {
			t.Errorf("%d columns: %q", ui.Width(l), l)
		}
		joined += strings.TrimSpace(l)
	}
	for _, want := range []string{"team-quotaを削除した（uid a）", "DriftCorrected: quota recreated", "（送り主はsomeone。cnpaのコントローラーではない）",
		"what another cnpa wrote", "team-quota hard.pods 99 → 6", "読取", "イベント"} {
		if !strings.Contains(strings.ReplaceAll(joined, " ", ""), strings.ReplaceAll(want, " ", "")) {
			t.Errorf("Print in Japanese: no %q in\n%s", want, out.String())
		}
	}
	// The sources line up: every first line of an entry is as wide up to
	// its source.
	var firsts []string
	for _, l := range lines[2:] {
		if strings.HasPrefix(strings.TrimLeft(l, " "), "+") {
			firsts = append(firsts, l)
		}
	}
	for _, l := range firsts[1:] {
		if w, want := ui.Width(l[:strings.LastIndex(l, "  ")]), ui.Width(firsts[0][:strings.LastIndex(firsts[0], "  ")]); w != want {
			t.Errorf("row %q: %d columns before its source, want %d", l, w, want)
		}
	}
	if c := clip(strings.Repeat("あ", 60), 90); ui.Width(c) > 90 || ui.Width(c) < 89 || !strings.HasSuffix(c, "…") {
		t.Errorf("clip: %d columns, %q", ui.Width(c), c)
	}
	if c := clip(strings.Repeat("a", 100), 90); c != strings.Repeat("a", 89)+"…" {
		t.Errorf("clip of ASCII: %q", c)
	}
}

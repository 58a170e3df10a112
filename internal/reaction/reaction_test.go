package reaction

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/timeline"
)

func TestParseLogLine(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	ctlTime := time.Date(2026, 12, 1, 9, 0, 1, 234000000, time.UTC)
	alpha := Only("alpha")
	cases := []struct {
		name, engine, line string
		ok                 bool
		want               string
		wantTime           time.Time
	}{
		{"go start line, the controller's own time", labenv.EngineGo,
			`time=2026-12-01T09:00:01.234Z level=INFO msg="controller started" workers=8 interval=3s`, true, "controller started", ctlTime},
		{"go error about alpha", labenv.EngineGo,
			`time=2026-12-01T09:00:01.234Z level=ERROR msg="reconcile failed, retrying with backoff" teamspace=alpha err="write status: conflict"`,
			true, "reconcile failed, retrying with backoff teamspace=alpha err=write status: conflict", ctlTime},
		{"go event lines: the Events watch has them", labenv.EngineGo,
			`time=2026-12-01T09:00:01.234Z level=INFO msg=event teamspace=alpha type=Normal reason=Synced message="x"`, false, "", at},
		{"go line about another TeamSpace", labenv.EngineGo,
			`time=2026-12-01T09:00:01.234Z level=ERROR msg="reconcile failed" teamspace=beta err=x`, false, "", at},
		{"shell line about alpha", labenv.EngineShell,
			`teamspace alpha: quota team-alpha/team-quota created with pods=6 cpu="500m"`, true,
			`teamspace alpha: quota team-alpha/team-quota created with pods=6 cpu="500m"`, at},
		{"shell line about another", labenv.EngineShell, `teamspace beta: status observedGeneration=1 namespace=team-beta`, false, "", at},
		{"shell error line", labenv.EngineShell, `reconcile.sh: cannot read the cluster`, true, `reconcile.sh: cannot read the cluster`, at},
		{"own: anything printed", labenv.EngineOwn, `  fixed alpha!  `, true, `fixed alpha!`, at},
		{"own: blank", labenv.EngineOwn, `   `, false, "", at},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			gotTime, got, ok := parseLogLine(c.engine, service.LogLine{Time: at, Text: c.line}, alpha)
			if ok != c.ok || (ok && (got != c.want || !gotTime.Equal(c.wantTime))) {
				t.Errorf("got %v %q at %v, want %v %q at %v", ok, got, gotTime, c.ok, c.want, c.wantTime)
			}
		})
	}
}

func TestParseLogfmt(t *testing.T) {
	got := parseLogfmt(`time=x msg="a \"quoted\" word" k=v empty="" last=z`)
	want := map[string]string{"time": "x", "msg": `a "quoted" word`, "k": "v", "empty": "", "last": "z"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: got %q, want %q", k, got[k], v)
		}
	}
}

// TestDatedByEffect: a deletionTimestamp seen after the archive record it
// caused is dated just before it; an archive after the release stays put.
func TestDatedByEffect(t *testing.T) {
	ms := time.Millisecond
	tl := &timeline.Timeline{Entries: []timeline.Entry{
		{At: 0, Kind: timeline.KindAction, Object: "teamspace beta"},
		{At: 12 * ms, Kind: timeline.KindArchived, Object: "teamspace beta"},
		{At: 14 * ms, Kind: timeline.KindDeletionTimestamp, Object: "teamspace beta", What: "deletionTimestamp set"},
		{At: 19 * ms, Kind: timeline.KindFinalizerRemoved, Object: "teamspace beta"},
		{At: 3 * ms, Kind: timeline.KindDeletionTimestamp, Object: "teamspace other"},
	}}
	datedByEffect(tl)
	tl.Sorted()
	var kinds []string
	for _, e := range tl.Entries {
		if e.Object == "teamspace beta" {
			kinds = append(kinds, e.Kind)
		}
	}
	want := []string{timeline.KindAction, timeline.KindDeletionTimestamp, timeline.KindArchived, timeline.KindFinalizerRemoved}
	if !slices.Equal(kinds, want) {
		t.Fatalf("order: got %v, want %v", kinds, want)
	}
	d := tl.Find(timeline.KindDeletionTimestamp, "teamspace beta")
	if d.At != 12*ms-1 || d.Values["seen_at_ns"] != "14000000" || !strings.Contains(d.What, "seen at +14 ms") {
		t.Errorf("got %+v, want it a nanosecond before +12 ms, saying it was seen at +14 ms", d)
	}
	if o := tl.Find(timeline.KindDeletionTimestamp, "teamspace other"); o.At != 3*ms {
		t.Errorf("another TeamSpace's entry moved to %s", o.At)
	}
}

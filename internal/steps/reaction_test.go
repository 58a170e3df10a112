package steps

import (
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/service"
)

func TestParseLogLine(t *testing.T) {
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	ctlTime := time.Date(2026, 12, 1, 9, 0, 1, 234000000, time.UTC)
	alpha := only("alpha")
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

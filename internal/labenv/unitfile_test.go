package labenv

import (
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/service"
)

// CheckUnit: one line per miss of LAB.md step 4, each naming what to
// write; the lab's own unit, and the script restarted every 3 s, pass.
func TestCheckUnit(t *testing.T) {
	e := &Env{Dir: "/root/cnpa-op"}
	loop := "/bin/bash -c 'while true; do /root/cnpa-op/reconcile.sh; sleep 3; done'"
	tests := []struct {
		name string
		unit string
		want []string
	}{
		{"the lab's", "[Service]\nExecStart=" + loop + "\nRestart=always\n[Install]\nWantedBy=multi-user.target\n", nil},
		{"restarted every 3 s", "[Service]\nExecStart=/root/cnpa-op/reconcile.sh\nRestart=always\nRestartSec=3\n[Install]\nWantedBy=multi-user.target\n", nil},
		{"Restart=on-failure", "[Service]\nExecStart=" + loop + "\nRestart=on-failure\n[Install]\nWantedBy=multi-user.target\n",
			[]string{"Restart=on-failure: write Restart=always"}},
		{"once, no install", "[Service]\nExecStart=/root/cnpa-op/reconcile.sh\nRestart=always\n",
			[]string{"runs reconcile.sh once: loop it every 3 s", "no WantedBy= under [Install]"}},
		{"another script", "[Service]\nExecStart=/bin/bash -c 'while true; do /tmp/x.sh; sleep 3; done'\nRestart=always\n[Install]\nWantedBy=multi-user.target\n",
			[]string{"does not run /root/cnpa-op/reconcile.sh"}},
		{"sleep 30", "[Service]\nExecStart=/bin/bash -c 'while true; do /root/cnpa-op/reconcile.sh; sleep 30; done'\nRestart=always\n[Install]\nWantedBy=multi-user.target\n",
			[]string{"sleeps 30 s between runs"}},
	}
	for _, tt := range tests {
		u, err := service.ParseUnit([]byte(tt.unit))
		if err != nil {
			t.Fatal(err)
		}
		got := e.CheckUnit(u)
		if len(got) != len(tt.want) {
			t.Errorf("%s: %q, want lines with %q", tt.name, got, tt.want)
			continue
		}
		for i, w := range tt.want {
			if !strings.Contains(got[i], w) {
				t.Errorf("%s: line %q, want it to hold %q", tt.name, got[i], w)
			}
		}
	}
}

// Package faults breaks the TeamSpace controller on purpose and checks that
// it loses nothing and lets no one in: the API server going away, SIGKILL
// around the archive write, a hostile writer, a dead leader, and a
// least-privilege ServiceAccount. The controller always runs as a real
// `cnpa controller` subprocess (test/kit's StartController), so it can be
// paused, killed and restarted, against a real control plane
// (test/kit/cluster). The crash tests run a cnpa built with
// -tags faultinject (kit.CtrlOpts.Tags), the only build CNPA_FAULT reaches.
//
// Tests run one after another and share one cluster (TestAPIServerOutage
// starts its own, since it stops the API server); each uses its own
// TeamSpace names and archive dir, and removes its TeamSpaces before it
// ends, because every running controller reconciles every TeamSpace.
package faults

import (
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// The shared cluster audits every write, and has a user of its own for
// each controller whose writes a test must tell apart (leaderUsers).
func TestMain(m *testing.M) {
	cluster.MainWith(m, cluster.Options{Audit: true, AuditAllOf: []string{identity.Username}, Users: leaderUsers[:]})
}

// leaderUsers are the users of TestPausedLeaderDoesNotWrite's A and B.
var leaderUsers = [2]string{"cnpa-leader-a", "cnpa-leader-b"}

// logErrors counts the error lines in a controller log: slog's
// level=ERROR (the controller's own) and klog's E-lines (client-go:
// reflectors, event broadcaster, leader election).
func logErrors(log string) (slogErrors, klogErrors, lines int) {
	for _, l := range strings.Split(strings.TrimRight(log, "\n"), "\n") {
		if l == "" {
			continue
		}
		lines++
		switch {
		case strings.Contains(l, "level=ERROR"):
			slogErrors++
		case len(l) > 5 && l[0] == 'E' && l[1] >= '0' && l[1] <= '9':
			klogErrors++
		}
	}
	return
}

// killedBySIGKILL tells whether a process state is death by SIGKILL.
func killedBySIGKILL(st *os.ProcessState) bool {
	ws, ok := st.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL
}

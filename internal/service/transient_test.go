package service

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// A run of reconcile.sh as cnpa-op.service runs its loop: every directive
// of the unit's [Service] section but those of a long-lived service, as
// systemd-run properties with the unit's specifiers resolved (systemd
// expands none in a transient unit's), then the command.
func TestTransientRun(t *testing.T) {
	u := Unit{Engine: "own", Argv: []string{"/usr/bin/bash", "-c", "while true; do '/root/lab %x/reconcile.sh'; sleep 3; done"},
		Path: "/usr/bin:/bin", ArchiveDir: "/root/lab %x/archive", Dir: "/root/lab %x/archive", User: User,
		Credential: "/root/lab %x/cnpa-op.kubeconfig", Reads: []string{"/root/lab %x"}}
	const name = "cnpa-op-run-abc123.service"
	args, err := TransientRun(u, name, []string{"/root/lab %x/reconcile.sh"}, []string{"CNPA_E2E=1"}, nil, 90*time.Second+time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"--wait", "--pipe", "--unit=" + name,
		"--property=User=cnpa-op", "--property=Group=cnpa-op",
		"--property=LoadCredential=kubeconfig:/root/lab %x/cnpa-op.kubeconfig",
		`--property=Environment="KUBECONFIG=/run/credentials/` + name + `/kubeconfig"`,
		`--property=Environment="CNPA_ARCHIVE_DIR=/root/lab %x/archive"`,
		"--property=ProtectHome=tmpfs", `--property=BindPaths="/root/lab %x/archive"`, `--property=BindReadOnlyPaths="/root/lab %x"`,
		"--property=ProtectSystem=strict", "--property=NoNewPrivileges=yes", "--property=SystemCallFilter=~@privileged",
		"--property=RuntimeMaxSec=91", "--setenv=CNPA_E2E=1",
	} {
		if !slices.Contains(args, want) {
			t.Errorf("systemd-run lacks %q:\n%s", want, strings.Join(args, "\n"))
		}
	}
	for _, a := range args {
		for _, not := range []string{"ExecStart=", "Restart=", "RestartSec=", "Type=", "KillSignal=", "TimeoutStopSec=", "%d", "%%"} {
			if strings.HasPrefix(a, "--property=") && strings.Contains(a, not) {
				t.Errorf("systemd-run property %q: a single run takes no %q", a, not)
			}
		}
	}
	if got := args[len(args)-2:]; !slices.Equal(got, []string{"--", "/root/lab %x/reconcile.sh"}) {
		t.Errorf("the command: got %q, want the script after --", got)
	}
}

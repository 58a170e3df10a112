package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServiceStartUsesTheLearnersUnit is the newcomer's stuck moment 7
// and 17 (issue 57) as it happened: their own unit in the unit dir,
// process mode, nothing installed yet. `cnpa service status` says stopped
// with what to run, and no line of context without a reason; `cnpa
// service start` finds the unit and uses it as step 4 would; the unit
// runs reconcile.sh once per start with Restart=always, and process mode
// starts it again after RestartSec, as systemd does: it keeps running.
func TestServiceStartUsesTheLearnersUnit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir, unitDir := filepath.Join(root, "cnpa-op"), filepath.Join(root, "systemd")
	for _, d := range []string{dir, unitDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	runs := filepath.Join(root, "runs")
	script := filepath.Join(dir, "reconcile.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho run >> '"+runs+"'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	unit := "[Service]\nExecStart=" + script + "\nRestart=always\nRestartSec=1\n[Install]\nWantedBy=multi-user.target\n"
	if err := os.WriteFile(filepath.Join(unitDir, "cnpa-op.service"), []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	// `cnpa service` acts on the machine and never asks the cluster.
	kc := unreachableKubeconfig(t)
	env := []string{"CNPA_DIR=" + dir, "CNPA_UNIT_DIR=" + unitDir, "KUBECONFIG=" + kc}
	svc := func(args ...string) (int, string, string) {
		t.Helper()
		return cnpaEnv(t, env, append(append([]string{"service"}, args...), "--service-manager", "process")...)
	}
	t.Cleanup(func() { svc("stop") })

	for _, lang := range []string{"en", "ja"} {
		code, out, errOut := cnpaEnv(t, append(env, "CNPA_LANG="+lang), "service", "status", "--service-manager", "process")
		if code != 1 || strings.TrimSpace(errOut) != "" || !strings.Contains(out, "`cnpa service start`") {
			t.Errorf("%s: service status, stopped: exit %d, want 1 with the ✗ line and what to run on stdout and nothing on stderr\nstdout:\n%s\nstderr:\n%s", lang, code, out, errOut)
		}
	}
	code, out, errOut := svc("start")
	if code != 0 || strings.Contains(errOut, "argv.json") || !strings.Contains(errOut, "your unit") {
		t.Fatalf("service start with the learner's unit: exit %d, want 0 and a note that their unit is used\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// Started again after a run: two runs within the deadline.
	deadline := time.Now().Add(20 * time.Second)
	for n := 0; n < 2; {
		data, _ := os.ReadFile(runs)
		if n = strings.Count(string(data), "run"); n >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("reconcile.sh ran %d times in 20 s, want 3 (Restart=always, RestartSec=1)", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if code, out, errOut := svc("status"); code != 0 || !strings.Contains(out, "✓ running") {
		t.Errorf("service status between runs: exit %d, want 0 and running\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	if code, out, errOut := svc("stop"); code != 0 {
		t.Errorf("service stop: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	data, _ := os.ReadFile(runs)
	time.Sleep(1500 * time.Millisecond) // longer than RestartSec: a loop left behind would run again
	if again, _ := os.ReadFile(runs); len(again) != len(data) {
		t.Errorf("reconcile.sh still runs after service stop: %q then %q", data, again)
	}
	if code, _, errOut := svc("status"); code != 1 || strings.TrimSpace(errOut) != "" {
		t.Errorf("service status after stop: exit %d, stderr %q; want 1 and no bare error line", code, errOut)
	}
}

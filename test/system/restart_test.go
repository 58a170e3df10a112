package system

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/test/kit/cluster"
	"github.com/labhub/cnpa/test/nspawn"
)

// TestLearnersUnitRestartedEveryRun is the newcomer's valid unit refused
// (issue 57), under real systemd: their own cnpa-op.service runs
// reconcile.sh once per start, and Restart=always with RestartSec=3
// keeps the lab's 3-second interval. Between two runs systemd holds it
// in activating/auto-restart: it keeps running, as the lab asks. Step 4
// passes (its probe TeamSpace converges by itself), `cnpa service status`
// says running, also caught between two runs, and `cnpa check`'s step 4
// passes.
func TestLearnersUnitRestartedEveryRun(t *testing.T) {
	nspawn.Require(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	t.Cleanup(cancel)
	cache, err := nspawn.CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	rootfs, err := nspawn.EnsureRootFS(ctx, cache, nil)
	if err != nil {
		t.Fatal(err)
	}
	bin := hostBinaries(t)
	cl, err := cluster.Start(ctx, cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Stop)
	c, err := nspawn.Boot(ctx, rootfs, nspawn.Options{Binds: []nspawn.Bind{{Host: bin, Container: optDir}}, Overlay: true, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	kc, err := os.ReadFile(cl.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.WriteFile("/etc/rancher/k3s/k3s.yaml", kc, 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"PATH=" + optDir + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "NO_COLOR=1"}
	cnpa := func(args ...string) (string, string, error) {
		return c.ExecEnv(ctx, env, append([]string{optDir + "/cnpa"}, args...)...)
	}
	// The learner's reconcile.sh (cnpa's shell reference, one pass) and
	// their unit, written before any step.
	if out, errOut, err := cnpa("scaffold", "reconcile.sh", "--engine", "shell"); err != nil {
		t.Fatalf("scaffold: %v\n%s%s", err, out, errOut)
	}
	unit := "[Unit]\nDescription=my TeamSpace controller\n[Service]\nEnvironment=KUBECONFIG=/etc/rancher/k3s/k3s.yaml\n" +
		"Environment=PATH=" + optDir + ":/usr/bin:/bin\nExecStart=" + evidenceDir + "/reconcile.sh\nRestart=always\nRestartSec=3\n" +
		"[Install]\nWantedBy=multi-user.target\n"
	if err := c.WriteFile(unitPath, []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, step := range []string{"1", "2", "3", "4"} {
		out, errOut, err := cnpa("step", step, "--engine", "own", "--service-manager", "systemd")
		if err != nil {
			journal, _, _ := c.ExecEnv(ctx, env, "journalctl", "-u", "cnpa-op", "--no-pager", "-n", "40")
			t.Fatalf("cnpa step %s with the learner's once-per-start unit: %v\n%s\n%s\njournal:\n%s", step, err, out, errOut, journal)
		}
		if step == "4" {
			t.Logf("step 4:\n%s", out)
		}
	}
	// Caught between two runs: systemd says activating/auto-restart, and
	// cnpa says running, restarting.
	var seen string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline) && seen == ""; time.Sleep(100 * time.Millisecond) {
		out, _, err := cnpa("service", "status", "-o", "json")
		var st struct{ Active, Restarting bool }
		if json.Unmarshal([]byte(out), &st) != nil {
			t.Fatalf("service status -o json: %v\n%s", err, out)
		}
		if !st.Active {
			t.Fatalf("service status of a Restart=always unit: not active: %s", out)
		}
		if st.Restarting {
			sys, _, _ := c.ExecEnv(ctx, env, "systemctl", "show", "-p", "ActiveState,SubState", "cnpa-op")
			seen = strings.TrimSpace(out) + " / systemd: " + strings.ReplaceAll(strings.TrimSpace(sys), "\n", " ")
		}
	}
	if seen == "" {
		t.Fatal("in 30 s service status never saw the unit between two runs (restarting)")
	}
	t.Logf("between two runs: %s", seen)
	out, errOut, err := cnpa("check", "--step", "4", "-o", "json", "--timeout", "90s")
	var rep struct {
		Failed int
		Checks []struct{ ID, Status, Actual string }
	}
	if jerr := json.Unmarshal([]byte(out), &rep); jerr != nil || rep.Failed != 0 {
		t.Errorf("cnpa check --step 4: err=%v failed=%d\n%s\n%s", err, rep.Failed, out, errOut)
	}
	for _, ch := range rep.Checks {
		if ch.ID == "step4.service_active" {
			t.Logf("step4.service_active: %s (%s)", ch.Status, ch.Actual)
		}
	}
	stressRestart(ctx, t, c, env)
}

// stressRestart is cnpa stress --faults restart under real systemd, on
// the container and cluster of TestLearnersUnitRestartedEveryRun: its
// once-per-start unit (RestartSec=3) is started at most 4 times in 10 s
// while the API server refuses connections, and passes; the learner's
// loop under `set -e` with the default RestartSec= (100 ms) ends at the
// first refused call and systemd gives up on it ("Start request repeated
// too quickly", the unit failed): restart fails by name (start_limit),
// and the run leaves the unit active again.
func stressRestart(ctx context.Context, t *testing.T, c *nspawn.Container, env []string) {
	t.Helper()
	stress := func(wantCode int) map[string]any {
		t.Helper()
		out, errOut, err := c.ExecEnv(ctx, env, optDir+"/cnpa", "stress", "--faults", "restart", "-o", "json", "--service-manager", "systemd")
		var rep struct {
			Baseline string
			Faults   []map[string]any
		}
		code := 0
		if err != nil {
			code = -1
			if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
				code = ee.ExitCode()
			}
		}
		if jerr := json.Unmarshal([]byte(out), &rep); jerr != nil || code != wantCode || rep.Baseline != "" || len(rep.Faults) != 1 {
			journal, _, _ := c.ExecEnv(ctx, env, "journalctl", "-u", "cnpa-op", "--no-pager", "-n", "30")
			t.Fatalf("cnpa stress --faults restart under systemd: exit %d (%v), want %d\n%s\n%s\njournal:\n%s", code, err, wantCode, out, errOut, journal)
		}
		t.Logf("restart under systemd: %v in %v s, findings %v", rep.Faults[0]["status"], rep.Faults[0]["seconds"], rep.Faults[0]["findings"])
		// Running: active, or between two runs of a once-per-start unit.
		if got, _, _ := c.ExecEnv(ctx, env, "systemctl", "show", "-p", "ActiveState,SubState,Result,NRestarts", "cnpa-op"); !strings.Contains(got, "ActiveState=active") && !strings.Contains(got, "SubState=auto-restart") {
			journal, _, _ := c.ExecEnv(ctx, env, "journalctl", "-u", "cnpa-op", "--no-pager", "-n", "30")
			t.Errorf("after cnpa stress the unit does not run: %s\njournal:\n%s", strings.ReplaceAll(strings.TrimSpace(got), "\n", " "), journal)
		}
		return rep.Faults[0]
	}
	if f := stress(0); f["status"] != "pass" {
		t.Errorf("the once-per-start unit with RestartSec=3: restart %v, want pass: %v", f["status"], f["findings"])
	}
	unit := "[Unit]\nDescription=my TeamSpace controller (the loop under set -e)\n[Service]\n" +
		"Environment=KUBECONFIG=/etc/rancher/k3s/k3s.yaml\nEnvironment=PATH=" + optDir + ":/usr/bin:/bin\n" +
		"ExecStart=/bin/bash -c 'set -e; while true; do " + evidenceDir + "/reconcile.sh; sleep 3; done'\nRestart=always\n" +
		"[Install]\nWantedBy=multi-user.target\n"
	if err := c.WriteFile(unitPath, []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, err := c.ExecEnv(ctx, env, optDir+"/cnpa", "step", "4", "--service-manager", "systemd"); err != nil {
		t.Fatalf("cnpa step 4 with the set -e loop: %v\n%s%s", err, out, errOut)
	}
	f := stress(1)
	findings, _ := f["findings"].([]any)
	first := ""
	if len(findings) > 0 {
		first, _ = findings[0].(map[string]any)["found"].(string)
		if p, _ := findings[0].(map[string]any)["property"].(string); p != "start_limit" {
			t.Errorf("the set -e loop: first finding %v, want start_limit", findings[0])
		}
	}
	// systemd 252 (Debian 12) says "Start request repeated too quickly"
	// and keeps Result=exit-code; later ones say start-limit-hit.
	if f["status"] != "fail" || !strings.Contains(first, "is failed") {
		journal, _, _ := c.ExecEnv(ctx, env, "journalctl", "-u", "cnpa-op", "--no-pager", "-n", "60")
		t.Errorf("the set -e loop under systemd: restart %v, first finding %q; want fail, the unit failed\njournal:\n%s", f["status"], first, journal)
	}
	// kill -9 of cnpa stress once the unit has failed: the run cannot put
	// it back, and the next cnpa command that finds the leftover drop-in
	// (here service status) starts it again, as it was before the run.
	script := optDir + `/cnpa stress --faults restart --service-manager systemd >/dev/null 2>&1 &
pid=$!
for i in $(seq 240); do systemctl is-failed -q cnpa-op && break; sleep 0.5; done
systemctl is-failed cnpa-op
kill -9 $pid`
	if out, errOut, err := c.ExecEnv(ctx, env, "bash", "-c", script); err != nil || strings.TrimSpace(out) != "failed" {
		t.Fatalf("kill -9 of cnpa stress with the unit failed: %v\n%s%s", err, out, errOut)
	}
	if out, errOut, err := c.ExecEnv(ctx, env, optDir+"/cnpa", "service", "status", "--service-manager", "systemd"); err != nil {
		t.Errorf("cnpa service status after the killed run: %v\n%s%s", err, out, errOut)
	}
	if got, _, _ := c.ExecEnv(ctx, env, "systemctl", "is-active", "cnpa-op"); strings.TrimSpace(got) != "active" {
		journal, _, _ := c.ExecEnv(ctx, env, "journalctl", "-u", "cnpa-op", "--no-pager", "-n", "20")
		t.Errorf("after the killed run and cnpa service status: systemctl is-active cnpa-op: %q, want active\njournal:\n%s", strings.TrimSpace(got), journal)
	}
	if out, _, _ := c.ExecEnv(ctx, env, "bash", "-c", "ls /run/systemd/system/cnpa-op.service.d/ 2>/dev/null"); strings.TrimSpace(out) != "" {
		t.Errorf("the killed run's drop-in is still there: %s", out)
	}
}

package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// TestStartOver is issue 39's "starting over always works", on a control
// plane of its own (the lab's fixed names), as the newcomer review did it:
// --engine own, process mode, the learner's own reconcile.sh and evidence
// written by hand. Each row of the review it covers is reproduced, then
// every hint printed on the way is followed, and the test sees it work:
//   - row 15: `cnpa step 3` after reconcile.sh changed runs the new
//     script, judges it, and says which evidence the new run replaces;
//   - row 2: a hand-written `"status_via_main": ""` fails step 2 with the
//     value to write, and `cnpa check --step 2` says the same; writing it
//     fixes both;
//   - row 14: `cnpa explain 7` shows `cnpa service stop` in process mode;
//   - row 4: a CRD without `required: [pods]` and `maximum: 50` gets one
//     hint per field naming what to add to crd.yaml; adding it fixes it;
//   - row 1 (the blocker): after `cnpa reset --yes` the learner's evidence
//     is moved aside into a folder reset names, the engine stays own, and
//     `cnpa step all` passes; a stale hand-written before.json (the old
//     alpha's uid) fails step 1 with exit 1, never "kept" with exit 0,
//     and `cnpa step all --force` keeps it as before.json.bak-<time> and
//     passes; a report.json by hand is judged key by key.
func TestStartOver(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Minute)
	defer cancel()
	c, err := cluster.Start(ctx, cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Stop)
	bin := kit.CnpaBinary(t)
	work := t.TempDir()
	dir := filepath.Join(work, "cnpa-op")
	units := filepath.Join(work, "units")
	env := append(c.Env(), "NO_COLOR=1", "HOME="+work)
	cnpa := func(args ...string) (int, string) {
		code, stdout, stderr := run(ctx, t, bin, env, append([]string{"--kubeconfig", c.Kubeconfig, "--dir", dir}, args...)...)
		return code, stdout + stderr
	}
	t.Cleanup(func() {
		run(context.Background(), t, bin, env, "--kubeconfig", c.Kubeconfig, "--dir", dir, "service", "stop")
	})
	mustPass := func(args ...string) string {
		t.Helper()
		start := time.Now()
		code, out := cnpa(args...)
		t.Logf("cnpa %s: exit %d in %s", strings.Join(args, " "), code, time.Since(start).Round(time.Second))
		if code != 0 {
			_, logs := cnpa("service", "logs", "-n", "30")
			t.Fatalf("cnpa %s: exit %d\n%s\nservice log:\n%s", strings.Join(args, " "), code, out, logs)
		}
		return out
	}
	mustFail := func(args ...string) string {
		t.Helper()
		code, out := cnpa(args...)
		if code != 1 {
			t.Fatalf("cnpa %s: exit %d, want 1\n%s", strings.Join(args, " "), code, out)
		}
		return out
	}
	contains := func(what, out string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(out, w) {
				t.Errorf("%s does not say %q:\n%s", what, w, out)
			}
		}
	}
	path := func(name string) string { return filepath.Join(dir, name) }
	read := func(name string) string {
		t.Helper()
		data, err := os.ReadFile(path(name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	write := func(name, data string) {
		t.Helper()
		if err := os.WriteFile(path(name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// byHand rewrites an evidence file as a learner writes it: the same
	// values, their own layout, so cnpa's manifest no longer knows it.
	byHand := func(name string) {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal([]byte(read(name)), &m); err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(m)
		write(name, string(data)+"\n")
	}

	// The learner's lab: steps 1 and 2, then their own reconcile.sh (the
	// shell reference, changed by a line: theirs, as the review's was).
	mustPass("step", "1", "--engine", "own", "--service-manager", "process", "--unit-dir", units)
	mustPass("step", "2")
	mustPass("scaffold", "reconcile.sh", "--engine", "shell")
	script := read(labenv.ScriptName) + "# mine\n"
	if err := os.WriteFile(path(labenv.ScriptName), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	byHand(lab.BeforeFile)
	byHand(lab.GenerationFile)
	out := mustPass("step", "all")
	contains("step all over hand-written before.json", out,
		"before.json is yours (it changed since cnpa wrote it): judged against the cluster key by key, every key holds, so it is kept")

	t.Run("row 15: step 3 after reconcile.sh changed", func(t *testing.T) {
		reconcile := read(lab.ReconcileFile)
		script += "# a fourth draft\n"
		if err := os.WriteFile(path(labenv.ScriptName), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		out := mustPass("step", "3")
		contains("step 3 after a change", out, "changed since step 3 ran it: running the new script twice and judging it",
			"the new runs replace no evidence", "✓ second pass writes")
		if now := read(lab.ReconcileFile); now != reconcile {
			t.Errorf("reconcile.json changed although drift.json depends on it: got %s, want %s", now, reconcile)
		}
		// Judged as it is now: a rerun keeps.
		contains("step 3 again", mustPass("step", "3"), "reconcile.json already written and drift.json depends on it")
	})

	t.Run("row 2: status_via_main written as a string", func(t *testing.T) {
		good := read(lab.GenerationFile)
		write(lab.GenerationFile, strings.Replace(good, `"status_via_main":null`, `"status_via_main":""`, 1))
		fix := "write `\"status_via_main\": null` in generation.json"
		out := mustFail("step", "2")
		contains("step 2", out, "✗ status_via_main", fix)
		if strings.Contains(out, "start over") || strings.Contains(out, "kept") {
			t.Errorf("step 2 over a wrong hand-written value sends the learner elsewhere:\n%s", out)
		}
		_, out = cnpa("check", "--step", "2")
		contains("cnpa check --step 2", out, fix)
		// The hint, followed: write null.
		write(lab.GenerationFile, good)
		contains("step 2 after the fix", mustPass("step", "2"), "generation.json is yours")
		mustPass("check", "--step", "2")
	})

	t.Run("row 14: explain in process mode", func(t *testing.T) {
		out := mustPass("explain", "7")
		contains("cnpa explain 7", out, "$ cnpa service stop", "$ cnpa service start")
		if strings.Contains(out, "systemctl") {
			t.Errorf("cnpa explain 7 in process mode shows systemctl:\n%s", out)
		}
		// The hint, followed: the commands it shows work here.
		mustPass("service", "stop")
		mustPass("service", "start")
	})

	t.Run("row 4: CRD without required and maximum", func(t *testing.T) {
		crd := strings.Replace(strings.Replace(string(assets.CRD), `            required: ["pods"]`+"\n", "", 1), "                maximum: 50\n", "", 1)
		if crd == string(assets.CRD) || strings.Contains(crd, "maximum: 50") {
			t.Fatal("assets/crd.yaml changed: this test's edit no longer applies")
		}
		write("crd.yaml", crd)
		// Applied as step 1's field manager: an apply by another one would
		// leave the fields step 1's apply owns.
		if out, err := kit.Kubectl(ctx, c, "", nil, "apply", "--server-side", "--force-conflicts", "--field-manager=cnpa-lab", "-f", path("crd.yaml")); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		apply := func() {
			t.Helper()
			if out, err := kit.Kubectl(ctx, c, "", nil, "apply", "--server-side", "--force-conflicts", "-f", path("crd.yaml")); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
		}
		_, out := cnpa("check", "--step", "1")
		schema := "spec.versions[0].schema.openAPIV3Schema.properties.spec"
		contains("cnpa check --step 1", kit.Unwrapped(out), "✗ step1.crd.pods_required", "✗ step1.crd.pods_maximum",
			"in "+path("crd.yaml")+", "+schema+": add required: [pods]; then apply it",
			"in "+path("crd.yaml")+", "+schema+".properties.pods: add maximum: 50; then apply it")
		// The hint, followed: add both to crd.yaml and apply it, with the
		// command it gives.
		write("crd.yaml", string(assets.CRD))
		apply()
		mustPass("check", "--step", "1")
	})

	// Row 1, the blocker: start over with a learner's evidence in the dir.
	report := read(lab.ReportFile)
	byHand(lab.ReportFile)
	out = mustPass("reset", "--yes")
	// Unwrapped: reset wraps at 80 columns, and the path may start a line.
	aside := regexp.MustCompile(`into (\S+/own-\d{8}T\d{6}Z)/`).FindStringSubmatch(kit.Unwrapped(out))
	if aside == nil {
		t.Fatalf("reset does not name the folder it moved your evidence into:\n%s", out)
	}
	for _, f := range []string{lab.BeforeFile, lab.GenerationFile, lab.ReportFile} {
		if _, err := os.Stat(filepath.Join(aside[1], f)); err != nil {
			t.Errorf("reset did not move your %s aside: %v", f, err)
		}
		if _, err := os.Stat(path(f)); err == nil {
			t.Errorf("reset left your %s in the evidence dir", f)
		}
	}
	if now := read(labenv.ScriptName); now != script {
		t.Errorf("reset changed or removed your reconcile.sh")
	}
	if st := state(t, dir); st.Engine != labenv.EngineOwn || st.ServiceManager != "process" || st.UnitDir != units || st.EngineLocked || st.ServiceLocked {
		t.Errorf("state after reset: %+v, want engine own, process, %s kept and nothing locked", st, units)
	}

	// A stale before.json by hand (the old alpha's uid): step 1 judges it,
	// fails, and says how to go on; it never keeps it with exit 0.
	stale, err := os.ReadFile(filepath.Join(aside[1], lab.BeforeFile))
	if err != nil {
		t.Fatal(err)
	}
	write(lab.BeforeFile, string(stale))
	out = mustFail("step", "1")
	contains("step 1 over a stale before.json", out, "✗ uid", "TeamSpace alpha does not exist", "`cnpa step 1 --force` (it keeps yours as before.json.bak-<time>)")
	if strings.Contains(out, "kept") {
		t.Errorf("step 1 says kept over a before.json that no longer matches the cluster:\n%s", out)
	}
	// The hint, followed: --force measures again and keeps theirs.
	mustPass("step", "all", "--force")
	baks, _ := filepath.Glob(path(lab.BeforeFile + ".bak-*"))
	if len(baks) != 1 {
		t.Fatalf("step all --force: got backups %v, want one before.json.bak-<time>", baks)
	} else if data, _ := os.ReadFile(baks[0]); string(data) != string(stale) {
		t.Errorf("%s: got %s, want your before.json %s", baks[0], data, stale)
	}
	if now := read(lab.BeforeFile); now == string(stale) {
		t.Errorf("before.json after step all --force is still the stale one")
	}

	// report.json by hand: judged key by key.
	var rep map[string]any
	if err := json.Unmarshal([]byte(report), &rep); err != nil {
		t.Fatal(err)
	}
	fresh := read(lab.ReportFile)
	rep["trigger"] = "edge"
	data, _ := json.Marshal(rep)
	write(lab.ReportFile, string(data))
	out = mustFail("step", "8")
	contains("step 8 over a wrong report.json", out, "✗ trigger", "write `\"trigger\": \"level\"` in report.json")
	write(lab.ReportFile, fresh+"\n")
	contains("step 8 over a right report.json by hand", mustPass("step", "8"), "report.json is yours")

	// Once more, without --force: reset, step all, check.
	mustPass("reset", "--yes")
	mustPass("step", "all")
	mustPass("check", "--timeout", "90s")
}

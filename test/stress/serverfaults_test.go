package stress

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/test/kit"
)

// The faults from the API server's side (issue 60): restart, gone,
// forbidden, throttle. Each learner-style controller kept in
// testdata/stress runs in one lab per test, its reconcile.sh (and unit)
// swapped between the runs, so that a lab's steps are paid once.

// serverLab is a lab on the shared cluster, reset after the test.
func serverLab(t *testing.T) *kit.Lab {
	t.Helper()
	lab := kit.NewLab(context.Background(), t, labCluster(t), kit.CnpaBinary(t))
	t.Cleanup(func() {
		lab.StopService()
		if r := lab.Reset(); r.Code != 0 {
			t.Errorf("cnpa reset --yes after the case: the next case needs a clean cluster\n%s", r)
		}
	})
	return lab
}

var processMode = []string{"--service-manager", "process"}

// ownLab runs steps 1-4 with testdata/script as reconcile.sh and,
// when unit is not "", testdata/unit as the learner's own unit.
func ownLab(t *testing.T, script, unit string) *kit.Lab {
	t.Helper()
	lab := serverLab(t)
	lab.Must("step", "1")
	lab.Must("step", "2")
	useScript(t, lab, script)
	lab.Must(append([]string{"step", "3", "--engine", "own", "--unit-dir", lab.UnitDir}, processMode...)...)
	if unit != "" {
		useUnit(t, lab, unit, false)
	}
	lab.Must(append([]string{"step", "4", "--unit-dir", lab.UnitDir}, processMode...)...)
	return lab
}

// useScript puts testdata/name in place as the lab's reconcile.sh
// (the service's loop runs it again on its next pass).
func useScript(t *testing.T, lab *kit.Lab, name string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(lab.Dir, ".reconcile.sh.new")
	if err := os.WriteFile(tmp, data, 0o755); err != nil {
		t.Fatal(err)
	}
	// A rename: a pass that runs the old script keeps reading the old file.
	if err := os.Rename(tmp, filepath.Join(lab.Dir, "reconcile.sh")); err != nil {
		t.Fatal(err)
	}
}

// useUnit writes testdata/name, {{DIR}} made the evidence dir, as
// the learner's own cnpa-op.service; install runs step 4 again with it.
func useUnit(t *testing.T, lab *kit.Lab, name string, install bool) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(lab.UnitDir, 0o755); err != nil {
		t.Fatal(err)
	}
	unit := strings.ReplaceAll(string(data), "{{DIR}}", lab.Dir)
	if err := os.WriteFile(filepath.Join(lab.UnitDir, "cnpa-op.service"), []byte(unit), 0o644); err != nil {
		t.Fatal(err)
	}
	if install {
		lab.Must(append([]string{"step", "4", "--unit-dir", lab.UnitDir}, processMode...)...)
	}
}

// stressRun runs cnpa stress --faults faults and returns its report,
// after holding the exit code, the baseline, the faults run and the
// service running afterwards.
func stressRun(t *testing.T, lab *kit.Lab, lang string, wantCode int, faults ...string) judge.StressReport {
	t.Helper()
	r := lab.Cnpa(append([]string{"--lang", lang, "stress", "-o", "json", "--faults", strings.Join(faults, ","), "--unit-dir", lab.UnitDir}, processMode...)...)
	var rep judge.StressReport
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("cnpa stress --faults %s -o json does not parse: %v\n%s\n--- service log\n%s", strings.Join(faults, ","), err, r, lab.ServiceLog(40))
	}
	for _, f := range rep.Faults {
		t.Logf("%s: %s in %.1f s, injected %v %v", f.Name, f.Status, f.Seconds, f.Injected, f.Findings)
		if f.Log != "" {
			t.Logf("%s: the controller's output:\n%s", f.Name, f.Log)
		}
	}
	t.Logf("whole run %.1f s", rep.Seconds)
	if r.Code != wantCode {
		t.Fatalf("cnpa stress --faults %s: exit %d, want %d\n%s\n--- service log\n%s", strings.Join(faults, ","), r.Code, wantCode, r, lab.ServiceLog(40))
	}
	if rep.Baseline != "" || len(rep.Faults) != len(faults) {
		t.Fatalf("want %d verdicts after a converged baseline, got baseline %q, %+v", len(faults), rep.Baseline, rep.Faults)
	}
	for _, f := range rep.Faults {
		if f.Injected[f.Name] == 0 {
			t.Errorf("%s: nothing of its kind injected (%v)", f.Name, f.Injected)
		}
	}
	if got := lab.Cnpa(append([]string{"service", "status", "--unit-dir", lab.UnitDir}, processMode...)...); got.Code != 0 {
		t.Errorf("the service does not run after cnpa stress:\n%s", got)
	}
	return rep
}

// allPass holds every fault of rep to pass.
func allPass(t *testing.T, rep judge.StressReport) {
	t.Helper()
	for _, f := range rep.Faults {
		if f.Status != judge.Pass {
			t.Errorf("%s: %s %v, want pass\n%s", f.Name, f.Status, f.Findings, f.Log)
		}
	}
}

// failsBy holds fault name of rep to fail with property first, its hint
// holding want (the learner's language's words) and the controller's
// output given.
func failsBy(t *testing.T, rep judge.StressReport, name, property string, want ...string) {
	t.Helper()
	f := rep.Fault(name)
	if f == nil {
		t.Fatalf("no verdict of %s", name)
	}
	var props []string
	for _, x := range f.Findings {
		props = append(props, x.Property)
	}
	if f.Status != judge.Fail || len(props) == 0 || props[0] != property {
		t.Errorf("%s: %s %v, want fail with %s first", name, f.Status, f.Findings, property)
	}
	for _, w := range want {
		if !strings.Contains(f.Hint, w) {
			t.Errorf("%s: the hint lacks %q: %q", name, w, f.Hint)
		}
	}
	if strings.TrimSpace(f.Log) == "" {
		t.Errorf("%s: no output of the controller with the verdict", name)
	}
}

// cnpa stress's faults from the API server's side with a learner's
// controllers, in one lab whose reconcile.sh and unit are swapped between
// the runs (each run restarts the service onto its proxy, so a watcher
// that never returns is replaced too):
//   - a valid kubectl polling pass (blackhole-timeout.sh) under LAB.md's
//     own loop (restart-loop.service) passes forbidden and restart;
//   - forbidden-archived-skip.sh, which takes an archive record for a
//     TeamSpace done with, leaves the TeamSpace deleted during the 403s
//     Terminating: forbidden fails by name (converged);
//   - throttle-at-once.py retries a 429 at once: throttle fails by name
//     (backoff); throttle-backoff.py, which waits Retry-After, passes;
//   - gone-resumes.sh resumes its watch from the last resourceVersion it
//     saw and never hears of a change again: gone fails by name
//     (converged); gone-relists.sh lists again after a 410 and passes;
//   - under a loop run with `set -e` (restart-set-e.service) the valid
//     pass ends the service at the first refused call, and process mode
//     (which restarts for ever) counts its starts: restart fails by name
//     (start_limit: systemd would have given up). Under real systemd:
//     test/system's TestLearnersUnitRestartedEveryRun. Ctrl-C during
//     the outage leaves the service running on its own kubeconfig.
//
// Hints are held in the language of their run (en or ja). cnpa's go and
// shell engines pass them all in TestStressBlackhole's labs.
func TestStressServerFaults(t *testing.T) {
	lab := ownLab(t, "blackhole-timeout.sh", "restart-loop.service")
	t.Run("kubectl", func(t *testing.T) { allPass(t, stressRun(t, lab, "en", 0, "forbidden", "restart")) })
	t.Run("forbidden", func(t *testing.T) {
		useScript(t, lab, "forbidden-archived-skip.sh")
		failsBy(t, stressRun(t, lab, "ja", 1, "forbidden"), "forbidden", judge.StressConverged, "アーカイブファイル", "finalizer")
	})
	t.Run("throttle", func(t *testing.T) {
		useScript(t, lab, "throttle-at-once.py")
		failsBy(t, stressRun(t, lab, "en", 1, "throttle"), "throttle", judge.StressBackoff, "Retry-After")
		useScript(t, lab, "throttle-backoff.py")
		allPass(t, stressRun(t, lab, "en", 0, "throttle"))
	})
	t.Run("gone", func(t *testing.T) {
		useScript(t, lab, "gone-resumes.sh")
		failsBy(t, stressRun(t, lab, "en", 1, "gone"), "gone", judge.StressConverged, "list again", "410")
		useScript(t, lab, "gone-relists.sh")
		allPass(t, stressRun(t, lab, "ja", 0, "gone"))
	})
	t.Run("restart", func(t *testing.T) {
		useScript(t, lab, "blackhole-timeout.sh")
		useUnit(t, lab, "restart-set-e.service", true)
		failsBy(t, stressRun(t, lab, "en", 1, "restart"), "restart", judge.StressStartLimit, "set -e", "RestartSec=")
		// Ctrl-C while the connections are refused: the proxy listens
		// again for the cleanup, and the service runs on its own
		// kubeconfig afterwards.
		interruptedIn(t, lab, "restart")
	})
}

// engineServerFaults is cnpa stress --faults restart,gone,forbidden,
// throttle on a lab of cnpa's own engine (TestStressBlackhole's): every
// fault passes; each one's time is logged (docs/stress.md's table).
func engineServerFaults(t *testing.T, lab *kit.Lab) {
	t.Helper()
	allPass(t, stressRun(t, lab, "en", 0, "restart", "gone", "forbidden", "throttle"))
}

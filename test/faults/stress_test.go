package faults

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// cnpa stress against the real control plane: cnpa's Go engine passes
// every fault; a learner's edge-triggered reconcile.sh (the corpus's
// edge-triggered case) fails the burst, whose quota deleted by hand never
// comes back, and passes conflict; one that recreates the quota instead
// of patching it, which the lab's steps do not catch, fails kept by the
// fault's name. Each controller runs as the lab's service in process mode
// through the proxy; the drop-in is gone afterwards.
func TestStress(t *testing.T) {
	c := cluster.Shared(t)
	bin := kit.CnpaBinary(t)
	svc := []string{"--service-manager", "process"}

	stress := func(t *testing.T, lab *kit.Lab, faults string, wantCode int) *judge.StressReport {
		t.Helper()
		r := lab.Cnpa(append([]string{"stress", "-o", "json", "--faults", faults, "--unit-dir", lab.UnitDir}, svc...)...)
		if r.Code != wantCode {
			t.Fatalf("cnpa stress: exit %d, want %d\n%s\n--- service log\n%s", r.Code, wantCode, r, lab.ServiceLog(40))
		}
		var rep judge.StressReport
		if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
			t.Fatalf("cnpa stress -o json does not parse: %v\n%s", err, r)
		}
		t.Logf("cnpa stress --faults %s: %d passed, %d failed in %.1f s", faults, rep.Passed, rep.Failed, rep.Seconds)
		if _, err := os.Stat(filepath.Join(lab.UnitDir, "cnpa-op.service.d")); !os.IsNotExist(err) {
			t.Errorf("the drop-in dir is still there after cnpa stress (stat: %v)", err)
		}
		if got := lab.Cnpa(append([]string{"service", "status", "--unit-dir", lab.UnitDir}, svc...)...); got.Code != 0 {
			t.Errorf("the service does not run after cnpa stress:\n%s", got)
		}
		return &rep
	}
	// Each case starts the lab over on the shared cluster: the next
	// case's step 1 wants no TeamSpace alpha, so a case's cleanup stops
	// its loop and runs `cnpa reset --yes`.
	newLab := func(t *testing.T) *kit.Lab {
		t.Helper()
		lab := kit.NewLab(context.Background(), t, c, bin)
		t.Cleanup(func() {
			lab.StopService()
			if r := lab.Reset(); r.Code != 0 {
				t.Errorf("cnpa reset --yes after the case: the next case needs a clean cluster\n%s", r)
			}
		})
		return lab
	}
	own := func(t *testing.T, script string) *kit.Lab {
		t.Helper()
		lab := newLab(t)
		data, err := os.ReadFile(script)
		if err != nil {
			t.Fatal(err)
		}
		lab.Must("step", "1")
		lab.Must("step", "2")
		if err := os.WriteFile(filepath.Join(lab.Dir, "reconcile.sh"), data, 0o755); err != nil {
			t.Fatal(err)
		}
		lab.Must(append([]string{"step", "3", "--engine", "own", "--unit-dir", lab.UnitDir}, svc...)...)
		lab.Must(append([]string{"step", "4", "--unit-dir", lab.UnitDir}, svc...)...)
		return lab
	}
	verdict := func(rep *judge.StressReport, name string) judge.StressFault {
		for _, f := range rep.Faults {
			if f.Name == name {
				return f
			}
		}
		return judge.StressFault{}
	}
	properties := func(f judge.StressFault) []string {
		var ps []string
		for _, x := range f.Findings {
			ps = append(ps, x.Property)
		}
		return ps
	}

	t.Run("go", func(t *testing.T) {
		lab := newLab(t)
		if r := lab.StepAll("go"); r.Code != 0 {
			t.Fatalf("cnpa step all: %s", r)
		}
		start := time.Now()
		rep := stress(t, lab, "all", 0)
		t.Logf("whole run %s", time.Since(start).Round(time.Second))
		for _, f := range rep.Faults {
			if f.Status != judge.Pass {
				t.Errorf("%s: %s %v, want pass (injected %v)\n%s", f.Name, f.Status, f.Findings, f.Injected, f.Log)
			}
			if len(f.Injected) == 0 {
				t.Errorf("%s: nothing injected: the controller did not go through the proxy", f.Name)
			}
		}
		if len(rep.Faults) != 8 {
			t.Errorf("%d faults judged, want 8", len(rep.Faults))
		}
	})

	t.Run("edge-triggered", func(t *testing.T) {
		lab := own(t, filepath.Join("..", "learners", "cases", "edge-triggered", "reconcile.sh"))
		rep := stress(t, lab, "conflict,burst", 1)
		if f := verdict(rep, "conflict"); f.Status != judge.Pass {
			t.Errorf("conflict: %s %v, want pass", f.Status, f.Findings)
		}
		f := verdict(rep, "burst")
		if f.Status != judge.Fail || !slices.Contains(properties(f), judge.StressConverged) {
			t.Errorf("burst: %s %v, want fail with %s", f.Status, f.Findings, judge.StressConverged)
		}
		if f.Hint == "" || f.Log == "" {
			t.Errorf("burst's verdict has no hint (%q) or no controller output (%q)", f.Hint, f.Log)
		}
	})

	t.Run("recreate", func(t *testing.T) {
		lab := own(t, filepath.Join("testdata", "stress", "recreate.sh"))
		rep := stress(t, lab, "conflict,error", 1)
		for _, name := range []string{"conflict", "error"} {
			f := verdict(rep, name)
			if f.Status != judge.Fail || !slices.Contains(properties(f), judge.StressKept) {
				t.Errorf("%s: %s %v, want fail with %s", name, f.Status, f.Findings, judge.StressKept)
			}
		}
	})
}

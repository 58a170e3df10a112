package stress

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/learnerfiles"
)

// cnpa stress, round 2 (issue 60), against the real control plane:
// eventually stable reconciliation after every fault, and the workload
// faults poison and recreate. Each learner-style controller that fails
// fails by the fault's name and the property meant, and one that passes
// passes; cnpa's shell engine passes (round2Shell, on
// TestStressBlackhole's lab; its go engine: TestStress/go, the whole
// default run). One lab serves every learner script, each copied
// over reconcile.sh in turn: the service runs the file anew on its next
// pass. That lab's CRD is a learner's as the lab text writes it (no
// pattern on spec.cpu), so the poison is the real quota's refusal of
// spec.cpu "lots"; the shell engine's lab keeps cnpa's CRD, which
// refuses "lots", so its poison is a namespace that is someone else's.
func TestStressRound2(t *testing.T) {
	c := labCluster(t)
	bin := kit.CnpaBinary(t)
	svc := []string{"--service-manager", "process"}

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
	// The default bound: a failing run waits it out (converged, or
	// stable), but under load a shorter one failed the baseline of these
	// scripts, whose passes take 8-12 s.
	stress := func(t *testing.T, lab *kit.Lab, lang, faults string, wantCode int) *judge.StressReport {
		t.Helper()
		return round2Stress(t, lab, lang, faults, "30s", wantCode)
	}
	verdict, passes := round2Verdict, round2Passes
	failsBy := func(t *testing.T, rep *judge.StressReport, name, property, hint string) {
		t.Helper()
		f := verdict(t, rep, name)
		var props []string
		for _, x := range f.Findings {
			props = append(props, x.Property)
		}
		if f.Status != judge.Fail || !slices.Contains(props, property) {
			t.Errorf("%s: %s %v, want fail with %s", name, f.Status, f.Findings, property)
		}
		if !strings.Contains(f.Hint, hint) || f.Log == "" {
			t.Errorf("%s: the hint does not say %q, or no controller output (%q):\n%s", name, hint, f.Log, f.Hint)
		}
	}

	t.Run("learners", func(t *testing.T) {
		lab := newLab(t)
		use := func(t *testing.T, script string) {
			t.Helper()
			data, err := os.ReadFile(script)
			if err != nil {
				t.Fatal(err)
			}
			// Written to a new file and renamed over the old one: a pass
			// under way keeps reading the file it opened.
			tmp := filepath.Join(lab.Dir, ".reconcile.sh.new")
			if err := os.WriteFile(tmp, data, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(tmp, filepath.Join(lab.Dir, "reconcile.sh")); err != nil {
				t.Fatal(err)
			}
		}
		lab.Must("step", "1")
		lab.Must("step", "2")
		use(t, filepath.Join("..", "learners", "cases", "valid-create-patch", "reconcile.sh"))
		lab.Must(append([]string{"step", "3", "--engine", "own", "--unit-dir", lab.UnitDir}, svc...)...)
		lab.Must(append([]string{"step", "4", "--unit-dir", lab.UnitDir}, svc...)...)
		crd := filepath.Join(t.TempDir(), "crd.yaml")
		if err := os.WriteFile(crd, []byte(learnerfiles.CRD), 0o644); err != nil {
			t.Fatal(err)
		}
		if r := lab.Run(nil, lab.Cluster.Kubectl(), "--kubeconfig", lab.Cluster.Kubeconfig, "apply", "-f", crd); r.Code != 0 {
			t.Fatalf("kubectl apply the lab text's CRD: %s", r)
		}

		// The corpus's valid create-then-patch: one TeamSpace at a time,
		// an error said and the next one served; each name's namespace
		// read on every pass.
		passes(t, stress(t, lab, "en", "poison,recreate", 0), "poison", "recreate")

		// The corpus's valid `set -euo pipefail` loop: the quota's 422
		// for the poison ends every pass there.
		use(t, filepath.Join("..", "learners", "cases", "valid-set-e-apply", "reconcile.sh"))
		failsBy(t, stress(t, lab, "en", "poison", 1), "poison", judge.StressConverged, "`set -e`")

		// A namespace made once per name: the one made again is not.
		use(t, filepath.Join("testdata", "by-name.sh"))
		failsBy(t, stress(t, lab, "en", "recreate", 1), "recreate", judge.StressConverged, "remembers by name")

		// A heartbeat every 10 s: step 3 lets it through, and one
		// quiet pass did unless a heartbeat fell in it; three whole
		// passes always hold one. In Japanese: the hint says level
		// against rewriting on every pass.
		use(t, filepath.Join("testdata", "heartbeat.sh"))
		rep := stress(t, lab, "ja", "conflict", 1)
		failsBy(t, rep, "conflict", judge.StressStable, "level（現在の状態を基準に回る方式）のループは")
		if f := verdict(t, rep, "conflict"); f.TimeToConverge == nil || f.TimeToStable != nil ||
			!strings.Contains(f.Findings[0].Found, "resourcequotas/team-quota") {
			t.Errorf("heartbeat: converged %v, stable %v, found %v; want converged, never stable, the quota's writes named",
				val(f.TimeToConverge), val(f.TimeToStable), f.Findings)
		}
	})
}

// round2Shell is the shell engine's poison and recreate, on the lab
// TestStressBlackhole's shell case made (cnpa step all --engine shell):
// it passes both. cnpa's CRD refuses spec.cpu "lots", so its poison is a
// namespace that is someone else's.
func round2Shell(t *testing.T, lab *kit.Lab) {
	t.Helper()
	round2Passes(t, round2Stress(t, lab, "en", "poison,recreate", "30s", 0), "poison", "recreate")
}

// round2Stress runs cnpa stress --faults faults with bound in language
// lang, and returns its report after a converged baseline.
func round2Stress(t *testing.T, lab *kit.Lab, lang, faults, bound string, wantCode int) *judge.StressReport {
	t.Helper()
	r := lab.Cnpa("--lang", lang, "stress", "-o", "json", "--faults", faults, "--bound", bound, "--unit-dir", lab.UnitDir, "--service-manager", "process")
	if r.Code != wantCode {
		t.Fatalf("cnpa stress --faults %s: exit %d, want %d\n%s\n--- service log\n%s", faults, r.Code, wantCode, r, lab.ServiceLog(40))
	}
	var rep judge.StressReport
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("cnpa stress -o json does not parse: %v\n%s", err, r)
	}
	if rep.Baseline != "" {
		t.Fatalf("cnpa stress --faults %s: baseline %s", faults, rep.Baseline)
	}
	for _, f := range rep.Faults {
		t.Logf("%s: %s in %.1f s, converged %v s, stable %v s (watched %.1f s), injected %v %v",
			f.Name, f.Status, f.Seconds, val(f.TimeToConverge), val(f.TimeToStable), f.StableFor, f.Injected, f.Findings)
	}
	return &rep
}

// round2Verdict is fault name's verdict in rep.
func round2Verdict(t *testing.T, rep *judge.StressReport, name string) judge.StressFault {
	t.Helper()
	f := rep.Fault(name)
	if f == nil {
		t.Fatalf("no verdict for %s: %+v", name, rep.Faults)
	}
	return *f
}

// round2Passes: each of names passed, with its times.
func round2Passes(t *testing.T, rep *judge.StressReport, names ...string) {
	t.Helper()
	for _, name := range names {
		f := round2Verdict(t, rep, name)
		if f.Status != judge.Pass {
			t.Errorf("%s: %s %v, want pass\n%s", name, f.Status, f.Findings, f.Log)
		}
		if f.TimeToConverge == nil || f.TimeToStable == nil || *f.TimeToStable < *f.TimeToConverge || f.StableFor <= 0 {
			t.Errorf("%s passed without its times: converged %v, stable %v, watched %v", name, val(f.TimeToConverge), val(f.TimeToStable), f.StableFor)
		}
	}
}

// val is *f's value, or nil.
func val(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

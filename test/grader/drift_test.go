package grader

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
)

// TestDriftProbeCatchesAnEdgeTriggeredController: `cnpa check` makes the
// drift probe (step5.drift_reverted_live) on the learner's machine too,
// not only from the instructor's. The learner corpus's edge-triggered
// script serves a new TeamSpace, but skips one whose status says it was
// served: a deleted quota of a temporary TeamSpace never comes back, and
// the probe fails, diagnosed as edge-triggered.
func TestDriftProbeCatchesAnEdgeTriggeredController(t *testing.T) {
	l := newLabCLI(t)
	if code, out, errOut := l.reset(); code != 0 {
		t.Fatalf("reset before the lab: exit %d\n%s%s", code, out, errOut)
	}
	script, err := os.ReadFile("../learners/cases/edge-triggered/reconcile.sh")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(l.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(l.dir, "reconcile.sh"), script, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"1", "2", "3", "4"} {
		l.must("step", n, "--engine", "own", "--service-manager", "process", "--unit-dir", l.unitDir)
	}
	code, rep := l.check("--step", "5", "--timeout", "60s", "--service-manager", "process", "--unit-dir", l.unitDir)
	if code != 1 {
		t.Errorf("check --step 5 of an edge-triggered controller: exit %d, want 1", code)
	}
	var drift *judge.Check
	for i := range rep.Checks {
		if rep.Checks[i].ID == judge.ProbeDrift.ID {
			drift = &rep.Checks[i]
		}
	}
	switch {
	case drift == nil:
		t.Fatalf("cnpa check reports no %s: %v", judge.ProbeDrift.ID, rep.FailedIDs())
	case drift.Status != judge.Fail:
		t.Fatalf("%s: %s (%s), want a failure: the deleted quota never comes back", drift.ID, drift.Status, drift.Actual)
	case !strings.Contains(drift.Actual, "after the delete"):
		t.Errorf("%s found %q, want what was seen after the quota was deleted", drift.ID, drift.Actual)
	case drift.Diagnosis != lab.MistakeEdge:
		t.Errorf("%s diagnosis %q, want %q", drift.ID, drift.Diagnosis, lab.MistakeEdge)
	case !strings.Contains(drift.Hint, "must recreate a deleted quota"):
		t.Errorf("%s hint %q, want what the controller must do", drift.ID, drift.Hint)
	}
	t.Logf("%s: %s; %s", drift.ID, drift.Actual, drift.Hint)
}

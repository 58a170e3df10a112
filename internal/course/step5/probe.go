package step5

import (
	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
)

// ProbeDrift is step 5's live probe: LAB.md step 5 done again on
// temporary TeamSpaces, for a grader who cannot trust drift.json (Drift).
// It runs with the other probes of the running controller, on the
// TeamSpaces step 4's probe hands on and step 6's lends, in phase 2.
var ProbeDrift = &judge.Probe{ID: "step5.drift_reverted_live", Step: 5, Where: judge.Local | judge.Remote, Controller: true, Mistake: lab.MistakeEdge,
	Title: "check.title.step5.drift_reverted_live",
	Hint:  driftHint}

// Probes are step 5's live probes' rows: what each grades and what to do
// when it fails.
var Probes = []*judge.Probe{ProbeDrift}

// Hands are the code that fills Probes, bound to its rows. The drift
// probe takes step 4's converged TeamSpace.
var Hands = []check.Hand{
	{Rows: Probes, Run: Drift, TakesHandedOn: true},
}

// driftHint is the advice when the drift probe fails: what the
// controller must do.
func driftHint(f *judge.Facts) string {
	must := i18n.T("check.probe.drift.must")
	if f.Engine == lab.EngineOwn {
		return judge.ControllerAdvice(f, must)
	}
	return i18n.T("check.probe.the_controller", i18n.Args{"Must": must})
}

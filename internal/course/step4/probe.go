package step4

import (
	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
)

// ProbeConverges is step 4's live probe: a new TeamSpace converges with
// nobody but the running controller acting (Converges). It runs with the
// other probes of the running controller, and how long it takes sets the
// foreign-namespace probe's wait; converged, its TeamSpace is handed on
// to the drift probe (course/step5), which reads this row to know whether
// it runs.
var ProbeConverges = &judge.Probe{ID: "step4.new_teamspace_converges", Step: 4, Where: judge.Local | judge.Remote, Controller: true,
	Title: "check.title.step4.new_teamspace_converges",
	Hint:  func(*judge.Facts) string { return i18n.T("check.probe.converges.hint") }}

// Probes are step 4's live probes' rows: what each grades and what to do
// when it fails.
var Probes = []*judge.Probe{ProbeConverges}

// Hands are the code that fills Probes, bound to its rows.
var Hands = []check.Hand{
	{Rows: Probes, Run: Converges},
}

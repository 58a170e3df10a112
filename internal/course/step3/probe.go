package step3

import (
	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/judge"
)

// Probes are step 3's live probes' rows: what each grades and what to do
// when it fails.
var Probes = []*judge.Probe{judge.ProbeScriptRuns, judge.ProbeRerunWritesNothing, judge.ProbeForeignNamespace}

// Hands are the code that fills Probes, bound to its rows.
var Hands = []check.Hand{
	{Rows: Probes[0:2], Run: check.Rerun},
	{Rows: Probes[2:3], Run: check.ForeignNamespace},
}

package step4

import (
	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/judge"
)

// Probes are step 4's live probes' rows: what each grades and what to do
// when it fails.
var Probes = []*judge.Probe{judge.ProbeConverges}

// Hands are the code that fills Probes, bound to its rows.
var Hands = []check.Hand{
	{Rows: Probes, Run: check.Converges},
}

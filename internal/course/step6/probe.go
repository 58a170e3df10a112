package step6

import (
	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/judge"
)

// Probes are step 6's live probes' rows: what each grades and what to do
// when it fails.
var Probes = []*judge.Probe{judge.ProbeFinalizerAdded, judge.ProbeDeleteArchives}

// Hands are the code that fills Probes, bound to its rows.
var Hands = []check.Hand{
	{Rows: Probes, Run: check.Finalizer},
}

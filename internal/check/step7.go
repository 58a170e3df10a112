package check

import (
	"fmt"

	"github.com/labhub/cnpa/internal/lab"
)

// Step 7: no change missed while stopped. catchup.json, then alpha now:
// its generation is the one recorded, and the controller acted on it.
var step7Checks = &stepChecks{step: lab.Catchup, live: []liveCheck{
	{id: "step7.generation_live", title: "alpha's live metadata.generation is catchup.json generation",
		hint: func(ev *evidenceSet, _ *facts) string { return ev.stale(lab.Catchup.Number, lab.CatchupFile) },
		judge: func(ev *evidenceSet, f *facts) verdict {
			g, why := ev.Records[lab.CatchupFile].Int("generation")
			switch {
			case why != "":
				return skipped(why)
			case f.alpha == nil:
				return holds(false, show(g), "TeamSpace alpha does not exist")
			}
			return same(g, f.alpha.Generation)
		}},
	{id: "step7.alpha_observed", title: "alpha's status.observedGeneration is its generation: the controller acted on the current spec",
		hint: controllerHint("must write status.observedGeneration = metadata.generation through the status subresource on every pass"),
		judge: func(_ *evidenceSet, f *facts) verdict {
			if f.alpha == nil {
				return holds(false, "observedGeneration = generation", "TeamSpace alpha does not exist")
			}
			return holds(f.alpha.Status.ObservedGeneration == f.alpha.Generation, fmt.Sprint(f.alpha.Generation),
				fmt.Sprintf("%d (generation %d)", f.alpha.Status.ObservedGeneration, f.alpha.Generation))
		}},
}}

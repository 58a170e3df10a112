package judge

import (
	"fmt"

	"github.com/labhub/cnpa/internal/lab"
)

// Step 7: no change missed while stopped. catchup.json, then alpha now:
// its generation is the one recorded, and the controller acted on it.
var step7Checks = &stepChecks{step: lab.Catchup, facts: []factCheck{
	{id: "step7.generation_live", title: "alpha's live metadata.generation is catchup.json generation",
		hint: func(ev *evidenceSet, _ *Facts) string { return ev.stale(lab.Catchup.Number, lab.CatchupFile) },
		judge: func(ev *evidenceSet, f *Facts) Verdict {
			g, why := ev.Records[lab.CatchupFile].Int("generation")
			switch {
			case why != "":
				return Skipped(why)
			case f.Alpha == nil:
				return Holds(false, show(g), "TeamSpace alpha does not exist")
			}
			return Same(g, f.Alpha.Generation)
		}},
	{id: "step7.alpha_observed", title: "alpha's status.observedGeneration is its generation: the controller acted on the current spec",
		hint: controllerHint("must write status.observedGeneration = metadata.generation through the status subresource on every pass"),
		judge: func(_ *evidenceSet, f *Facts) Verdict {
			if f.Alpha == nil {
				return Holds(false, "observedGeneration = generation", "TeamSpace alpha does not exist")
			}
			return Holds(f.Alpha.Status.ObservedGeneration == f.Alpha.Generation, fmt.Sprint(f.Alpha.Generation),
				fmt.Sprintf("%d (generation %d)", f.Alpha.Status.ObservedGeneration, f.Alpha.Generation))
		}},
}}

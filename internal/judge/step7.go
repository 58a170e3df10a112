package judge

import (
	"fmt"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
)

// Step 7: no change missed while stopped. catchup.json, then alpha now:
// its generation is the one recorded, and the controller acted on it.
var step7Checks = &stepChecks{step: lab.Catchup, facts: []factCheck{
	{id: "step7.generation_live", title: "check.title.step7.generation_live",
		hint: func(ev *evidenceSet, _ *Facts) string { return ev.stale(lab.Catchup.Number, lab.CatchupFile) },
		judge: func(ev *evidenceSet, f *Facts) Verdict {
			g, why := ev.Records[lab.CatchupFile].Int("generation")
			switch {
			case why != "":
				return Skipped(why)
			case f.Alpha == nil:
				return Holds(false, show(g), i18n.T("check.alpha_missing"))
			}
			return Same(g, f.Alpha.Generation)
		}},
	{id: "step7.alpha_observed", title: "check.title.step7.alpha_observed",
		hint: controllerHint("check.step7.alpha_observed.must"),
		judge: func(_ *evidenceSet, f *Facts) Verdict {
			if f.Alpha == nil {
				return Holds(false, "observedGeneration = generation", i18n.T("check.alpha_missing"))
			}
			return Holds(f.Alpha.Status.ObservedGeneration == f.Alpha.Generation, fmt.Sprint(f.Alpha.Generation),
				i18n.T("check.step7.observed_got", i18n.Args{"Observed": f.Alpha.Status.ObservedGeneration, "Generation": f.Alpha.Generation}))
		}},
}}

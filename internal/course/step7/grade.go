package step7

import (
	"fmt"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
)

// Grade is what `cnpa check` grades for step 7 (no change missed while
// stopped): catchup.json, then alpha now: its generation is the one
// recorded, and the controller acted on it.
var Grade = &judge.Step{Step: Step, Probes: Probes, Facts: []judge.Fact{
	{ID: "step7.generation_live", Mistake: lab.MistakeStale, Title: "check.title.step7.generation_live",
		Hint: func(ev *judge.Evidence, _ *judge.Facts) string { return ev.Stale(Step.Number, lab.CatchupFile) },
		Judge: func(ev *judge.Evidence, f *judge.Facts) lab.Verdict {
			g, why := ev.Records[lab.CatchupFile].Int("generation")
			switch {
			case why != "":
				return lab.Skipped(why)
			case f.Alpha == nil:
				return lab.Holds(false, lab.Show(g), i18n.T("check.alpha_missing"))
			}
			return lab.Same(g, f.Alpha.Generation)
		}},
	{ID: "step7.alpha_observed", Mistake: lab.MistakeEdge, Title: "check.title.step7.alpha_observed",
		Hint: judge.ControllerHint("check.step7.alpha_observed.must"),
		Judge: func(_ *judge.Evidence, f *judge.Facts) lab.Verdict {
			if f.Alpha == nil {
				return lab.Holds(false, "observedGeneration = generation", i18n.T("check.alpha_missing"))
			}
			return lab.Holds(f.Alpha.Status.ObservedGeneration == f.Alpha.Generation, fmt.Sprint(f.Alpha.Generation),
				i18n.T("check.step7.observed_got", i18n.Args{"Observed": f.Alpha.Status.ObservedGeneration, "Generation": f.Alpha.Generation}))
		}},
}}

package step3

import (
	"path/filepath"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
)

// Step 3's live probes: reconcile.sh run twice more, which must write
// nothing and leave alpha's status as a pass writes it (Rerun, three
// rows); and a namespace team-<name> somebody else
// made before its TeamSpace (ForeignNamespace). The reruns need no
// controller and run first, alone; the foreign namespace runs with the
// probes of the running controller, its TeamSpaces sorted after theirs (a
// controller that stops its pass there must cost no other verdict).
var (
	ProbeScriptRuns = &judge.Probe{ID: "step3.script_runs", Step: 3, Where: judge.Local, Script: true,
		Title: "check.title.step3.script_runs", Hint: scriptHint}
	ProbeRerunWritesNothing = &judge.Probe{ID: "step3.rerun_writes_nothing", Step: 3, Where: judge.Local, Script: true, Mistake: lab.MistakeWritesEachPass,
		Title: "check.title.step3.rerun_writes_nothing", Hint: writesHint}
	ProbeForeignNamespace = &judge.Probe{ID: "step3.foreign_namespace_left_alone", Step: 3, Where: judge.Local, Controller: true,
		Title: "check.title.step3.foreign_namespace_left_alone",
		Hint:  func(*judge.Facts) string { return i18n.T("check.probe.foreign.hint") }}
)

// Probes are step 3's live probes' rows: what each grades and what to do
// when it fails.
var Probes = []*judge.Probe{ProbeScriptRuns, ProbeRerunWritesNothing, ProbeStatus, ProbeForeignNamespace}

// Hands are the code that fills Probes, bound to its rows.
var Hands = []check.Hand{
	{Rows: Probes[0:3], Run: Rerun},
	{Rows: Probes[3:4], Run: ForeignNamespace},
}

// scriptPath is reconcile.sh's path in the evidence dir.
func scriptPath(f *judge.Facts) string { return filepath.Join(f.Dir, lab.ScriptName) }

// scriptHint is the advice when reconcile.sh is not there to rerun.
func scriptHint(f *judge.Facts) string {
	if f.Engine == lab.EngineOwn {
		return i18n.T("check.probe.script.hint_own", i18n.Args{"Script": lab.ScriptName, "Path": scriptPath(f), "Step": judge.LabStep(3)})
	}
	return i18n.T("check.probe.script.hint", i18n.Args{"Script": lab.ScriptName})
}

// writesHint is the advice when a rerun of reconcile.sh wrote.
func writesHint(f *judge.Facts) string {
	fix := i18n.T("check.probe.writes.hint", i18n.Args{"Script": lab.ScriptName})
	if f.Engine != lab.EngineOwn {
		if why := f.Authors[lab.ScriptName]; why != "" {
			// Step 3 never overwrites a script of the learner's.
			path := scriptPath(f)
			fix += i18n.T("check.probe.writes.theirs", i18n.Args{"Why": why, "Engine": f.Engine,
				"Move": "mv " + lab.QuoteArg(path) + " " + lab.QuoteArg(path) + ".mine"})
		} else {
			fix += i18n.T("check.probe.writes.ours")
		}
	}
	return fix
}

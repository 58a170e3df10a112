package step6

import (
	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
)

// Step 6's live probe (Finalizer) fills two rows: a TeamSpace created
// with a foreign finalizer gets ours beside it, and, deleted, is archived
// and loses only ours. It runs with the other probes of the running
// controller, and lends its TeamSpace to the drift probe in phase 2.
var (
	ProbeFinalizerAdded = &judge.Probe{ID: "step6.finalizer_added_keeps_foreign", Step: 6, Where: judge.Local | judge.Remote, Controller: true,
		Title: "check.title.step6.finalizer_added_keeps_foreign", Hint: finalizerHint}
	ProbeDeleteArchives = &judge.Probe{ID: "step6.delete_archives", Step: 6, Where: judge.Local | judge.Remote, Controller: true,
		Title: "check.title.step6.delete_archives", Hint: finalizerHint}
)

// Probes are step 6's live probes' rows: what each grades and what to do
// when it fails.
var Probes = []*judge.Probe{ProbeFinalizerAdded, ProbeDeleteArchives}

// Hands are the code that fills Probes, bound to its rows.
var Hands = []check.Hand{
	{Rows: Probes, Run: Finalizer},
}

// finalizerMust is what the controller must do for the finalizer probe:
// the advice for both mistakes the lab text warns about, worded once
// (package lab).
func finalizerMust() string {
	return i18n.T("check.probe.finalizer.must", i18n.Args{"Keep": lab.Say(lab.KeepOtherFinalizers), "Archive": lab.Say(lab.ArchiveThenRelease)})
}

// finalizerHint is the advice when the finalizer probe fails.
func finalizerHint(f *judge.Facts) string {
	if f.Engine == lab.EngineOwn {
		return judge.ControllerAdvice(f, finalizerMust())
	}
	return i18n.T("check.probe.finalizer.hint", i18n.Args{"Must": finalizerMust()})
}

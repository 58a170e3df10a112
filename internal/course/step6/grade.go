package step6

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Grade is what `cnpa check` grades for step 6 (cleanup before deletion):
// cleanup.json, the archive record, beta and team-beta gone, and alpha held
// by the finalizer. The temporary TeamSpace deleted through the finalizer is
// a live probe (probe.go, probe_finalizer.go).
var Grade = &judge.Step{Step: Step, Probes: Probes, Facts: []judge.Fact{
	{ID: "step6.archive_record", Mistake: lab.MistakeNoArchive, Title: "check.title.step6.archive_record",
		Hint: func(ev *judge.Evidence, _ *judge.Facts) string {
			return i18n.T("check.step6.archive_record.hint", i18n.Args{"Redo": ev.Redo(Step.Number)})
		},
		Judge: archiveRecord},
	{ID: "step6.beta_gone", Title: "check.title.step6.beta_gone",
		Hint: func(ev *judge.Evidence, f *judge.Facts) string {
			if f.Engine == lab.EngineOwn {
				return judge.ControllerAdvice(f, i18n.T("check.must_comma", i18n.Args{"What": lab.Say(lab.ArchiveThenRelease)}))
			}
			return i18n.T("check.step6.beta_gone.hint", i18n.Args{"Redo": ev.Redo(Step.Number)})
		},
		Judge: func(_ *judge.Evidence, f *judge.Facts) lab.Verdict {
			return gone(f.Beta != nil, func() string {
				return i18n.T("check.step6.beta_exists", i18n.Args{"UID": f.Beta.UID, "Deleting": fmt.Sprint(f.Beta.DeletionTimestamp != nil), "Finalizers": fmt.Sprint(f.Beta.Finalizers)})
			})
		}},
	{ID: "step6.team_beta_gone", Mistake: lab.MistakeNoOwner, Title: "check.title.step6.team_beta_gone",
		Hint: func(_ *judge.Evidence, f *judge.Facts) string {
			if f.TeamBeta != nil && !ownedByATeamSpace(f.TeamBeta.OwnerReferences) {
				// Nothing will delete it: waiting is no advice.
				return i18n.T("check.step6.team_beta_gone.hint_no_owner", i18n.Args{"Step": judge.LabStep(3)})
			}
			return i18n.T("check.step6.team_beta_gone.hint")
		},
		Judge: func(_ *judge.Evidence, f *judge.Facts) lab.Verdict {
			return gone(f.TeamBeta != nil, func() string {
				return i18n.T("check.step6.team_beta_exists", i18n.Args{"Phase": string(f.TeamBeta.Status.Phase)})
			})
		}},
	{ID: "step6.alpha_finalizer", Title: "check.title.step6.alpha_finalizer", Args: i18n.Args{"Finalizer": teamspace.Finalizer},
		Hint: func(_ *judge.Evidence, f *judge.Facts) string {
			if f.Engine == lab.EngineOwn {
				return judge.ControllerAdvice(f, i18n.T("check.step6.alpha_finalizer.must", i18n.Args{"What": lab.Say(lab.KeepOtherFinalizers), "Step": judge.LabStep(6)}))
			}
			switch {
			case !f.Service.Active:
				// Step 6 needs the controller running: it would refuse.
				return i18n.T("check.step6.alpha_finalizer.hint_stopped")
			case !f.FinalizerOn:
				return i18n.T("check.step6.alpha_finalizer.hint_off")
			}
			return i18n.T("check.step6.alpha_finalizer.hint_logs")
		},
		Judge: func(_ *judge.Evidence, f *judge.Facts) lab.Verdict {
			if f.Alpha == nil {
				return lab.Holds(false, i18n.T("check.step6.finalizers_including", i18n.Args{"Finalizer": teamspace.Finalizer}), i18n.T("check.alpha_missing"))
			}
			return lab.Holds(teamspace.HasFinalizer(f.Alpha.Finalizers, teamspace.Finalizer),
				i18n.T("check.step6.finalizers_including", i18n.Args{"Finalizer": teamspace.Finalizer}), lab.Show(f.Alpha.Finalizers))
		}},
}}

func archiveRecord(ev *judge.Evidence, _ *judge.Facts) lab.Verdict {
	want := i18n.T("check.step6.archive_want")
	if ev.ArchiveProblem != "" {
		return lab.Holds(false, want, ev.ArchiveProblem)
	}
	a := ev.Archive
	return lab.Holds(a.Name == "beta" && a.UID != "" && a.Pods == 2, want, lab.Show(a))
}

func gone(exists bool, describe func() string) lab.Verdict {
	g := i18n.T("check.gone")
	if exists {
		return lab.Holds(false, g, describe())
	}
	return lab.Holds(true, g, g)
}

// ownedByATeamSpace: one of refs is to a TeamSpace, whichever.
func ownedByATeamSpace(refs []metav1.OwnerReference) bool {
	for _, r := range refs {
		if r.Kind == teamspace.Kind {
			return true
		}
	}
	return false
}

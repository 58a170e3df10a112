package judge

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Step 6: cleanup before deletion. cleanup.json, the archive record, beta
// and team-beta gone, and alpha held by the finalizer. The temporary
// TeamSpace deleted through the finalizer is a live probe (package check, probe_finalizer.go).
var step6Checks = &stepChecks{step: lab.Cleanup, facts: []factCheck{
	{id: "step6.archive_record", title: "check.title.step6.archive_record",
		hint: func(ev *evidenceSet, _ *Facts) string {
			return i18n.T("check.step6.archive_record.hint", i18n.Args{"Redo": ev.redo(lab.Cleanup.Number)})
		},
		judge: archiveRecord},
	{id: "step6.beta_gone", title: "check.title.step6.beta_gone",
		hint: func(ev *evidenceSet, f *Facts) string {
			if f.Engine == lab.EngineOwn {
				return controllerAdvice(f, i18n.T("check.must_comma", i18n.Args{"What": lab.Say(lab.ArchiveThenRelease)}))
			}
			return i18n.T("check.step6.beta_gone.hint", i18n.Args{"Redo": ev.redo(lab.Cleanup.Number)})
		},
		judge: func(_ *evidenceSet, f *Facts) Verdict {
			return gone(f.Beta != nil, func() string {
				return i18n.T("check.step6.beta_exists", i18n.Args{"UID": f.Beta.UID, "Deleting": fmt.Sprint(f.Beta.DeletionTimestamp != nil), "Finalizers": fmt.Sprint(f.Beta.Finalizers)})
			})
		}},
	{id: "step6.team_beta_gone", title: "check.title.step6.team_beta_gone",
		hint: func(_ *evidenceSet, f *Facts) string {
			if f.TeamBeta != nil && !ownedByATeamSpace(f.TeamBeta.OwnerReferences) {
				// Nothing will delete it: waiting is no advice.
				return i18n.T("check.step6.team_beta_gone.hint_no_owner", i18n.Args{"Step": labStep(3)})
			}
			return i18n.T("check.step6.team_beta_gone.hint")
		},
		judge: func(_ *evidenceSet, f *Facts) Verdict {
			return gone(f.TeamBeta != nil, func() string {
				return i18n.T("check.step6.team_beta_exists", i18n.Args{"Phase": string(f.TeamBeta.Status.Phase)})
			})
		}},
	{id: "step6.alpha_finalizer", title: "check.title.step6.alpha_finalizer", args: i18n.Args{"Finalizer": teamspace.Finalizer},
		hint: func(_ *evidenceSet, f *Facts) string {
			if f.Engine == lab.EngineOwn {
				return controllerAdvice(f, i18n.T("check.step6.alpha_finalizer.must", i18n.Args{"What": lab.Say(lab.KeepOtherFinalizers), "Step": labStep(6)}))
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
		judge: func(_ *evidenceSet, f *Facts) Verdict {
			if f.Alpha == nil {
				return Holds(false, i18n.T("check.step6.finalizers_including", i18n.Args{"Finalizer": teamspace.Finalizer}), i18n.T("check.alpha_missing"))
			}
			return Holds(teamspace.HasFinalizer(f.Alpha.Finalizers, teamspace.Finalizer),
				i18n.T("check.step6.finalizers_including", i18n.Args{"Finalizer": teamspace.Finalizer}), show(f.Alpha.Finalizers))
		}},
}}

func archiveRecord(ev *evidenceSet, _ *Facts) Verdict {
	want := i18n.T("check.step6.archive_want")
	if ev.archiveProblem != "" {
		return Holds(false, want, ev.archiveProblem)
	}
	a := ev.Archive
	return Holds(a.Name == "beta" && a.UID != "" && a.Pods == 2, want, show(a))
}

func gone(exists bool, describe func() string) Verdict {
	g := i18n.T("check.gone")
	if exists {
		return Holds(false, g, describe())
	}
	return Holds(true, g, g)
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

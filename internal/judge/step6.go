package judge

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Step 6: cleanup before deletion. cleanup.json, the archive record, beta
// and team-beta gone, and alpha held by the finalizer. The temporary
// TeamSpace deleted through the finalizer is a live probe (package check, probe_finalizer.go).
var step6Checks = &stepChecks{step: lab.Cleanup, facts: []factCheck{
	{id: "step6.archive_record", title: "archive/beta.json is the controller's record of beta: name beta, its uid, pods 2",
		hint: func(ev *evidenceSet, _ *Facts) string {
			return "the controller writes it before it lets beta go; " + ev.redo(lab.Cleanup.Number)
		},
		judge: archiveRecord},
	{id: "step6.beta_gone", title: "TeamSpace beta is gone",
		hint: func(ev *evidenceSet, f *Facts) string {
			if f.Engine == lab.EngineOwn {
				return controllerAdvice(f, "must, "+lab.ArchiveThenRelease)
			}
			return "beta is still there: is the controller running with the finalizer on (`cnpa service logs`)? or " + ev.redo(lab.Cleanup.Number)
		},
		judge: func(_ *evidenceSet, f *Facts) Verdict {
			return gone(f.Beta != nil, func() string {
				return fmt.Sprintf("beta exists (uid %s, deleting %t, finalizers %v)", f.Beta.UID, f.Beta.DeletionTimestamp != nil, f.Beta.Finalizers)
			})
		}},
	{id: "step6.team_beta_gone", title: "namespace team-beta is gone",
		hint: func(_ *evidenceSet, f *Facts) string {
			if f.TeamBeta != nil && !ownedByATeamSpace(f.TeamBeta.OwnerReferences) {
				// Nothing will delete it: waiting is no advice.
				return "team-beta has no ownerReference to a TeamSpace, so the garbage collector never deletes it: the controller must set one when it creates " +
					"a namespace (LAB.md step 3); delete this one: `kubectl delete namespace team-beta`"
			}
			return "team-beta goes by garbage collection once beta is gone (up to a minute): " +
				"`kubectl wait --for=delete namespace/team-beta --timeout=2m`, then `cnpa check` again"
		},
		judge: func(_ *evidenceSet, f *Facts) Verdict {
			return gone(f.TeamBeta != nil, func() string { return "team-beta exists, phase " + string(f.TeamBeta.Status.Phase) })
		}},
	{id: "step6.alpha_finalizer", title: "alpha carries the finalizer " + teamspace.Finalizer,
		hint: func(_ *evidenceSet, f *Facts) string {
			if f.Engine == lab.EngineOwn {
				return controllerAdvice(f, "must "+lab.KeepOtherFinalizers+" (LAB.md step 6)")
			}
			switch {
			case !f.Service.Active:
				// Step 6 needs the controller running: it would refuse.
				return "the controller adds it, and it is not running: `cnpa service start`"
			case !f.FinalizerOn:
				return "the controller adds it when finalizer handling is on: run `cnpa step 6` (it turns it on)"
			}
			return "the controller runs with finalizer handling on but has not added it: see what it says, `cnpa service logs`"
		},
		judge: func(_ *evidenceSet, f *Facts) Verdict {
			if f.Alpha == nil {
				return Holds(false, "finalizers including "+teamspace.Finalizer, "TeamSpace alpha does not exist")
			}
			return Holds(teamspace.HasFinalizer(f.Alpha.Finalizers, teamspace.Finalizer), "finalizers including "+teamspace.Finalizer, show(f.Alpha.Finalizers))
		}},
}}

func archiveRecord(ev *evidenceSet, _ *Facts) Verdict {
	want := `{"name":"beta","uid":<beta's uid>,"pods":2}`
	if ev.archiveProblem != "" {
		return Holds(false, want, ev.archiveProblem)
	}
	a := ev.Archive
	return Holds(a.Name == "beta" && a.UID != "" && a.Pods == 2, want, show(a))
}

func gone(exists bool, describe func() string) Verdict {
	if exists {
		return Holds(false, "gone", describe())
	}
	return Holds(true, "gone", "gone")
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

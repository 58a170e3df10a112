package check

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

// diagnosisByID is the mistake a failed check points to by itself.
var diagnosisByID = map[string]string{
	"step1.uid": lab.MistakeStale, "step2.uid": lab.MistakeStale, "step3.namespace_owner_uid": lab.MistakeStale,
	"step5.deleted_uid": lab.MistakeStale, "step5.restored_uid_new": lab.MistakeStale, "step5.restored_uid_live": lab.MistakeStale,
	"step6.uid": lab.MistakeStale, "step7.generation_live": lab.MistakeStale,
	"step3.namespace_owned":        lab.MistakeNoOwner,
	"step6.team_beta_gone":         lab.MistakeNoOwner,
	"step6.namespace_gone":         lab.MistakeNoOwner,
	"step3.rerun_writes_nothing":   lab.MistakeWritesEachPass,
	"step3.second_pass_rv_changed": lab.MistakeWritesEachPass,
	"step5.quota_in_sync":          lab.MistakeQuotaSpec,
	"step6.archive_record":         lab.MistakeNoArchive,
	"step4.service_active":         lab.MistakeNotRunning,
	"step7.observed_after_start":   lab.MistakeEdge,
	"step7.quota_pods_after_start": lab.MistakeEdge,
	"step7.alpha_observed":         lab.MistakeEdge,
	DriftLiveID:                    lab.MistakeEdge,
}

// Diagnose names the classic mistake a failed check points to, "" when it
// points to none (the step is just not done, say). facts, when known, are
// what the check was judged against: the cluster tells some mistakes apart
// that the check alone does not (a status that never appeared).
func Diagnose(c Check, facts *Facts) string {
	if c.Status != Fail {
		return ""
	}
	if facts != nil && c.Step >= lab.Reconcile.Number { // the controller runs from step 3 on
		if m := factsMistake(facts); m != "" {
			return m
		}
	}
	switch {
	case strings.HasPrefix(c.ID, "step1.crd"):
		return lab.MistakeCRD
	case c.ID == "step6.finalizer_added_keeps_foreign" && (strings.Contains(c.Actual, "finalizer was dropped") ||
		// The own identity's admission policy refuses the overwrite; the
		// controller's log says so.
		strings.Contains(c.Actual, "may only add or remove the finalizer")),
		c.ID == "step6.delete_archives" && strings.Contains(c.Actual, "foreign finalizer was removed"):
		return lab.MistakeFinalizerList
	case c.ID == "step6.delete_archives" && strings.Contains(c.Actual, "no archive record"):
		return lab.MistakeNoArchive
	case c.ID == "step5.quota_in_sync" && strings.Contains(c.Actual, "does not exist"):
		return lab.MistakeEdge
	case c.ID == "step4.new_teamspace_converges" && strings.Contains(c.Actual, "quota"):
		return lab.MistakeQuotaSpec
	}
	return diagnosisByID[c.ID]
}

// factsMistake is the mistake the cluster itself shows, whatever check
// failed first: a status the server dropped, a namespace nobody owns, a
// quota that is not the spec.
func factsMistake(f *Facts) string {
	a := f.Alpha
	if a == nil {
		return ""
	}
	switch {
	case a.Generation > 0 && a.Status.ObservedGeneration == 0 && f.TeamAlpha != nil:
		// The pass made the namespace, so it ran; only a status write to
		// the main endpoint leaves no observedGeneration at all.
		return lab.MistakeStatusMain
	case f.TeamAlpha != nil && !teamspace.HasOwnerReference(f.TeamAlpha.OwnerReferences, a.UID):
		return lab.MistakeNoOwner
	case f.Quota != nil && !quotaIsSpec(a, f.Quota):
		return lab.MistakeQuotaSpec
	}
	return ""
}

func quotaIsSpec(a *teamspace.TeamSpace, q *corev1.ResourceQuota) bool {
	d, err := teamspace.DesiredState(a)
	return err != nil || d.QuotaMatches(q.Spec.Hard)
}

// mistakeOrder ranks the mistakes when one step's failed checks point to
// several: the one that explains the others first (a finalizer list
// overwritten also loses the archive record's chance; a stale file is
// what is left when nothing more specific is known).
var mistakeOrder = []string{lab.MistakeStatusMain, lab.MistakeNoOwner, lab.MistakeQuotaSpec, lab.MistakeWritesEachPass, lab.MistakeFinalizerList,
	lab.MistakeNoArchive, lab.MistakeEdge, lab.MistakeNotRunning, lab.MistakeCRD, lab.MistakeStale}

// LabDiagnosis is a whole report's diagnosis: the first mistake, by
// mistakeOrder, that the failed checks of the earliest failing step point
// to; else the first mistake of a later step; else what the earliest
// failed check says is missing ("step 3 not done"); "" when nothing
// failed.
func LabDiagnosis(checks []Check, facts *Facts) string {
	first := 0
	for _, c := range checks {
		if c.Status == Fail && (first == 0 || c.Step < first) {
			first = c.Step
		}
	}
	if first == 0 {
		return ""
	}
	pick := func(inStep bool) string {
		found := map[string]bool{}
		for _, c := range checks {
			if d := Diagnose(c, facts); d != "" && (!inStep || c.Step == first) {
				found[d] = true
			}
		}
		for _, m := range mistakeOrder {
			if found[m] {
				return m
			}
		}
		return ""
	}
	if d := pick(true); d != "" {
		return d
	}
	if d := pick(false); d != "" {
		return d
	}
	for _, c := range checks {
		if c.Status == Fail && c.Step == first {
			if strings.HasSuffix(c.ID, ".file") && strings.Contains(c.Actual, "missing") {
				return fmt.Sprintf("step %d not done", first)
			}
			return c.Title
		}
	}
	return ""
}

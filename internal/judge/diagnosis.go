package judge

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Diagnose is the classic mistake a failed check points to, zero when it
// points to none (the step is just not done, say): the mistake its
// verdict or its row named, unless the facts, when known, show one that
// explains it better (the cluster tells some mistakes apart that the
// check alone does not: a status that never appeared). A check read back
// from a submission keeps only its recorded diagnosis, which stands for
// its verdict's.
func Diagnose(c Check, f *Facts) lab.Mistake {
	if c.Status != Fail {
		return lab.Mistake{}
	}
	// A refused apply, read from the controller's own output, says why
	// better than what it left in the cluster (a quota that is not the
	// spec): the verdict's, or the diagnosis a submission recorded.
	if c.mistake == lab.MistakeApplyConflict || c.mistake.IsZero() && c.Diagnosis == lab.MistakeApplyConflict {
		return lab.MistakeApplyConflict
	}
	if f != nil && c.Step >= lab.ControllerStep {
		if m := factsMistake(f); !m.IsZero() {
			return m
		}
	}
	if !c.mistake.IsZero() {
		return c.mistake
	}
	return c.Diagnosis
}

// Rediagnose is c diagnosed again against the facts f.
func Rediagnose(c Check, f *Facts) Check {
	c.Diagnosis = Diagnose(c, f)
	return c
}

// factsMistake is the mistake the cluster itself shows, whatever check
// failed first: a status the server dropped, a namespace nobody owns, a
// quota that is not the spec.
func factsMistake(f *Facts) lab.Mistake {
	a := f.Alpha
	if a == nil {
		return lab.Mistake{}
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
	return lab.Mistake{}
}

func quotaIsSpec(a *teamspace.TeamSpace, q *corev1.ResourceQuota) bool {
	d, err := teamspace.DesiredState(a)
	return err != nil || d.QuotaMatches(q.Spec.Hard)
}

// mistakeOrder ranks the mistakes when one step's failed checks point to
// several: the one that explains the others first (a refused apply leaves
// any gap; a finalizer list
// overwritten also loses the archive record's chance; a stale file is
// what is left when nothing more specific is known).
var mistakeOrder = []lab.Mistake{lab.MistakeApplyConflict, lab.MistakeStatusMain, lab.MistakeNoOwner, lab.MistakeQuotaSpec, lab.MistakeWritesEachPass, lab.MistakeFinalizerList,
	lab.MistakeNoArchive, lab.MistakeEdge, lab.MistakeNotRunning, lab.MistakeCRD, lab.MistakeStale}

// LabDiagnosis is a whole report's diagnosis: the first mistake, by
// mistakeOrder, that the failed checks of the earliest failing step point
// to; else the first mistake of a later step; else what the earliest
// failed check says is missing ("step 3 not done"); "" when nothing
// failed.
func LabDiagnosis(checks []Check, f *Facts) string {
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
			if d := Diagnose(c, f); !d.IsZero() && (!inStep || c.Step == first) {
				found[d.Name] = true
			}
		}
		for _, m := range mistakeOrder {
			if found[m.Name] {
				return m.Name
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
			if c.notDone {
				return i18n.T("check.step_not_done", i18n.Args{"N": first})
			}
			return c.Title
		}
	}
	return ""
}

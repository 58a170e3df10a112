package judge

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

func TestLabDiagnosis(t *testing.T) {
	// A failed check as its verdict leaves it: the mistake it names, if
	// any (the message says nothing to the diagnosis).
	fail := func(id string, step int, actual string, named ...lab.Mistake) Check {
		c := Check{ID: id, Step: step, Status: Fail, Actual: actual, Title: id + "'s title", mistake: rowMistake[id]}
		if len(named) > 0 {
			c.mistake = named[0]
		}
		return c
	}
	missing := func(id string, step int, actual string) Check {
		c := fail(id, step, actual)
		c.notDone = true
		return c
	}
	pass := func(id string, step int) Check { return Check{ID: id, Step: step, Status: Pass} }
	alpha := &teamspace.TeamSpace{ObjectMeta: metav1.ObjectMeta{Name: "alpha", UID: "a", Generation: 2}}
	noStatus := &Facts{Alpha: alpha, TeamAlpha: &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-alpha",
		OwnerReferences: []metav1.OwnerReference{alpha.OwnerReference()}}}}
	for _, tc := range []struct {
		name   string
		checks []Check
		facts  *Facts
		want   string
	}{
		{"all pass", []Check{pass("step1.uid", 1)}, nil, ""},
		{"a step not done", []Check{pass("step1.uid", 1), missing("step3.file", 3, "reconcile.json missing")}, nil, "step 3 not done"},
		{"status never appeared", []Check{missing("step3.file", 3, "reconcile.json missing")}, noStatus, lab.MistakeStatusMain.Name},
		{"the finalizer list before the archive", []Check{fail("step6.archive_record", 6, "archive/beta.json is missing"),
			fail("step6.finalizer_added_keeps_foreign", 6, "x: another controller's finalizer was dropped. Add ours", lab.MistakeFinalizerList)}, nil, lab.MistakeFinalizerList.Name},
		{"the earliest step's mistake", []Check{fail("step1.uid", 1, "x"), fail("step3.rerun_writes_nothing", 3, "x")}, nil, lab.MistakeStale.Name},
		{"a deleted quota never back", []Check{fail("step5.quota_in_sync", 5, "team-alpha/team-quota does not exist", lab.MistakeEdge)}, nil, lab.MistakeEdge.Name},
		{"no mistake known: the check's title", []Check{fail("step5.reverted_to", 5, "7")}, nil, "step5.reverted_to's title"},
	} {
		if got := LabDiagnosis(tc.checks, tc.facts); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestApplyConflictStandsOverTheFacts: a refused apply, read from the
// controller's output, explains a quota that is not the spec (the facts'
// mistake) better; it stands whether the verdict named it or a
// submission recorded it, and ranks first among a step's mistakes.
func TestApplyConflictStandsOverTheFacts(t *testing.T) {
	alpha := &teamspace.TeamSpace{ObjectMeta: metav1.ObjectMeta{Name: "alpha", UID: "a", Generation: 2}}
	alpha.Spec.Pods = 6
	alpha.Status.ObservedGeneration = 2
	f := &Facts{Alpha: alpha,
		TeamAlpha: &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-alpha", OwnerReferences: []metav1.OwnerReference{alpha.OwnerReference()}}},
		Quota: &corev1.ResourceQuota{Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{
			corev1.ResourcePods: resource.MustParse("99"), corev1.ResourceRequestsCPU: resource.MustParse("1")}}}}
	if m := factsMistake(f); m != lab.MistakeQuotaSpec {
		t.Fatalf("the facts' own mistake: got %q, want %q", m.Name, lab.MistakeQuotaSpec.Name)
	}
	named := Check{ID: "step5.drift_reverted_live", Step: 5, Status: Fail, mistake: lab.MistakeApplyConflict}
	recorded := Check{ID: "step5.quota_in_sync", Step: 5, Status: Fail, Diagnosis: lab.MistakeApplyConflict}
	for name, c := range map[string]Check{"named by the verdict": named, "recorded": recorded} {
		if got := Diagnose(c, f); got != lab.MistakeApplyConflict {
			t.Errorf("%s: got %q, want %q", name, got.Name, lab.MistakeApplyConflict.Name)
		}
	}
	quota := Check{ID: "step5.quota_in_sync", Step: 5, Status: Fail, mistake: rowMistake["step5.quota_in_sync"]}
	if got := LabDiagnosis([]Check{quota, named}, f); got != lab.MistakeApplyConflict.Name {
		t.Errorf("LabDiagnosis: got %q, want %q", got, lab.MistakeApplyConflict.Name)
	}
}

// rowMistake is the mistake the rows of these checks name (each step's
// folder under package course), as a failed check carries it.
var rowMistake = map[string]lab.Mistake{
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
	"step5.drift_reverted_live":    lab.MistakeEdge,
}

package teamspace_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/teamspace"
)

// A gap is said in the chosen language, in English as it always was; a
// spec no controller can serve is said to a learner in the chosen
// language (Said), while Error, which the controller's Warning Event
// says in the cluster, stays English whatever the language.
func TestGapsAndSpecErrorsInTheChosenLanguage(t *testing.T) {
	defer i18n.Set(i18n.Current())
	ts := newTS("alpha", 6, "1")
	ts.UID, ts.Generation = "u-1", 2
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-alpha",
		OwnerReferences: []metav1.OwnerReference{{UID: "u-1", Kind: teamspace.Kind, Name: "alpha"}}}}
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: teamspace.QuotaName, Namespace: "team-alpha"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("99"),
			corev1.ResourceRequestsCPU: resource.MustParse("1"), "limits.memory": resource.MustParse("1Gi")}}}
	want := map[i18n.Lang][]string{
		i18n.English: {
			"finalizers [] lack platform.labhub.io/cleanup",
			"namespace team-alpha ownerReference to uid u-1 is not marked controller",
			`namespace team-alpha label platform.labhub.io/teamspace=""`,
			"team-alpha/team-quota pods=99 cpu=1, spec asks pods=6 cpu=1 and nothing else (extra [limits.memory])",
			`team-alpha/team-quota label platform.labhub.io/teamspace=""`,
			`status observedGeneration=0 namespace="", generation 2`,
		},
		i18n.Japanese: {
			"finalizers []にplatform.labhub.io/cleanupがない",
			"ネームスペースteam-alphaのuid u-1へのownerReferenceに、controllerの印がない",
			`ネームスペースteam-alphaのラベルplatform.labhub.io/teamspaceが""`,
			"team-alpha/team-quotaはpods=99 cpu=1、specが求めるのはpods=6 cpu=1だけ（余分: [limits.memory]）",
			`team-alpha/team-quotaのラベルplatform.labhub.io/teamspaceが""`,
			`statusはobservedGeneration=0 namespace=""、generationは2`,
		},
	}
	gaps, err := teamspace.FindGaps(ts, ns, q, true)
	if err != nil {
		t.Fatal(err)
	}
	for l, w := range want {
		i18n.Set(l)
		if len(gaps) != len(w) {
			t.Fatalf("%d gaps, want %d: %v", len(gaps), len(w), gaps)
		}
		for i, g := range gaps {
			if g.String() != w[i] {
				t.Errorf("%s: gap %s is %q, want %q", l, g.Kind, g, w[i])
			}
		}
	}
	_, err = teamspace.DesiredState(newTS("c", 1, "lots"))
	invalid, _ := err.(*teamspace.InvalidSpecError)
	i18n.Set(i18n.Japanese)
	const en = `spec.cpu "lots" is not a CPU amount: use cores with up to 3 decimals ("1", "0.5") or millicores ("500m")`
	if invalid == nil || invalid.Error() != en || invalid.Said() != `spec.cpu "lots": CPUの量ではない: 小数点以下3桁までのコア数（"1"、"0.5"）か、ミリコア（"500m"）で書く` {
		t.Errorf("in Japanese: Error %q (want it English: %q), Said %q", err, en, invalid.Said())
	}
}

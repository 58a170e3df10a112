package judge_test

import (
	"encoding/json"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/course/step6"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

// A probe's verdict carries its mistake to the check, the facts can
// explain it better, and a check written down keeps it by name: what a
// submission holds and `cnpa class grade` reads back.
func TestMistakeTravelsWithTheVerdict(t *testing.T) {
	v := lab.Holds(false, "archived", "no archive record")
	v.Mistake = lab.MistakeNoArchive
	c := step6.ProbeDeleteArchives.Check(v, &judge.Facts{})
	if c.Status != judge.Fail || c.Diagnosis != lab.MistakeNoArchive || c.Hint == "" {
		t.Fatalf("probe check %+v: want a failure diagnosed %q, with a hint", c, lab.MistakeNoArchive)
	}
	alpha := &teamspace.TeamSpace{ObjectMeta: metav1.ObjectMeta{Name: "alpha", UID: "a", Generation: 2}}
	noStatus := &judge.Facts{Alpha: alpha, TeamAlpha: &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-alpha",
		OwnerReferences: []metav1.OwnerReference{alpha.OwnerReference()}}}}
	if got := judge.Rediagnose(c, noStatus).Diagnosis; got != lab.MistakeStatusMain {
		t.Errorf("against facts with no status: %q, want %q", got, lab.MistakeStatusMain)
	}
	if got := judge.Rediagnose(c, &judge.Facts{}).Diagnosis; got != lab.MistakeNoArchive {
		t.Errorf("against facts that show nothing: %q, want the verdict's %q", got, lab.MistakeNoArchive)
	}

	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"diagnosis":"`+lab.MistakeNoArchive.Name+`"`) {
		t.Errorf("JSON %s: want the diagnosis as the mistake's name", data)
	}
	var back judge.Check
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back.Diagnosis != lab.MistakeNoArchive || judge.Diagnose(back, nil) != lab.MistakeNoArchive {
		t.Errorf("read back: %+v, want diagnosis %q with its advice", back.Diagnosis, lab.MistakeNoArchive)
	}
	pass := step6.ProbeDeleteArchives.Check(lab.Holds(true, "archived", "archived"), noStatus)
	if data, _ := json.Marshal(pass); strings.Contains(string(data), "diagnosis") {
		t.Errorf("a passing check's JSON %s: want no diagnosis", data)
	}
}

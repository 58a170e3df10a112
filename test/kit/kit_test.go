package kit

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/teamspace"
)

// TestCheckConverged pins what the tests' converged adds to FindGaps: the
// spec the test set, and our finalizer absent when it is off.
func TestCheckConverged(t *testing.T) {
	yes := true
	ts := func(finalizers ...string) *teamspace.TeamSpace {
		return &teamspace.TeamSpace{
			ObjectMeta: metav1.ObjectMeta{Name: "a", UID: "u1", Generation: 2, Finalizers: finalizers},
			Spec:       teamspace.Spec{Pods: 4, CPU: "500m"},
			Status:     teamspace.Status{ObservedGeneration: 2, Namespace: "team-a"},
		}
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a", Labels: map[string]string{teamspace.OwnerLabel: "a"},
		OwnerReferences: []metav1.OwnerReference{{Kind: teamspace.Kind, UID: "u1", Controller: &yes}}}}
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: teamspace.QuotaName, Labels: map[string]string{teamspace.OwnerLabel: "a"}},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{
			corev1.ResourcePods: resource.MustParse("4"), corev1.ResourceRequestsCPU: resource.MustParse("0.5")}}}
	for _, tc := range []struct {
		name        string
		ts          *teamspace.TeamSpace
		ns          *corev1.Namespace
		q           *corev1.ResourceQuota
		pods        int64
		cpu         string
		finalizerOn bool
		want        string // in the error; "" for converged
	}{
		{"converged, finalizer on", ts(teamspace.Finalizer), ns, q, 4, "500m", true, ""},
		{"converged, finalizer off", ts(), ns, q, 4, "500m", false, ""},
		{"any spec", ts(teamspace.Finalizer), ns, q, -1, "", true, ""},
		{"spec not what the test set", ts(teamspace.Finalizer), ns, q, 5, "500m", true, "want pods=5"},
		{"finalizer missing", ts(), ns, q, 4, "500m", true, "finalizer"},
		{"finalizer there while off", ts(teamspace.Finalizer), ns, q, 4, "500m", false, "want it absent"},
		{"no namespace", ts(teamspace.Finalizer), nil, q, 4, "500m", true, "namespace team-a missing"},
		{"no quota", ts(teamspace.Finalizer), ns, nil, 4, "500m", true, "quota"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckConverged(tc.ts, tc.ns, tc.q, tc.pods, tc.cpu, tc.finalizerOn)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("got %v, want converged", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got %v, want an error naming %q", err, tc.want)
			}
		})
	}
}

func TestSumMetric(t *testing.T) {
	body := `# TYPE cnpa_reconcile_total counter
cnpa_reconcile_total{result="ok"} 7
cnpa_reconcile_total{result="error"} 2
cnpa_reconcile_total_other 100
cnpa_archived_total 3
`
	for _, tc := range []struct {
		name, sel string
		want      float64
	}{
		{"cnpa_reconcile_total", "", 9},
		{"cnpa_reconcile_total", `result="error"`, 2},
		{"cnpa_archived_total", "", 3},
		{"cnpa_missing_total", "", 0},
	} {
		if got := SumMetric(body, tc.name, tc.sel); got != tc.want {
			t.Errorf("SumMetric(%s, %q): got %v, want %v", tc.name, tc.sel, got, tc.want)
		}
	}
}

func TestTailBuffer(t *testing.T) {
	b := &TailBuffer{Max: 4}
	b.Write([]byte("abc"))
	b.Write([]byte("def"))
	if got, want := b.String(), "cdef"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var none *TailBuffer
	if got := none.String(); got != "" {
		t.Errorf("nil buffer: got %q, want empty", got)
	}
}

// A heredoc and a long command over bash's continuations each come back
// as the one command bash reads.
func TestShownCommands(t *testing.T) {
	out := "Step 1 — x\n  $ cat > /d/a.yaml <<'EOF'\n  > kind: TeamSpace\n  >   name: alpha\n  > EOF\n" +
		"    teamspace.platform.labhub.io/alpha serverside-applied\n  … waiting for x\n  $ uid=$(kubectl get teamspace alpha)\n    → 1\n"
	got := ShownCommands(out)
	want := []string{"cat > /d/a.yaml <<'EOF'\nkind: TeamSpace\n  name: alpha\nEOF", "uid=$(kubectl get teamspace alpha)"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("got %q, want %q", got, want)
	}
}

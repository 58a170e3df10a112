package lab

import (
	"strings"
	"testing"
)

// TestMakeLabProblems holds the rules TestMakeLabLines applies to lines
// of make lab as they were, English ones too wide and in Japanese.
func TestMakeLabProblems(t *testing.T) {
	out := strings.Join([]string{
		"$ cnpa step all --engine go",
		"Step 1 — Registering a type does nothing by itself",
		"A CRD only registers a new noun with the API server. Creating a TeamSpace stores it,",
		"  # wrote /tmp/x/cnpa-op/crd.yaml (74 lines: `cat` it, or --verbose shows it here, a line with a path)",
		"  $ kubectl apply --server-side --field-manager=cnpa-lab --force-conflicts -f /tmp/x/crd.yaml",
		"    customresourcedefinition.apiextensions.k8s.io/teamspaces.platform.labhub.io serverside-applied as kubectl said it",
		"  … CRD teamspaces.platform.labhub.io がEstablishedになるのを待っています",
		"  ✓ its identity may not touch kube-system refused by ValidatingAdmissionPolicy cnpa-controller-writes",
		"  +1238 ms  kube-apiserver        TeamSpace cnpa-probe-dcf6b6 created (uid f20744aa-5a6e-4648-a043-08a32e2b8226, generation…  watch",
		"  │ ExecStart=/x/cnpa controller --archive-dir /x/archive --finalizer=false --interval=3s  ← what runs: the reconcile loop, forever",
		"    → false",
		"$ cnpa check",
		"… running reconcile.sh twice more to see that it writes nothing",
	}, "\n")
	en := makeLabProblems(out, false)
	if len(en) != 1 || !strings.HasPrefix(en[0], "line 3 is 84 columns wide") {
		t.Errorf("English: got %q, want line 3 alone, 84 columns wide", en)
	}
	ja := makeLabProblems(out, true)
	want := []string{"line 2 is English", "line 3 is 84 columns wide", "line 3 is English", "line 4 is English", "line 13 is English"}
	if len(ja) != len(want) {
		t.Fatalf("Japanese: got %q, want %q", ja, want)
	}
	for i := range want {
		if !strings.HasPrefix(ja[i], want[i]) {
			t.Errorf("Japanese: got %q, want %q first", ja[i], want[i])
		}
	}
}

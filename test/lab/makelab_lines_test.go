package lab

import (
	"strings"
	"testing"
)

// TestMakeLabProblems holds the rules TestMakeLabLines applies to lines
// of make lab as they were, English ones too wide and in Japanese: a
// comment, a ✓ row and a listing's mark are held to 80 columns too, with
// the run's paths measured as a learner's (/root/cnpa-op).
func TestMakeLabProblems(t *testing.T) {
	out := strings.Join([]string{
		"labrun: real control plane on etcd at https://127.0.0.1:1 ready in 1s (kubeconfig /tmp/cnpa-cluster-12345678901234/kubeconfig)",
		"$ cnpa step all --engine go",
		"Step 1 — Registering a type does nothing by itself",
		"A CRD only registers a new noun with the API server. Creating a TeamSpace stores it,",
		"  # wrote /tmp/cnpa-cluster-12345678901234/cnpa-op/crd.yaml (74 lines: `cat` it, or --verbose)",
		"  # wrote /tmp/x/cnpa-op/crd.yaml (74 lines: `cat` it, or --verbose shows it here, a line with a path)",
		"  $ kubectl apply --server-side --field-manager=cnpa-lab --force-conflicts -f /tmp/x/crd.yaml",
		"    customresourcedefinition.apiextensions.k8s.io/teamspaces.platform.labhub.io serverside-applied as kubectl said it",
		"  … CRD teamspaces.platform.labhub.io がEstablishedになるのを待っています",
		"  ✓ its identity may not touch kube-system refused by ValidatingAdmissionPolicy cnpa-controller-writes",
		"  +1238 ms  kube-apiserver        TeamSpace cnpa-probe-dcf6b6 created (uid f20744aa-5a6e-4648-a043-08a32e2b8226, generation…  watch",
		"  │ ExecStart=/x/cnpa controller --archive-dir /x/archive --finalizer=false --interval=3s  ← what runs: the reconcile loop, forever",
		"  │ ExecStart=/x/cnpa controller --archive-dir /x/archive --finalizer=false --interval=3s",
		"  │   ↑ what runs: the reconcile loop, forever",
		"  │ exec '/work/wt/x/.bin/cnpa' controller --once --kubeconfig \"$KUBECONFIG\" --archive-dir '/root/cnpa-op/archive' --finalizer=false",
		"  timeline (times since: kubectl patch teamspace alpha --type=merge -p '{\"spec\":{\"pods\":8}}')",
		"    → false",
		"$ cnpa check",
		"… running reconcile.sh twice more to see that it writes nothing",
		"  タイムライン",
		"  (時刻は次からの経過:",
		"   kubectl delete resourcequota team-quota -n team-alpha --wait=false)",
	}, "\n")
	en := makeLabProblems(out, false)
	wantEn := []string{"line 4 is 84 columns wide", "line 6 is 102 columns wide", "line 10 is 102 columns wide", "line 11 is 131 columns wide", "line 12 is 131 columns wide", "line 16 is 93 columns wide"}
	ja := makeLabProblems(out, true)
	wantJa := []string{"line 3 is English", "line 4 is 84 columns wide", "line 4 is English", "line 6 is 102 columns wide", "line 6 is English",
		"line 10 is 102 columns wide", "line 11 is 131 columns wide", "line 12 is 131 columns wide", "line 16 is 93 columns wide", "line 16 is English", "line 19 is English"}
	for _, c := range []struct {
		lang      string
		got, want []string
	}{{"English", en, wantEn}, {"Japanese", ja, wantJa}} {
		if len(c.got) != len(c.want) {
			t.Errorf("%s: got %d problems, want %d:\n%s", c.lang, len(c.got), len(c.want), strings.Join(c.got, "\n"))
			continue
		}
		for i := range c.want {
			if !strings.HasPrefix(c.got[i], c.want[i]) {
				t.Errorf("%s: got %q, want %q first", c.lang, c.got[i], c.want[i])
			}
		}
	}
}

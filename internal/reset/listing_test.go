package reset

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

func TestIsProbe(t *testing.T) {
	cases := []struct {
		name string
		want bool
	}{
		{lab.TempName(lab.ProbePrefix), true},
		{lab.TempName(lab.TempPrefix), true},
		{lab.ProbePrefix, true}, // the prefix alone is still cnpa's name
		{"alpha", false},
		{"beta", false},
		{"cnpa-probe", false}, // not the prefix: a learner's name
		{"my-cnpa-check-1", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := isProbe(c.name); got != c.want {
				t.Errorf("isProbe(%q): got %v, want %v", c.name, got, c.want)
			}
		})
	}
}

// owned is team-<name> as the controller makes it for the TeamSpace with uid.
func owned(name string, uid types.UID) corev1.Namespace {
	ts := teamspace.TeamSpace{ObjectMeta: metav1.ObjectMeta{Name: name, UID: uid}}
	return corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: teamspace.NamespaceName(name),
		Labels:          map[string]string{teamspace.OwnerLabel: name},
		OwnerReferences: []metav1.OwnerReference{ts.OwnerReference()}}}
}

func namespace(name string, labels map[string]string, refs ...metav1.OwnerReference) corev1.Namespace {
	return corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, OwnerReferences: refs}}
}

func TestOurNamespace(t *testing.T) {
	owners := map[string]types.UID{"alpha": "uid-a", "beta": "uid-b"}
	notController := owned("beta", "uid-b")
	notController.OwnerReferences[0].Controller = nil
	stale := owned("alpha", "uid-old") // an earlier alpha's, whose owner is gone
	foreign := map[string]string{"owner": lab.ForeignNamespaceOwner}
	cases := []struct {
		name string
		ns   corev1.Namespace
		want bool
	}{
		{"alpha's namespace, as the controller made it", owned("alpha", "uid-a"), true},
		{"a namespace whose TeamSpace is gone", owned("gamma", "uid-g"), false},
		{"step 4's probe's namespace, its TeamSpace gone", owned(lab.TempName(lab.ProbePrefix), "uid-p"), true},
		{"a probe's name with no TeamSpace ownerReference", namespace(teamspace.NamespaceName(lab.TempName(lab.ProbePrefix)), nil), false},
		{"a probe's name owned by something else", namespace(teamspace.NamespaceName(lab.TempName(lab.ProbePrefix)), nil,
			metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "x", UID: "uid-c"}), false},
		{"team-alpha owned by another uid", stale, false},
		{"team-beta with a TeamSpace ownerReference that is not the controller's", notController, false},
		{"team-alpha with our label and no ownerReference", namespace("team-alpha", map[string]string{teamspace.OwnerLabel: "alpha"}), false},
		{"check's stand-in for a foreign namespace", namespace(teamspace.NamespaceName(lab.TempName(lab.TempPrefix)), foreign), true},
		{"owner=someone-else, but not named after check's TeamSpaces", namespace("team-alpha-x", foreign), false},
		{"check's name without check's label", namespace(teamspace.NamespaceName(lab.TempName(lab.TempPrefix)), nil), false},
		{"kube-system", namespace("kube-system", nil), false},
		{"alpha, not a team namespace", namespace("alpha", nil, owned("alpha", "uid-a").OwnerReferences...), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ourNamespace(owners, &c.ns); got != c.want {
				t.Errorf("ourNamespace(%s): got %v, want %v", c.ns.Name, got, c.want)
			}
		})
	}
}

// TestListingRemoves: what the one listing (Inspect's and Run's) says goes,
// from the TeamSpaces and namespaces a cluster holds.
func TestListingRemoves(t *testing.T) {
	ts := func(name string, uid types.UID) unstructured.Unstructured {
		u := unstructured.Unstructured{}
		u.SetName(name)
		u.SetUID(uid)
		return u
	}
	stand := teamspace.NamespaceName(lab.TempPrefix + "0a1b2c")
	cases := []struct {
		name       string
		teamSpaces []unstructured.Unstructured
		namespaces []corev1.Namespace
		want       []string
	}{
		{"nothing", nil, nil, nil},
		{"no TeamSpaces: only check's leftovers",
			nil,
			[]corev1.Namespace{owned("alpha", "uid-a"), namespace(stand, map[string]string{"owner": lab.ForeignNamespaceOwner})},
			[]string{stand}},
		{"alpha and beta, and step 4's probe's namespace, whose TeamSpace is gone",
			[]unstructured.Unstructured{ts("alpha", "uid-a"), ts("beta", "uid-b")},
			[]corev1.Namespace{owned("alpha", "uid-a"), owned("beta", "uid-b"), owned("cnpa-probe-0a1b2c", "uid-p")},
			[]string{"team-alpha", "team-beta", "team-cnpa-probe-0a1b2c"}},
		{"the lab after step 7, with a stranger's and kube-system, in name order",
			[]unstructured.Unstructured{ts("beta", "uid-b"), ts("alpha", "uid-a")},
			[]corev1.Namespace{namespace("kube-system", nil), owned("beta", "uid-b"), namespace("team-gamma", nil), owned("alpha", "uid-a")},
			[]string{"team-alpha", "team-beta"}},
		{"a newer alpha does not own the old alpha's namespace",
			[]unstructured.Unstructured{ts("alpha", "uid-new")},
			[]corev1.Namespace{owned("alpha", "uid-old")},
			nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got []string
			for _, ns := range ourNamespaces(owners(c.teamSpaces), c.namespaces) {
				got = append(got, ns.Name)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("got %v, want %v", got, c.want)
			}
		})
	}
}

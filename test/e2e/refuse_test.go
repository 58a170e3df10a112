package e2e

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/controller"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/test/kit"
)

// testBadCPU: spec.cpu "abc" (the schema takes any string) is reported once
// as InvalidSpec; the quota keeps its last good values and status does not
// advance; a healthy TeamSpace in the same pass converges.
func testBadCPU(t *testing.T, s *scn) {
	name, ok := s.name("a"), s.name("ok")
	ts := s.createConverged(name, 4, "1")
	s.PatchSpec(name, map[string]any{"cpu": "abc"})
	s.Create(ok, 3, "1")
	s.converge("healthy converged and bad one warned", kit.AllOf(
		s.converged(ok, 3, "1"),
		s.warned(ts.GetUID(), controller.ReasonInvalidSpec, "spec.cpu", "abc")))
	s.expectFailed(name, ok)

	q := s.Quota(teamspace.NamespaceName(name))
	cpu, pods := q.Spec.Hard[corev1.ResourceRequestsCPU], q.Spec.Hard[corev1.ResourcePods]
	if got, want := cpu.String()+"/"+pods.String(), "1/4"; got != want {
		t.Errorf("quota requests.cpu/pods after the bad spec: got %v, want %v", got, want)
	}
	live := s.TeamSpace(name)
	if got, want := live.Status.ObservedGeneration, int64(1); got != want || live.Generation != 2 {
		t.Errorf("observedGeneration (generation %d): got %v, want %v", live.Generation, got, want)
	}
}

// testDottedName: "x.b" is a valid TeamSpace name but team-x.b is no valid
// namespace name: warn, create nothing.
func testDottedName(t *testing.T, s *scn) {
	name, ok := s.name("dot.b"), s.name("ok")
	s.refused(name, ok, controller.ReasonInvalidSpec, "metadata.name", name)
	s.expectNothingFor(name)
}

// testLongName: team-<name> longer than 63 characters: warn, skip.
func testLongName(t *testing.T, s *scn) {
	name, ok := s.name("l"), s.name("ok")
	name += strings.Repeat("x", 60-len(name))
	if n := len(teamspace.NamespaceName(name)); n <= 63 {
		t.Fatalf("test bug: namespace name length %d, want > 63", n)
	}
	s.refused(name, ok, controller.ReasonInvalidSpec, "metadata.name", name)
	s.expectNothingFor(name)
}

// testForeignNamespace: a namespace team-<name> that exists without our
// ownerReference is never adopted.
func testForeignNamespace(t *testing.T, s *scn) {
	name, ok := s.name("a"), s.name("ok")
	nsName := teamspace.NamespaceName(name)
	foreign, err := s.Kube.CoreV1().Namespaces().Create(s.Ctx, &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: nsName, Labels: map[string]string{"owner": "someone-else"}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create foreign namespace: %v", err)
	}
	s.extraNamespaces = append(s.extraNamespaces, nsName)
	s.refused(name, ok, controller.ReasonNamespaceConflict, nsName)

	live := s.Namespace(nsName)
	if got, want := live.ResourceVersion, foreign.ResourceVersion; got != want {
		t.Errorf("foreign namespace resourceVersion: got %v, want %v (modified: labels %v, ownerReferences %v)",
			got, want, live.Labels, live.OwnerReferences)
	}
	if got := live.OwnerReferences; len(got) != 0 {
		t.Errorf("foreign namespace ownerReferences: got %v, want none", got)
	}
	if got, want := live.Labels[teamspace.OwnerLabel], ""; got != want {
		t.Errorf("foreign namespace label %s: got %q, want %q", teamspace.OwnerLabel, got, want)
	}
	if q := s.Quota(nsName); q != nil {
		t.Errorf("quota in the foreign namespace: got %v, want none", q.Spec.Hard)
	}
	if got, want := s.TeamSpace(name).Status.Namespace, ""; got != want {
		t.Errorf("status.namespace: got %q, want %q", got, want)
	}
}

// refused creates TeamSpace name, which the engine must refuse with a
// Warning event of reason naming every one of words, and a healthy ok in
// the same pass, which must converge all the same.
func (s *scn) refused(name, ok, reason string, words ...string) {
	s.t.Helper()
	ts := s.Create(name, 2, "1")
	s.Create(ok, 2, "1")
	s.converge("healthy converged and bad one warned", kit.AllOf(
		s.converged(ok, 2, "1"),
		s.warned(ts.GetUID(), reason, words...)))
	s.expectFailed(name, ok)
}

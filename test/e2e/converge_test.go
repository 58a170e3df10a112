package e2e

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/teamspace"
)

// testCreate: a new TeamSpace gets its namespace, quota, status and (when
// enabled) finalizer. spec.cpu is left out to see the CRD default applied.
func testCreate(t *testing.T, s *scn) {
	name := s.name("a")
	ts := s.Create(name, 4, "")
	s.converge("created", s.converged(name, 4, "1"))

	ns := s.Namespace(teamspace.NamespaceName(name))
	if ns == nil {
		t.Fatalf("namespace %s: got none, want it", teamspace.NamespaceName(name))
	}
	if got, want := ns.Labels[teamspace.OwnerLabel], name; got != want {
		t.Errorf("namespace label %s: got %v, want %v", teamspace.OwnerLabel, got, want)
	}
	if got, want := controllerOwnerUID(ns.OwnerReferences), ts.GetUID(); got != want {
		t.Errorf("namespace controller ownerReference uid: got %v, want %v", got, want)
	}
	live := s.TeamSpace(name)
	if got, want := teamspace.HasFinalizer(live.Finalizers, teamspace.Finalizer), s.sc.finalizer; got != want {
		t.Errorf("finalizer %s present: got %v, want %v (finalizers %v)", teamspace.Finalizer, got, want, live.Finalizers)
	}
}

// testSpecChange: pods 4→6 and cpu "1"→"500m" reach the quota, and
// observedGeneration follows generation.
func testSpecChange(t *testing.T, s *scn) {
	name := s.name("a")
	s.createConverged(name, 4, "1")
	s.PatchSpec(name, map[string]any{"pods": 6, "cpu": "500m"})
	if got, want := s.TeamSpace(name).Generation, int64(2); got != want {
		t.Fatalf("generation after the spec change: got %v, want %v", got, want)
	}
	s.converge("spec change", s.converged(name, 6, "500m"))
}

// testNoop: once everything is in place (and the quota controller has
// filled status.hard), further passes write nothing at all.
func testNoop(t *testing.T, s *scn) {
	name := s.name("a")
	s.createConverged(name, 3, "250m")
	ns := teamspace.NamespaceName(name)
	s.WaitFor("quota status.hard = spec.hard", time.Minute, func() error {
		q := s.Quota(ns)
		if q == nil {
			return errors.New("quota missing")
		}
		if !quantitiesEqual(q.Status.Hard, q.Spec.Hard) {
			return fmt.Errorf("status.hard: got %v, want %v", q.Status.Hard, q.Spec.Hard)
		}
		return nil
	})
	before := s.resourceVersions(name)
	writesBefore := len(s.eng.writes())
	s.idle()
	if got := s.resourceVersions(name); got != before {
		t.Errorf("resourceVersions (teamspace, namespace, quota) after two more passes: got %v, want %v", got, before)
	}
	// A write that changes nothing leaves resourceVersions alone, so count
	// the write requests themselves.
	if got := s.eng.writes()[writesBefore:]; len(got) != 0 {
		t.Errorf("write requests during two more passes: got %q, want none", got)
	}
}

// testCatchUp: a spec change made while the controller is stopped is acted
// on once it runs again; meanwhile observedGeneration shows it is behind.
func testCatchUp(t *testing.T, s *scn) {
	name := s.name("a")
	s.createConverged(name, 4, "1")
	s.eng.stop(t)
	s.PatchSpec(name, map[string]any{"pods": 8})
	live := s.TeamSpace(name)
	if got, want := live.Generation, int64(2); got != want {
		t.Errorf("generation: got %v, want %v", got, want)
	}
	if got, want := live.Status.ObservedGeneration, int64(1); got != want {
		t.Errorf("observedGeneration while stopped: got %v, want %v", got, want)
	}
	if got, want := s.Quota(teamspace.NamespaceName(name)).Spec.Hard.Pods().String(), "4"; got != want {
		t.Errorf("quota pods while stopped: got %v, want %v", got, want)
	}
	s.eng.start(t)
	s.converge("caught up", s.converged(name, 8, "1"))
}

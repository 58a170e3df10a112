package check_test

import (
	"context"
	"slices"
	"testing"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/course"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	discoveryfake "k8s.io/client-go/discovery/fake"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	typedcoordinationv1 "k8s.io/client-go/kubernetes/typed/coordination/v1"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corefake "k8s.io/client-go/kubernetes/typed/core/v1/fake"
	clienttesting "k8s.io/client-go/testing"

	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/teamspace"
)

// typedFake is the typed client of an empty cluster that answers its
// version: the narrow path of Run that needs no control plane.
type typedFake struct{ fake *clienttesting.Fake }

func (t typedFake) CoreV1() typedcorev1.CoreV1Interface { return &corefake.FakeCoreV1{Fake: t.fake} }
func (t typedFake) CoordinationV1() typedcoordinationv1.CoordinationV1Interface {
	panic("not used by check")
}
func (t typedFake) Discovery() discovery.DiscoveryInterface {
	return &discoveryfake.FakeDiscovery{Fake: t.fake}
}

// TestRunFromAnotherMachine: graded from another machine (Options.Reported),
// Run takes the service from the report and never from env (env.Service
// stays unset), makes only the probes that can run there, and reports the
// facts it judged with the VM's part as reported. With no CRD on the
// cluster, every probe of the controller is skipped, the drift probe
// among them, and nothing waits.
func TestRunFromAnotherMachine(t *testing.T) {
	f := &clienttesting.Fake{}
	tracker := clienttesting.NewObjectTracker(runtime.NewScheme(), nil)
	f.AddReactor("*", "*", clienttesting.ObjectReaction(tracker))
	scheme := runtime.NewScheme()
	dyn := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(scheme, map[schema.GroupVersionResource]string{
		teamspace.GVR:    "TeamSpaceList",
		teamspace.CRDGVR: "CustomResourceDefinitionList",
	})
	env := &labenv.Env{Dir: t.TempDir(), Target: &kube.Target{}, Clients: &kube.Clients{Kube: typedFake{f}, Dynamic: dyn}}
	reported := &judge.Facts{Dir: "/root/cnpa-op", Engine: lab.EngineOwn, Unit: "[Service]\nRestart=always\n",
		Service: lab.ServiceStatus{Manager: "systemd", UnitPath: "/etc/systemd/system/cnpa-op.service", Installed: true, Enabled: true, Active: true}}
	rep, facts, err := check.Run(context.Background(), env, check.Options{Steps: course.Steps.Checker(), Reported: reported})
	if err != nil {
		t.Fatal(err)
	}
	if env.Service != nil {
		t.Errorf("Run assigned env.Service: %#v", env.Service)
	}
	if facts.Dir != reported.Dir || facts.Unit != reported.Unit || facts.Service != reported.Service || facts.CRD != nil {
		t.Errorf("facts %+v: want the VM's as reported and the cluster's as read (no CRD)", facts)
	}
	probes := map[string]judge.Check{}
	for _, c := range rep.Checks {
		if slices.Contains(course.Steps.Grader().ProbeIDs(), c.ID) {
			probes[c.ID] = c
		}
	}
	for _, id := range course.Steps.Grader().ProbeIDs() {
		c, ok := probes[id]
		switch remote := slices.Contains(course.Steps.Grader().RemoteIDs(), id); {
		case remote && (!ok || c.Status != judge.Skip):
			t.Errorf("%s: %+v, want it skipped (no CRD)", id, c)
		case !remote && ok:
			t.Errorf("%s made from another machine: %+v", id, c)
		}
	}
}

package faults

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/controller"
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/ui"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// weakSchemaPaths are the CRD schema fields TestUndecodableTeamSpaceIsFinalized
// loosens to int-or-string, as a hand-edited CRD might.
var weakSchemaPaths = []string{
	"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/pods",
	"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/cpu",
}

// TestUndecodableTeamSpaceIsFinalized weakens the CRD's schema so that a
// TeamSpace can hold `spec.pods: "ten"` or `spec.cpu: 5`, which the Go
// engine cannot decode, and deletes two such TeamSpaces that already carry
// our finalizer. Finalizing needs only the name, uid, finalizers and pods
// when it is a whole number: both must be archived (pods 0 for "ten", 3
// where only cpu is wrong) and released, with a Warning event saying what
// could not be decoded; before the fix they stayed Terminating forever.
func TestUndecodableTeamSpaceIsFinalized(t *testing.T) {
	e := kit.New(t, cluster.Shared(t))
	dir := t.TempDir()
	p := e.StartController("decode", kit.CtrlOpts{ArchiveDir: dir})
	cases := []struct {
		name      string
		spec      map[string]any
		wantPods  int64
		wantInMsg string
	}{
		{"dec-pods", map[string]any{"pods": "ten"}, 0, "spec.pods is not a whole number"},
		{"dec-cpu", map[string]any{"cpu": 5}, 3, "pods 3"},
	}
	uids := map[string]types.UID{}
	for _, c := range cases {
		uids[c.name] = e.Create(c.name, 3, "1").GetUID()
	}
	for _, c := range cases {
		e.WaitFor(c.name+" converged", time.Minute, e.Converged(c.name, 3, "1", true))
	}

	weakenSchema(t, e)
	for _, c := range cases {
		// The API server takes a moment to serve the new schema: retry
		// until the write it used to refuse is accepted.
		patch, _ := json.Marshal(map[string]any{"spec": c.spec})
		e.WaitFor(c.name+" takes "+string(patch)+" under the weaker schema", time.Minute, func() error {
			_, err := e.Dyn.Resource(teamspace.GVR).Patch(e.Ctx, c.name, types.MergePatchType, patch, metav1.PatchOptions{})
			return err
		})
	}
	for _, c := range cases {
		e.Delete(c.name)
	}
	for _, c := range cases {
		e.WaitFor(c.name+" archived and released", time.Minute, goneRaw(e, c.name))
		rec, err := evidence.ReadArchive(dir, c.name)
		if err != nil || rec == nil {
			t.Errorf("archive record of %s: got %v (err %v), want one", c.name, rec, err)
		} else if want := (evidence.ArchiveRecord{Name: c.name, UID: string(uids[c.name]), Pods: c.wantPods}); *rec != want {
			t.Errorf("archive record of %s: got %+v, want %+v", c.name, *rec, want)
		}
		warning := e.WaitFor(c.name+": a Warning event says what could not be decoded", time.Minute, func() error {
			evs, err := e.Kube.CoreV1().Events(metav1.NamespaceDefault).List(e.Ctx, metav1.ListOptions{
				FieldSelector: "involvedObject.name=" + c.name + ",type=Warning,reason=" + controller.ReasonInvalidSpec})
			if err != nil {
				return err
			}
			var msgs []string
			for _, ev := range evs.Items {
				if ev.InvolvedObject.UID == uids[c.name] && strings.Contains(ev.Message, "being deleted") &&
					strings.Contains(ev.Message, c.wantInMsg) && strings.Contains(ev.Message, "cannot read TeamSpace") {
					return nil
				}
				msgs = append(msgs, ev.Message)
			}
			return fmt.Errorf("no matching event among %q", msgs)
		})
		t.Logf("%s: archived as %+v; warning seen %s", c.name, rec, warning.Round(time.Millisecond))
	}
	if !p.Alive() {
		t.Fatalf("controller died: %s", ui.Tail(p.Log(), 20))
	}
}

// weakenSchema makes spec.pods and spec.cpu int-or-string, and puts the
// schema back when the test ends, whatever happened.
func weakenSchema(t *testing.T, e *kit.Env) {
	t.Helper()
	crds := e.Dyn.Resource(teamspace.CRDGVR)
	crd, err := crds.Get(e.Ctx, teamspace.CRDName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var weak, restore []map[string]any
	for _, path := range weakSchemaPaths {
		fields := strings.Split(strings.TrimPrefix(path, "/"), "/")
		var cur any = crd.Object
		for _, f := range fields {
			switch x := cur.(type) {
			case map[string]any:
				cur = x[f]
			case []any:
				cur = x[0] // versions/0
			}
		}
		if cur == nil {
			t.Fatalf("CRD has no %s", path)
		}
		weak = append(weak, map[string]any{"op": "replace", "path": path, "value": map[string]any{"x-kubernetes-int-or-string": true}})
		restore = append(restore, map[string]any{"op": "replace", "path": path, "value": cur})
	}
	jsonPatch := func(ops []map[string]any) error {
		data, _ := json.Marshal(ops)
		_, err := crds.Patch(e.Ctx, teamspace.CRDName, types.JSONPatchType, data, metav1.PatchOptions{})
		return err
	}
	if err := jsonPatch(weak); err != nil {
		t.Fatalf("weaken the CRD schema: %v", err)
	}
	t.Cleanup(func() {
		if err := jsonPatch(restore); err != nil {
			t.Errorf("put the CRD schema back: %v", err)
		}
	})
}

// goneRaw checks that a TeamSpace no longer exists without decoding it
// (kit.Gone decodes, and these do not).
func goneRaw(e *kit.Env, name string) func() error {
	return func() error {
		u, err := e.Dyn.Resource(teamspace.GVR).Get(e.Ctx, name, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		return fmt.Errorf("teamspace %s still there: deletionTimestamp=%v finalizers=%v spec=%v",
			name, u.GetDeletionTimestamp(), u.GetFinalizers(), u.Object["spec"])
	}
}

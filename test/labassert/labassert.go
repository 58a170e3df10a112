// Package labassert checks what a finished `cnpa step all` leaves behind:
// every evidence value of LAB.md, and the live state (alpha's finalizer,
// beta and team-beta gone, the archive record). The end-to-end suites of
// process mode and of real systemd share it.
package labassert

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/labhub/cnpa/internal/course"
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Lab asserts every evidence file in dir and the live cluster behind
// kubeconfig after a full lab run.
func Lab(ctx context.Context, t *testing.T, kubeconfig, dir string) {
	t.Helper()
	rc, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	kube := kubernetes.NewForConfigOrDie(rc)
	dyn := dynamic.NewForConfigOrDie(rc)
	alphaU, err := dyn.Resource(teamspace.GVR).Get(ctx, "alpha", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	alpha, _ := teamspace.FromUnstructured(alphaU)

	// Every evidence key, judged by the lab's rules (package lab): the
	// same table the steps and `cnpa check` read.
	st := course.Steps.Lab().Read(dir)
	in := st.Inputs(alpha)
	for _, file := range course.Steps.Lab().Files() {
		values, err := st.Records[file].Strict()
		if err != nil {
			t.Error(err)
			continue
		}
		for _, j := range course.Steps.Lab().Judge(file, values, in) {
			if !j.OK || j.Skip != "" {
				t.Errorf("%s: got %s, want %s %s", j.ID, j.Got, j.Want, j.Skip)
			}
		}
	}
	eq := func(what string, got, want any) {
		t.Helper()
		if g, w := jsonOf(got), jsonOf(want); g != w {
			t.Errorf("%s: got %s, want %s", what, g, w)
		}
	}
	cleanupUID, why := st.Records[lab.CleanupFile].Str("uid")
	if why != "" {
		t.Fatal(why)
	}

	// The live state the lab leaves.
	if !teamspace.HasFinalizer(alpha.Finalizers, teamspace.Finalizer) {
		t.Errorf("alpha finalizers: got %v, want %s among them", alpha.Finalizers, teamspace.Finalizer)
	}
	eq("alpha status.observedGeneration", alpha.Status.ObservedGeneration, alpha.Generation)
	if _, err := dyn.Resource(teamspace.GVR).Get(ctx, "beta", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("beta: got err=%v, want NotFound", err)
	}
	if _, err := kube.CoreV1().Namespaces().Get(ctx, "team-beta", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("team-beta: got err=%v, want NotFound", err)
	}
	if st.ArchiveErr != nil || st.Archive == nil {
		t.Fatalf("archive/beta.json: %v", st.ArchiveErr)
	}
	eq("archive/beta.json", *st.Archive, evidence.ArchiveRecord{Name: "beta", UID: cleanupUID, Pods: 2})
	q, err := kube.CoreV1().ResourceQuotas("team-alpha").Get(ctx, teamspace.QuotaName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eq("team-alpha quota pods", q.Spec.Hard.Pods().String(), "8")
	fi, err := os.Stat(filepath.Join(dir, "reconcile.sh"))
	if err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("reconcile.sh: %v, want an executable file", err)
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

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

	"github.com/labhub/cnpa/internal/evidence"
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
	uid := string(alpha.UID)

	read := func(name string, v any) {
		t.Helper()
		problems, err := evidence.Read(dir, name, v)
		if err != nil || len(problems) > 0 {
			t.Fatalf("%s: %v %v", name, err, problems)
		}
	}
	eq := func(what string, got, want any) {
		t.Helper()
		if g, w := jsonOf(got), jsonOf(want); g != w {
			t.Errorf("%s: got %s, want %s", what, g, w)
		}
	}

	var before evidence.Before
	read(evidence.BeforeFile, &before)
	eq("before", before, evidence.Before{UID: uid, NamespaceExists: false})

	var gen evidence.Generation
	read(evidence.GenerationFile, &gen)
	eq("generation", gen, evidence.Generation{UID: uid, GenInitial: 1, GenAfterLabel: 1, GenAfterSpec: 2, StatusViaMain: json.RawMessage("null")})

	var rec evidence.Reconcile
	read(evidence.ReconcileFile, &rec)
	eq("reconcile.namespace_owner_uid", rec.NamespaceOwnerUID, uid)
	eq("reconcile.second_pass_rv_changed", rec.SecondPassRVChanged, false)
	if rec.QuotaUID == "" {
		t.Error("reconcile.quota_uid is empty")
	}

	var drift evidence.Drift
	read(evidence.DriftFile, &drift)
	eq("drift.deleted_uid", drift.DeletedUID, rec.QuotaUID)
	if drift.RestoredUID == "" || drift.RestoredUID == drift.DeletedUID {
		t.Errorf("drift.restored_uid: got %q, want a new uid (deleted %q)", drift.RestoredUID, drift.DeletedUID)
	}
	if drift.RestoreSeconds < 1 {
		t.Errorf("drift.restore_seconds: got %d, want ≥ 1 (rounded up)", drift.RestoreSeconds)
	}
	eq("drift.edited_to", drift.EditedTo, 99)
	eq("drift.reverted_to", drift.RevertedTo, 6)

	var cleanup evidence.Cleanup
	read(evidence.CleanupFile, &cleanup)
	eq("cleanup.blocked_seen", cleanup.BlockedSeen, true)
	eq("cleanup.namespace_gone", cleanup.NamespaceGone, true)

	var catchup evidence.Catchup
	read(evidence.CatchupFile, &catchup)
	eq("catchup", catchup, evidence.Catchup{Generation: 3, ObservedWhileStopped: 2, QuotaPodsWhileStopped: "6", ObservedAfterStart: 3, QuotaPodsAfterStart: "8"})

	var report evidence.Report
	read(evidence.ReportFile, &report)
	eq("report", report, evidence.Report{CRDAloneCreatedNamespace: false, StatusBumpsGeneration: false,
		RestoreSeconds: drift.RestoreSeconds, Finalizer: teamspace.Finalizer, Archived: cleanup.UID,
		GenerationsBehindWhileStopped: 1, Trigger: "level"})

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
	archived, err := evidence.ReadArchive(filepath.Join(dir, evidence.ArchiveDir), "beta")
	if err != nil || archived == nil {
		t.Fatalf("archive/beta.json: %v", err)
	}
	eq("archive/beta.json", *archived, evidence.ArchiveRecord{Name: "beta", UID: cleanup.UID, Pods: 2})
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

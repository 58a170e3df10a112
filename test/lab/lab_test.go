// Package lab runs `cnpa step all` end to end, for both engines, each on a
// fresh real control plane, and checks every evidence value and the live
// state the lab leaves behind.
package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/labhub/cnpa/internal/controller"
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/testcluster"
)

// cnpaBin is the cnpa binary built once for the package.
var cnpaBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "cnpa-lab-bin-")
	if err != nil {
		panic(err)
	}
	cnpaBin = filepath.Join(dir, "cnpa")
	if out, err := exec.Command("go", "build", "-o", cnpaBin, "github.com/labhub/cnpa/cmd/cnpa").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestStepAll(t *testing.T) {
	for _, engine := range []string{"go", "shell"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			runLab(t, engine)
		})
	}
}

func runLab(t *testing.T, engine string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cluster, err := testcluster.Start(ctx, testcluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cluster.Stop)
	dir := filepath.Join(t.TempDir(), "cnpa-op")
	unitDir := filepath.Join(t.TempDir(), "systemd")
	cnpa := func(args ...string) ([]byte, error) {
		cmd := exec.CommandContext(ctx, cnpaBin, append([]string{"--kubeconfig", cluster.Kubeconfig, "--dir", dir, "--no-color"}, args...)...)
		cmd.Env = cluster.Env()
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		return out.Bytes(), err
	}
	// The service runs detached; stop it before the cluster goes.
	t.Cleanup(func() { cnpa("service", "stop") })

	start := time.Now()
	out, err := cnpa("step", "all", "--engine", engine, "--service-manager", "process", "--unit-dir", unitDir)
	t.Logf("cnpa step all (%s engine) took %s", engine, time.Since(start).Round(time.Millisecond))
	if err != nil {
		logs, _ := cnpa("service", "logs", "-n", "40")
		t.Fatalf("cnpa step all: %v\n%s\nservice log:\n%s", err, out, logs)
	}

	rc, err := clientcmd.BuildConfigFromFlags("", cluster.Kubeconfig)
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
	archived, err := controller.ReadArchive(filepath.Join(dir, evidence.ArchiveDir), "beta")
	if err != nil || archived == nil {
		t.Fatalf("archive/beta.json: %v", err)
	}
	eq("archive/beta.json", *archived, controller.ArchiveRecord{Name: "beta", UID: cleanup.UID, Pods: 2})
	q, err := kube.CoreV1().ResourceQuotas("team-alpha").Get(ctx, teamspace.QuotaName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	eq("team-alpha quota pods", q.Spec.Hard.Pods().String(), "8")
	// The service is running when the lab ends.
	if out, err := cnpa("service", "status"); err != nil {
		t.Errorf("service not active after step all: %v\n%s", err, out)
	}
	// The installed reconcile.sh is executable and belongs to the engine.
	fi, err := os.Stat(filepath.Join(dir, "reconcile.sh"))
	if err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("reconcile.sh: %v, mode %v, want executable", err, fi)
	}
	// Re-running a finished step keeps its evidence.
	beforeData, _ := os.ReadFile(filepath.Join(dir, evidence.ReconcileFile))
	if out, err := cnpa("step", "3"); err != nil {
		t.Errorf("re-running step 3: %v\n%s", err, out)
	}
	afterData, _ := os.ReadFile(filepath.Join(dir, evidence.ReconcileFile))
	eq("reconcile.json after re-running step 3", string(afterData), string(beforeData))
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

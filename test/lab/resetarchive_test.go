package lab

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// TestResetKeepsAnotherUIDsRecord is the review's L2 on a real control
// plane: archive/beta.json holds step 6's beta (as the controller wrote
// it), and a newer beta, another uid, holds our finalizer when `cnpa reset`
// runs. Reset archives the newer one beside it, beta.<uid>.json, says so,
// and step 6's record keeps every byte.
func TestResetKeepsAnotherUIDsRecord(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cl, err := cluster.Start(ctx, cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Stop)
	if err := kit.InstallCRD(ctx, cl, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "cnpa-op")
	archive := filepath.Join(dir, evidence.ArchiveDir)
	step6 := evidence.ArchiveRecord{Name: "beta", UID: "6b7f0c2e-0000-4000-8000-000000000006", Pods: 2}
	if err := evidence.WriteArchive(archive, step6); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(filepath.Join(archive, "beta.json"))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := clientcmd.BuildConfigFromFlags("", cl.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	dyn := dynamic.NewForConfigOrDie(rc)
	newer, err := dyn.Resource(teamspace.GVR).Create(ctx, kit.NewTeamSpace("beta", 3, "", teamspace.Finalizer), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l := kit.NewLab(ctx, t, cl, cnpaBin)
	l.Dir = dir
	out := l.Cnpa("reset", "--yes")
	if out.Code != 0 {
		t.Fatalf("cnpa reset --yes: %v\n%s", out.Err(), out.Output)
	}
	if after, _ := os.ReadFile(filepath.Join(archive, "beta.json")); !bytes.Equal(after, before) {
		t.Errorf("reset overwrote step 6's archive/beta.json: got %s, want %s", after, before)
	}
	beside := filepath.Join(archive, "beta."+string(newer.GetUID())+".json")
	data, err := os.ReadFile(beside)
	if err != nil || !strings.Contains(string(data), string(newer.GetUID())) {
		t.Errorf("the newer beta's record %s: %v %s, want its uid %s", beside, err, data, newer.GetUID())
	}
	// Read unwrapped: reset wraps its lines at 80 columns, and a long
	// path goes to the line after "kept".
	if !strings.Contains(kit.Unwrapped(out.Output), "kept "+filepath.Join(archive, "beta.json")) {
		t.Errorf("reset does not say it kept archive/beta.json:\n%s", out.Output)
	}
}

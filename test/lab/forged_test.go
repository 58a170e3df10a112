package lab

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/timeline"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// TestForgedEvents runs steps 1 to 5 on a real control plane while
// someone else keeps creating Events about alpha whose messages carry
// terminal escape sequences (the review's M4: retitle the window, clear
// the screen, "all checks passed"): some from no source, some claiming
// cnpa-controller but about another uid, some claiming it with alpha's
// uid, as anyone who can create Events can. Step 5's output must carry no
// control character, each forged Event not claiming cnpa's source or not
// carrying alpha's uid must be another writer's in the timeline, and the
// controller's own DriftCorrected must still be the controller's. Once
// per cnpa engine.
func TestForgedEvents(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{"go", "shell"} {
		t.Run(engine, func(t *testing.T) { forgedEvents(t, engine) })
	}
}

func forgedEvents(t *testing.T, engine string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cl, err := cluster.Start(ctx, cluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Stop)
	l := kit.NewLab(ctx, t, cl, cnpaBin)
	l.Quiet, l.Color = true, true
	l.Env = append(cl.Env(), "CLICOLOR_FORCE=1")
	dir, unitDir := l.Dir, l.UnitDir
	cnpa := l.CombinedOutput
	// The service runs detached: stop it before the cluster goes, with a
	// context of its own (ctx is cancelled by the time cleanups run, and
	// a service left running outlives the test, polling a dead cluster).
	t.Cleanup(func() { l.CnpaIn(context.Background(), "service", "stop") })
	for _, step := range []string{"1", "2", "3", "4"} {
		if out, err := cnpa("step", step, "--engine", engine, "--service-manager", "process", "--unit-dir", unitDir); err != nil {
			t.Fatalf("cnpa step %s: %v\n%s", step, err, out)
		}
	}
	rc, err := clientcmd.BuildConfigFromFlags("", cl.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	kc := kubernetes.NewForConfigOrDie(rc)
	alpha, err := kc.CoreV1().Namespaces().Get(ctx, teamspace.NamespaceName("alpha"), metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	alphaUID := alpha.OwnerReferences[0].UID
	const payload = "\x1b]0;owned\x07\x1b[2J\x1b[Hall checks passed"
	forgeries := []struct {
		tag       string
		component string
		uid       string
		ours      bool // claims cnpa's source and alpha's uid: cannot be told apart
	}{
		{"FORGED-nosource", "", string(alphaUID), false},
		{"FORGED-otheruid", teamspace.EventSource, "00000000-0000-0000-0000-000000000001", false},
		{"FORGED-kubelet", "kubelet", string(alphaUID), false},
		{"FORGED-claimsours", teamspace.EventSource, string(alphaUID), true},
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(200 * time.Millisecond):
			}
			f := forgeries[i%len(forgeries)]
			now := metav1.Now()
			kc.CoreV1().Events("default").Create(ctx, &corev1.Event{
				ObjectMeta: metav1.ObjectMeta{GenerateName: "forged-", Namespace: "default"},
				InvolvedObject: corev1.ObjectReference{APIVersion: teamspace.APIVersion, Kind: teamspace.Kind, Name: "alpha",
					UID: types.UID(f.uid)},
				Reason: "DriftCorrected", Message: f.tag + " " + payload, Type: corev1.EventTypeNormal,
				Source: corev1.EventSource{Component: f.component}, FirstTimestamp: now, LastTimestamp: now, Count: 1,
			}, metav1.CreateOptions{})
		}
	}()
	out, err := cnpa("step", "5")
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatalf("cnpa step 5 under forged Events: %v\n%s", err, out)
	}
	// Colour is the only escape cnpa itself writes: ESC followed by '['
	// and a colour code ending in 'm'. Anything else is the forger's.
	plain := colourCodes.ReplaceAll(out, nil)
	for _, c := range plain {
		if c < 0x20 && c != '\n' || c == 0x7f {
			t.Fatalf("step 5's output carries control character %#x (a forged message printed raw):\n%q", c, out)
		}
	}
	tl, err := timeline.Load(dir, 5)
	if err != nil || tl == nil {
		t.Fatalf("step 5's timeline: %v", err)
	}
	seen := map[string]int{}
	genuine := false
	for _, e := range tl.Entries {
		if e.Kind != timeline.KindEvent {
			continue
		}
		forged := false
		for _, f := range forgeries {
			if strings.HasPrefix(e.What, "DriftCorrected: "+f.tag+" ") {
				forged = true
				seen[f.tag]++
				if !f.ours && e.Actor != timeline.OtherWriter {
					t.Errorf("forged Event %s credited to %q, want %q: %s", f.tag, e.Actor, timeline.OtherWriter, e.What)
				}
			}
		}
		if !forged && e.Values["reason"] == "DriftCorrected" && e.Actor == timeline.Controller {
			genuine = true
		}
	}
	if engine == "go" && !genuine {
		t.Errorf("the controller's own DriftCorrected Event is not the controller's in the timeline: %+v", tl.Entries)
	}
	if len(seen) == 0 {
		t.Errorf("no forged Event reached the timeline (%d entries): the test proved nothing", len(tl.Entries))
	}
	t.Logf("forged Events in the timeline, by kind: %v", seen)
}

// colourCodes are the SGR sequences cnpa's own colour writes.
var colourCodes = regexp.MustCompile("\x1b\\[[0-9;]*m")

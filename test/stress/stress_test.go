package stress

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/osuser"
)

// cnpa stress against the real control plane: cnpa's Go engine passes
// every fault; a learner's edge-triggered reconcile.sh (the corpus's
// edge-triggered case) fails the burst, whose quota deleted by hand never
// comes back, and passes conflict; one that recreates the quota instead
// of patching it, which the lab's steps do not catch, fails kept by the
// fault's name. Each controller runs as the lab's service in process mode
// through the proxy; the drop-in is gone afterwards. While the go run is
// under way no other local user reads the proxy's kubeconfig or gets
// through the proxy (private), and its token is in no log (R4-1); a run
// killed with SIGKILL leaves nothing another user can take over, and the
// next commands put the service back (killed, R4-2); a controller that
// does not converge without faults fails the run (neverConverges).
func TestStress(t *testing.T) {
	c := labCluster(t)
	bin := kit.CnpaBinary(t)
	svc := []string{"--service-manager", "process"}

	stress := func(t *testing.T, lab *kit.Lab, faults string, wantCode int) *judge.StressReport {
		t.Helper()
		r := lab.Cnpa(append([]string{"stress", "-o", "json", "--faults", faults, "--unit-dir", lab.UnitDir}, svc...)...)
		if r.Code != wantCode {
			t.Fatalf("cnpa stress: exit %d, want %d\n%s\n--- service log\n%s", r.Code, wantCode, r, lab.ServiceLog(40))
		}
		var rep judge.StressReport
		if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
			t.Fatalf("cnpa stress -o json does not parse: %v\n%s", err, r)
		}
		t.Logf("cnpa stress --faults %s: %d passed, %d failed in %.1f s", faults, rep.Passed, rep.Failed, rep.Seconds)
		if _, err := os.Stat(filepath.Join(lab.UnitDir, "cnpa-op.service.d")); !os.IsNotExist(err) {
			t.Errorf("the drop-in dir is still there after cnpa stress (stat: %v)", err)
		}
		if got := lab.Cnpa(append([]string{"service", "status", "--unit-dir", lab.UnitDir}, svc...)...); got.Code != 0 {
			t.Errorf("the service does not run after cnpa stress:\n%s", got)
		}
		return &rep
	}
	// Each case starts the lab over on the shared cluster: the next
	// case's step 1 wants no TeamSpace alpha, so a case's cleanup stops
	// its loop and runs `cnpa reset --yes`.
	newLab := func(t *testing.T) *kit.Lab {
		t.Helper()
		lab := kit.NewLab(context.Background(), t, c, bin)
		t.Cleanup(func() {
			lab.StopService()
			if r := lab.Reset(); r.Code != 0 {
				t.Errorf("cnpa reset --yes after the case: the next case needs a clean cluster\n%s", r)
			}
		})
		return lab
	}
	own := func(t *testing.T, script string) *kit.Lab {
		t.Helper()
		lab := newLab(t)
		data, err := os.ReadFile(script)
		if err != nil {
			t.Fatal(err)
		}
		lab.Must("step", "1")
		lab.Must("step", "2")
		if err := os.WriteFile(filepath.Join(lab.Dir, "reconcile.sh"), data, 0o755); err != nil {
			t.Fatal(err)
		}
		lab.Must(append([]string{"step", "3", "--engine", "own", "--unit-dir", lab.UnitDir}, svc...)...)
		lab.Must(append([]string{"step", "4", "--unit-dir", lab.UnitDir}, svc...)...)
		return lab
	}
	verdict := func(rep *judge.StressReport, name string) judge.StressFault {
		for _, f := range rep.Faults {
			if f.Name == name {
				return f
			}
		}
		return judge.StressFault{}
	}
	properties := func(f judge.StressFault) []string {
		var ps []string
		for _, x := range f.Findings {
			ps = append(ps, x.Property)
		}
		return ps
	}

	t.Run("go", func(t *testing.T) {
		lab := newLab(t)
		if r := lab.StepAll("go"); r.Code != 0 {
			t.Fatalf("cnpa step all: %s", r)
		}
		start := time.Now()
		// R4-1 while the run is under way, as another local user.
		osuser.Ensure(t) // here: it may skip or fail, which a goroutine must not
		tokens := make(chan string, 1)
		go func() { tokens <- private(t, lab) }()
		rep := stress(t, lab, "all", 0)
		t.Logf("whole run %s", time.Since(start).Round(time.Second))
		tokenNowhere(t, lab, <-tokens)
		for _, f := range rep.Faults {
			if f.Status != judge.Pass {
				t.Errorf("%s: %s %v, want pass (injected %v)\n%s", f.Name, f.Status, f.Findings, f.Injected, f.Log)
			}
			if len(f.Injected) == 0 {
				t.Errorf("%s: nothing injected: the controller did not go through the proxy", f.Name)
			}
		}
		if len(rep.Faults) != len(judge.StressFaults) {
			t.Errorf("%d faults judged, want %d", len(rep.Faults), len(judge.StressFaults))
		}
	})

	t.Run("edge-triggered", func(t *testing.T) {
		lab := own(t, filepath.Join("..", "learners", "cases", "edge-triggered", "reconcile.sh"))
		rep := stress(t, lab, "conflict,burst", 1)
		if f := verdict(rep, "conflict"); f.Status != judge.Pass {
			t.Errorf("conflict: %s %v, want pass", f.Status, f.Findings)
		}
		f := verdict(rep, "burst")
		if f.Status != judge.Fail || !slices.Contains(properties(f), judge.StressConverged) {
			t.Errorf("burst: %s %v, want fail with %s", f.Status, f.Findings, judge.StressConverged)
		}
		if f.Hint == "" || f.Log == "" {
			t.Errorf("burst's verdict has no hint (%q) or no controller output (%q)", f.Hint, f.Log)
		}
		counted(t, lab)
		interrupted(t, lab)
		leftover := killed(t, lab)
		neverConverges(t, lab, leftover)
	})

	t.Run("recreate", func(t *testing.T) {
		lab := own(t, filepath.Join("testdata", "recreate.sh"))
		rep := stress(t, lab, "conflict,error", 1)
		for _, name := range []string{"conflict", "error"} {
			f := verdict(rep, name)
			if f.Status != judge.Fail || !slices.Contains(properties(f), judge.StressKept) {
				t.Errorf("%s: %s %v, want fail with %s", name, f.Status, f.Findings, judge.StressKept)
			}
		}
	})
}

// counted is an instructor's policy that counts stress: the submission
// carries the last stress run, and Gradescope's results give each fault
// its points as that run judged it (conflict passed, burst failed) and
// none to a fault it did not run, saying how to run it.
func counted(t *testing.T, lab *kit.Lab) {
	t.Helper()
	policy := filepath.Join(lab.Dir, "policy.toml")
	if err := os.WriteFile(policy, []byte("step_points = 0\n[stress]\npoints_per_fault = 2\nself_reported = true\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(policy)
	sub := filepath.Join(t.TempDir(), "ada.json")
	// The edge-triggered loop fails step 5's probes: the submission is
	// written all the same (exit 1), which is all this needs.
	if r := lab.Submit("--learner", "ada", "--out", sub, "--timeout", "5s", "--service-manager", "process", "--unit-dir", lab.UnitDir); r.Code > 1 {
		t.Fatalf("cnpa submit: %s", r)
	}
	r := lab.Cnpa("class", "grade", "-o", "gradescope", "--policy", policy, sub)
	var gs struct {
		Tests []struct {
			Name     string  `json:"name"`
			Score    float64 `json:"score"`
			MaxScore float64 `json:"max_score"`
			Output   string  `json:"output"`
		} `json:"tests"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &gs); err != nil {
		t.Fatalf("cnpa class grade -o gradescope: %v\n%s", err, r)
	}
	want := map[string]float64{"stress.conflict": 2, "stress.burst": 0, "stress.kill9": 0}
	for _, tc := range gs.Tests {
		id, _, _ := strings.Cut(tc.Name, ":")
		w, ok := want[id]
		if !ok {
			continue
		}
		delete(want, id)
		if tc.Score != w || tc.MaxScore != 2 {
			t.Errorf("%s: %v of %v, want %v of 2\n%s", tc.Name, tc.Score, tc.MaxScore, w, tc.Output)
		}
		if id == "stress.kill9" && !strings.Contains(tc.Output, "run `cnpa stress`, then `cnpa submit` again") {
			t.Errorf("%s, never run, does not say how to run it:\n%s", tc.Name, tc.Output)
		}
	}
	for id := range want {
		t.Errorf("gradescope's results have no test %s:\n%s", id, r.Stdout)
	}
}

// interrupted is Ctrl-C in the middle of a fault: cnpa stress started as a
// terminal starts it (its own process group), SIGINT to the group once
// the fault is under way. Afterwards the drop-in is gone, the service runs
// on the learner's own kubeconfig again (not the proxy's, which is
// removed), and every TeamSpace the run made is gone: the cluster holds
// what the learner made, no more.
func interrupted(t *testing.T, lab *kit.Lab) { interruptedIn(t, lab, "latency") }

// interruptedIn is interrupted during fault.
func interruptedIn(t *testing.T, lab *kit.Lab, fault string) {
	t.Helper()
	before := teamspaces(t, lab)
	cmd := exec.Command(lab.Bin, "--kubeconfig", lab.Cluster.Kubeconfig, "--dir", lab.Dir, "--no-color",
		"stress", "--faults", fault, "--unit-dir", lab.UnitDir, "--service-manager", "process")
	cmd.Env = lab.Cluster.Env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var out lockedOutput
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// Under way: the fault's progress line is out.
	deadline := time.Now().Add(2 * time.Minute)
	for !strings.Contains(out.String(), "fault "+fault) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Fatalf("cnpa stress did not reach its fault in 2m:\n%s", out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(time.Second)
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(out.String(), "cnpa stress interrupted: every fault is stopped") {
			t.Errorf("cnpa stress after Ctrl-C: %v, want exit 2 saying it was interrupted and what it put back:\n%s", err, out.String())
		}
	case <-time.After(2 * time.Minute):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatalf("cnpa stress still running 2m after Ctrl-C:\n%s", out.String())
	}
	t.Logf("cnpa stress after Ctrl-C:\n%s", out.String())
	if _, err := os.Stat(filepath.Join(lab.UnitDir, "cnpa-op.service.d")); !os.IsNotExist(err) {
		t.Errorf("the drop-in dir is still there after Ctrl-C (stat: %v)", err)
	}
	if got := lab.Cnpa("service", "status", "--unit-dir", lab.UnitDir, "--service-manager", "process"); got.Code != 0 {
		t.Errorf("the service does not run after Ctrl-C:\n%s", got)
	}
	pid, err := os.ReadFile(filepath.Join(lab.Dir, "cnpa-op.pid"))
	if err != nil {
		t.Fatal(err)
	}
	environ, err := os.ReadFile(filepath.Join("/proc", strings.TrimSpace(string(pid)), "environ"))
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range strings.Split(string(environ), "\x00") {
		if k, v, _ := strings.Cut(kv, "="); k == "KUBECONFIG" {
			if _, err := os.Stat(v); err != nil {
				t.Errorf("the service runs with KUBECONFIG=%s after Ctrl-C, which is gone (the proxy's?): %v", v, err)
			}
		}
	}
	if after := teamspaces(t, lab); !slices.Equal(after, before) {
		t.Errorf("TeamSpaces after Ctrl-C: %q, want the learner's %q", after, before)
	}
}

// teamspaces are the names of the cluster's TeamSpaces, sorted.
func teamspaces(t *testing.T, lab *kit.Lab) []string {
	t.Helper()
	r := lab.Run(nil, lab.Cluster.Kubectl(), "--kubeconfig", lab.Cluster.Kubeconfig, "get", "teamspaces", "-o", "name")
	if r.Code != 0 {
		t.Fatalf("kubectl get teamspaces: %s", r)
	}
	names := strings.Fields(r.Stdout)
	slices.Sort(names)
	return names
}

// lockedOutput is a command's stdout and stderr together, read while it
// runs.
type lockedOutput struct {
	mu sync.Mutex
	b  strings.Builder
}

func (o *lockedOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.Write(p)
}

func (o *lockedOutput) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}

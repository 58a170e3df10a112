package grader

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

// labCLI is kit.Lab on the shared cluster, with one evidence dir and one
// unit dir, as a learner would run cnpa, and the grader's own helpers.
type labCLI struct {
	// Env is kit's admin view of the cluster, for what the tests read and
	// write around the lab.
	*kit.Env
	// cnpa runs the binary (the harness of every suite that runs cnpa).
	cnpa    *kit.Lab
	t       *testing.T
	cluster *cluster.Cluster
	bin     string
	dir     string
	unitDir string
}

// newLabCLI builds cnpa (once per test binary) and prepares the dirs. Whatever the
// test does, at the end the process-mode service is stopped and the shared
// cluster is reset, so that no TeamSpace held by our finalizer outlives the
// controller that would release it.
func newLabCLI(t *testing.T) *labCLI {
	t.Helper()
	c := cluster.Shared(t)
	lab := kit.NewLab(context.Background(), t, c, kit.CnpaBinary(t))
	// Each command says how long it took only where the test asks (must).
	lab.Quiet = true
	// The lab installs the CRD and reset removes it: kit only connects.
	l := &labCLI{Env: kit.Connect(t, c), cnpa: lab, t: t, cluster: c, bin: lab.Bin, dir: lab.Dir, unitDir: lab.UnitDir}
	t.Cleanup(func() {
		if code, out, errOut := l.reset("--purge"); code != 0 {
			t.Logf("cnpa reset at the end: exit %d\n%s%s", code, out, errOut)
			if code, out, errOut := l.run("service", "stop"); code != 0 {
				t.Logf("cnpa service stop: exit %d\n%s%s", code, out, errOut)
			}
		}
	})
	return l
}

// run runs cnpa, each command within 6 min, and returns its exit code,
// stdout and stderr.
func (l *labCLI) run(args ...string) (int, string, string) {
	l.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	r := l.cnpa.CnpaIn(ctx, args...)
	return r.Code, r.Stdout, r.Stderr
}

// must runs cnpa and fails the test unless it exits 0.
func (l *labCLI) must(args ...string) string {
	l.t.Helper()
	start := time.Now()
	code, out, errOut := l.run(args...)
	if code != 0 {
		l.t.Fatalf("cnpa %s: exit %d\n%s\n%s", strings.Join(args, " "), code, out, errOut)
	}
	l.t.Logf("cnpa %s: %s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
	return out
}

// lab runs the whole lab in process mode with the given engine.
func (l *labCLI) lab(engine string) {
	l.t.Helper()
	l.must("step", "all", "--engine", engine, "--service-manager", "process", "--unit-dir", l.unitDir, "--catchup-wait", "8s")
}

// reset runs `cnpa reset --yes` (kit.Lab's Reset) with extra arguments.
func (l *labCLI) reset(extra ...string) (int, string, string) {
	l.t.Helper()
	return l.run(append([]string{"reset", "--yes", "--service-manager", "process", "--unit-dir", l.unitDir}, extra...)...)
}

// check runs `cnpa check -o json` and returns the exit code and report.
func (l *labCLI) check(args ...string) (int, *judge.Report) {
	l.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	lab := *l.cnpa
	lab.Ctx = ctx
	var rep judge.Report
	r := lab.Check(&rep, args...)
	return r.Code, &rep
}

// mustPass runs check and fails the test with every failure unless all pass.
// The live checks get 90 s, not check's default 30 s: make test runs other
// packages' control planes beside this one, and the shell engine's loop
// (a pass every 3 s of kubectl calls) then takes longer to act, as in
// test/lab. A check expected to fail keeps the default (l.check()).
func (l *labCLI) mustPass() *judge.Report {
	l.t.Helper()
	code, rep := l.check("--timeout", "90s")
	if code != 0 || !rep.OK() || rep.Skipped != 0 {
		var b strings.Builder
		for _, c := range rep.Checks {
			if c.Status != judge.Pass {
				b.WriteString("  " + c.ID + " " + string(c.Status) + ": " + c.Actual + " (expected " + c.Expected + ") → " + c.Hint + "\n")
			}
		}
		l.t.Fatalf("check: exit %d, %d passed, %d failed, %d skipped:\n%s", code, rep.Passed, rep.Failed, rep.Skipped, b.String())
	}
	return rep
}

// editJSON changes one evidence file and returns what puts it back.
func (l *labCLI) editJSON(name string, edit func(m map[string]any)) func() {
	l.t.Helper()
	path := filepath.Join(l.dir, name)
	orig, err := os.ReadFile(path)
	if err != nil {
		l.t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(orig, &m); err != nil {
		l.t.Fatal(err)
	}
	edit(m)
	data, _ := json.Marshal(m)
	restore := l.restoreFile(path, orig)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		l.t.Fatal(err)
	}
	return restore
}

// restoreFile returns what puts path back as it is now, before a tamper:
// data written into the same file (os.WriteFile keeps its inode), with
// its mode and modification time of now. The time too: cnpa's manifest
// knows the file it wrote by inode and time, and a file written since,
// whatever it holds, is the learner's (manifest.Replaced), which reset
// then keeps.
func (l *labCLI) restoreFile(path string, data []byte) func() {
	mode := os.FileMode(0o644)
	var mtime time.Time
	if fi, err := os.Stat(path); err == nil {
		mode, mtime = fi.Mode().Perm(), fi.ModTime()
	}
	return func() {
		if err := os.WriteFile(path, data, mode); err != nil {
			l.t.Fatal(err)
		}
		os.Chmod(path, mode)
		if !mtime.IsZero() {
			os.Chtimes(path, mtime, mtime)
		}
	}
}

// TestCheck runs the lab with the Go engine and grades it: a correct run
// passes every check; each way of tampering with the evidence, the cluster
// or the controller fails exactly the check meant to catch it; and after
// `cnpa reset --yes` the lab runs and passes again.
func TestCheck(t *testing.T) {
	l, rep := passingLab(t, "go")
	ids := make([]string, 0, len(rep.Checks))
	for _, c := range rep.Checks {
		ids = append(ids, c.ID)
	}
	for _, id := range []string{"step1.crd.pods_maximum", "step3.rerun_writes_nothing", "step4.new_teamspace_converges",
		"step5.restored_uid_new", "step5.drift_reverted_live", "step6.delete_archives", "step8.restore_seconds"} {
		if !slices.Contains(ids, id) {
			t.Errorf("check %s: missing from the report", id)
		}
	}
	// Step 4's probe hands its converged TeamSpace on to the drift probe,
	// which deletes its quota (and edits its own's): it names that one
	// first.
	actual := map[string]string{}
	for _, c := range rep.Checks {
		actual[c.ID] = c.Actual
	}
	converged, drift := actual["step4.new_teamspace_converges"], actual["step5.drift_reverted_live"]
	if name, _, _ := strings.Cut(converged, " "); !strings.HasPrefix(name, check.TempPrefix) || !strings.HasPrefix(drift, name+", "+check.TempPrefix) {
		t.Errorf("the drift probe did not go on with step 4's TeamSpace: step 4 %q, step 5 %q", converged, drift)
	}

	t.Run("text", func(t *testing.T) {
		out := l.must("check")
		if want := rep.Passed; !strings.Contains(out, "passed, 0 failed") || !strings.Contains(out, "✓ step5.restored_uid_new") {
			t.Errorf("text output lacks the summary of %d passes or a ✓ line:\n%s", want, out)
		}
	})

	// In Japanese (--lang ja, as LANG=ja_JP.UTF-8 chooses it): the words
	// are the catalog's, the ids, keys and values as they are, and no
	// line names a file the learner never had.
	t.Run("japanese", func(t *testing.T) {
		out := l.must("--lang", "ja", "check")
		for _, want := range []string{"件合格、0件不合格", "✓ step5.restored_uid_new", "ステップ5 — 削除したクォータが数秒後に復活する"} {
			if !strings.Contains(out, want) {
				t.Errorf("cnpa --lang ja check lacks %q:\n%s", want, out)
			}
		}
		code, js, _ := l.run("--lang", "ja", "check", "-o", "json")
		if code != 0 {
			t.Fatalf("cnpa --lang ja check -o json: exit %d", code)
		}
		var ja judge.Report
		if err := json.Unmarshal([]byte(js), &ja); err != nil {
			t.Fatalf("json output does not parse: %v\n%s", err, js)
		}
		if len(ja.Checks) != len(rep.Checks) {
			t.Errorf("%d checks in Japanese, %d in English", len(ja.Checks), len(rep.Checks))
		}
		for i, c := range ja.Checks {
			if i >= len(rep.Checks) {
				break
			}
			if c.ID != rep.Checks[i].ID || c.Status != rep.Checks[i].Status {
				t.Errorf("check %d: %s %s in Japanese, %s %s in English", i, c.ID, c.Status, rep.Checks[i].ID, rep.Checks[i].Status)
			}
			if c.Title == rep.Checks[i].Title || !strings.ContainsFunc(c.Title, func(r rune) bool { return r > 0x3000 }) {
				t.Errorf("check %s: title %q is not Japanese", c.ID, c.Title)
			}
		}
		if strings.Contains(out+js, "LAB.md") {
			t.Errorf("the Japanese output names LAB.md")
		}
	})

	t.Run("junit", func(t *testing.T) {
		code, out, _ := l.run("check", "-o", "junit")
		if code != 0 {
			t.Fatalf("exit code: got %d, want 0", code)
		}
		var doc judge.JUnitSuites
		if err := xml.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("junit output does not parse: %v\n%s", err, out)
		}
		n := 0
		for _, s := range doc.Suites {
			n += len(s.Cases)
		}
		if n != len(rep.Checks) {
			t.Errorf("testcases: got %d, want %d (one per check)", n, len(rep.Checks))
		}
		if doc.Failures != 0 || doc.Tests != len(rep.Checks) {
			t.Errorf("testsuites: got tests=%d failures=%d, want %d and 0", doc.Tests, doc.Failures, len(rep.Checks))
		}
	})

	t.Run("one-step", func(t *testing.T) {
		code, r := l.check("--step", "5")
		if code != 0 || len(r.Checks) == 0 {
			t.Fatalf("check --step 5: exit %d, %d checks", code, len(r.Checks))
		}
		for _, c := range r.Checks {
			if c.Step != 5 {
				t.Errorf("check --step 5 reported %s of step %d", c.ID, c.Step)
			}
		}
		for _, arg := range []string{"9", "0", "x"} {
			code, _, errOut := l.run("check", "--step", arg)
			if code != 2 || !strings.Contains(errOut, "1 to 8") {
				t.Errorf("check --step %s: got exit %d and %q, want 2 and a message naming 1 to 8", arg, code, errOut)
			}
		}
		code, _, errOut := l.run("--dir", filepath.Join(t.TempDir(), "nope"), "check")
		if code != 2 || !strings.Contains(errOut, "does not exist") {
			t.Errorf("check with a missing evidence dir: got exit %d and %q, want 2", code, errOut)
		}
	})

	t.Run("tampering", func(t *testing.T) { testTampering(t, l) })
	t.Run("reset-and-again", func(t *testing.T) { testResetAndAgain(t, l) })
	t.Run("signals", func(t *testing.T) { testSignals(t, l) })
}

// testTampering damages one thing at a time and asserts the ids of the
// failed checks, exactly, and that each failure says what to do.
func testTampering(t *testing.T, l *labCLI) {
	const otherUID = "00000000-0000-0000-0000-000000000000"
	crdPath := filepath.Join(l.dir, "crd.yaml")
	cases := []struct {
		name   string
		tamper func(t *testing.T) (restore func())
		want   []string
		hint   string // in the hint of the first failure
	}{
		{"changed uid", func(t *testing.T) func() {
			return l.editJSON("before.json", func(m map[string]any) { m["uid"] = otherUID })
		}, []string{"step1.uid"}, "write `\"uid\": \""},
		{"flipped boolean", func(t *testing.T) func() {
			return l.editJSON("cleanup.json", func(m map[string]any) { m["blocked_seen"] = false })
		}, []string{"step6.blocked_seen"}, "write `\"blocked_seen\": true` in cleanup.json"},
		{"integer written as a string", func(t *testing.T) func() {
			return l.editJSON("drift.json", func(m map[string]any) { m["restore_seconds"] = "1" })
		}, []string{"step5.restore_seconds"}, "cnpa"},
		{"extra key", func(t *testing.T) func() {
			return l.editJSON("reconcile.json", func(m map[string]any) { m["note"] = "mine" })
		}, []string{"step3.file"}, "remove what the lab text does not name"},
		{"missing key", func(t *testing.T) func() {
			return l.editJSON("catchup.json", func(m map[string]any) { delete(m, "observed_after_start") })
		}, []string{"step7.observed_after_start"}, "write `\"observed_after_start\": 3` in catchup.json"},
		{"restored uid is the deleted one", func(t *testing.T) func() {
			return l.editJSON("drift.json", func(m map[string]any) { m["restored_uid"] = m["deleted_uid"] })
		}, []string{"step5.restored_uid_new", "step5.restored_uid_live"}, "does not describe this cluster"},
		{"report restore_seconds not drift's", func(t *testing.T) func() {
			return l.editJSON("report.json", func(m map[string]any) { m["restore_seconds"] = m["restore_seconds"].(float64) + 1 })
		}, []string{"step8.restore_seconds"}, "cnpa step 8"},
		{"archive removed", func(t *testing.T) func() {
			path := filepath.Join(l.dir, "archive", "beta.json")
			// Moved away and back: the very file cnpa wrote returns
			// (a file written anew would be another one, see restoreFile).
			if err := os.Rename(path, path+".away"); err != nil {
				t.Fatal(err)
			}
			return func() {
				if err := os.Rename(path+".away", path); err != nil {
					t.Fatal(err)
				}
			}
		}, []string{"step6.archive_record"}, "lets beta go"},
		{"service stopped", func(t *testing.T) func() {
			l.must("service", "stop")
			return func() { l.must("service", "start") }
		}, []string{"step4.service_active"}, "cnpa service start"},
		{"quota edited by hand while the controller is stopped", func(t *testing.T) func() {
			l.must("service", "stop")
			l.Kubectl(nil, "patch", "resourcequota", "-n", "team-alpha", teamspace.QuotaName, "--type=merge", "-p", `{"spec":{"hard":{"pods":"99"}}}`)
			return func() { l.must("service", "start") }
		}, []string{"step4.service_active", "step5.quota_in_sync"}, "cnpa service start"},
		{"CRD maximum 50 to 60", func(t *testing.T) func() {
			l.Kubectl(nil, "patch", "crd", teamspace.CRDName, "--type=json", "-p",
				`[{"op":"replace","path":"/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/pods/maximum","value":60}]`)
			// The hint's own command puts it back.
			return func() { l.Kubectl(nil, "apply", "--server-side", "--force-conflicts", "-f", crdPath) }
		}, []string{"step1.crd.pods_maximum"}, "kubectl apply --server-side --force-conflicts -f " + crdPath},
		{"unit without Restart=always", func(t *testing.T) func() {
			path := filepath.Join(l.unitDir, "cnpa-op.service")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			restore := l.restoreFile(path, data)
			os.WriteFile(path, bytes.ReplaceAll(data, []byte("Restart=always"), []byte("Restart=on-failure")), 0o644)
			return restore
		}, []string{"step4.restart_always"}, "cnpa step 4"},
		{"reconcile.sh that writes on every run", func(t *testing.T) func() {
			path := filepath.Join(l.dir, "reconcile.sh")
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// Correct otherwise, but it stamps team-alpha on every pass.
			script := strings.Replace(string(data), "exec ", "kubectl annotate --overwrite namespace team-alpha cnpa-e2e/stamp=\"$(date +%s%N)\" >/dev/null\n", 1)
			restore := l.restoreFile(path, data)
			os.WriteFile(path, []byte(script), 0o755)
			return func() {
				restore()
				l.Kubectl(nil, "annotate", "namespace", "team-alpha", "cnpa-e2e/stamp-")
			}
		}, []string{"step3.rerun_writes_nothing"}, "skip objects that already match"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			restore := tc.tamper(t)
			code, rep := l.check()
			restore()
			got := rep.FailedIDs()
			if !slices.Equal(got, tc.want) {
				t.Errorf("failed checks: got %v, want %v", got, tc.want)
			}
			if code != 1 {
				t.Errorf("exit code: got %d, want 1", code)
			}
			for _, c := range rep.Checks {
				if c.Status == judge.Fail && (c.Hint == "" || c.Expected == "" || c.Actual == "") {
					t.Errorf("%s fails without expected, actual and a hint: %+v", c.ID, c)
				}
				if c.Status == judge.Fail && c.ID == tc.want[0] && !strings.Contains(c.Hint, tc.hint) {
					t.Errorf("%s hint: got %q, want it to mention %q", c.ID, c.Hint, tc.hint)
				}
				if c.Status == judge.Fail {
					t.Logf("%s: found %s, expected %s → %s", c.ID, c.Actual, c.Expected, c.Hint)
				}
			}
		})
	}
	// Everything put back, the grade is clean again.
	l.mustPass()
	assertNoTemporaries(t, l)
}

// testResetAndAgain: reset removes every TeamSpace (archiving the one our
// finalizer held and keeping a foreign finalizer), only our namespaces, the
// CRD and the evidence; the lab then runs and passes again.
func testResetAndAgain(t *testing.T, l *labCLI) {
	ctx := context.Background()
	tsRes := l.Dyn.Resource(teamspace.GVR)
	// A namespace with our label but no ownerReference is not ours.
	notOurs := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-e2e-not-ours", Labels: map[string]string{teamspace.OwnerLabel: "ghost"}}}
	if _, err := l.Kube.CoreV1().Namespaces().Create(ctx, notOurs, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		l.Kube.CoreV1().Namespaces().Delete(context.Background(), notOurs.Name, metav1.DeleteOptions{})
	})
	// The learner's own files beside cnpa's, and a project dir where cnpa
	// never wrote, with files named like cnpa's.
	learnerFiles := map[string]string{
		"notes.json":           `{"mine": true}`,
		"archive/notes.txt":    "mine",
		"archive/by-hand.json": `{"name": "by-hand", "uid": "u", "pods": 1}`,
	}
	project := filepath.Join(t.TempDir(), "project")
	for _, f := range []string{"crd.yaml", "report.json", "reconcile.sh", "archive/alpha.json"} {
		learnerFiles[filepath.Join(project, f)] = "the learner's " + f
	}
	for name, content := range learnerFiles {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(l.dir, name)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	learnerSurvived := func(when string) {
		t.Helper()
		for name, content := range learnerFiles {
			p := name
			if !filepath.IsAbs(p) {
				p = filepath.Join(l.dir, name)
			}
			if got, err := os.ReadFile(p); err != nil || string(got) != content {
				t.Errorf("%s: the learner's %s: got %q (err %v), want it untouched", when, p, got, err)
			}
		}
	}
	// A TeamSpace another controller holds too.
	const held = "e2e-held"
	e := l.For(t)
	e.Create(held, 1, "", check.ForeignFinalizer)
	e.WaitFor("the controller adds its finalizer to "+held, time.Minute, func() error {
		ts, err := e.GetTeamSpace(held)
		if err != nil {
			return err
		}
		if !teamspace.HasFinalizer(ts.Finalizers, teamspace.Finalizer) {
			return fmt.Errorf("finalizers %v lack %s", ts.Finalizers, teamspace.Finalizer)
		}
		return nil
	})

	// A stranger's team- namespace that looks like ours: our label and an
	// ownerReference to a TeamSpace (held, which the first reset cannot
	// remove, so the garbage collector never strips the reference), but
	// not as its controller nor under its name, and a second, live owner,
	// so the garbage collector keeps it too. The controller would never
	// adopt it; reset must not delete it.
	owner, err := tsRes.Get(ctx, held, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	view, err := l.Kube.RbacV1().ClusterRoles().Get(ctx, "view", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stranger := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-e2e-stranger",
		Labels: map[string]string{teamspace.OwnerLabel: held},
		OwnerReferences: []metav1.OwnerReference{
			{APIVersion: teamspace.APIVersion, Kind: teamspace.Kind, Name: held, UID: owner.GetUID()},
			{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "view", UID: view.UID},
		}}}
	if _, err := l.Kube.CoreV1().Namespaces().Create(ctx, stranger, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		l.Kube.CoreV1().Namespaces().Delete(context.Background(), stranger.Name, metav1.DeleteOptions{})
	})

	// The CRD cannot go while held's instance is there, and reset waits its
	// whole --timeout for it (3 min by default) before it exits 1. 30 s
	// keeps what this reset proves (exit 1, naming held and the finalizer,
	// the stranger's namespace left alone, held archived) and still gives
	// held's namespace ample time to be deleted.
	code, out, errOut := l.reset("--timeout", "30s")
	if code != 1 || !strings.Contains(errOut, held) || !strings.Contains(errOut, check.ForeignFinalizer) {
		t.Fatalf("reset with %s held by %s: got exit %d, want 1 and a message naming both\n%s%s", held, check.ForeignFinalizer, code, out, errOut)
	}
	if ns, err := l.Kube.CoreV1().Namespaces().Get(ctx, stranger.Name, metav1.GetOptions{}); err != nil {
		t.Errorf("the stranger's %s after reset: %v, want it there", stranger.Name, err)
	} else if ns.DeletionTimestamp != nil {
		t.Errorf("the stranger's %s after reset: being deleted, want it left alone", stranger.Name)
	}
	u, err := tsRes.Get(ctx, held, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := u.GetFinalizers(), []string{check.ForeignFinalizer}; !slices.Equal(got, want) || u.GetDeletionTimestamp() == nil {
		t.Errorf("%s after reset: finalizers %v, deletionTimestamp %v; want %v and set", held, got, u.GetDeletionTimestamp(), want)
	}
	var rec struct{ Name, UID string }
	if data, err := os.ReadFile(filepath.Join(l.dir, "archive", held+".json")); err != nil {
		t.Errorf("reset did not archive %s before removing our finalizer: %v", held, err)
	} else if json.Unmarshal(data, &rec); rec.UID != string(u.GetUID()) {
		t.Errorf("archive/%s.json uid: got %q, want %q", held, rec.UID, u.GetUID())
	}
	// The other controller lets go; reset again finishes the job.
	if _, err := tsRes.Patch(ctx, held, "application/merge-patch+json", []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if code, out, errOut := l.reset(); code != 0 {
		t.Fatalf("reset: exit %d\n%s%s", code, out, errOut)
	}
	t.Logf("reset --yes: %s", time.Since(start).Round(time.Millisecond))

	if _, err := l.Dyn.Resource(teamspace.CRDGVR).Get(ctx, teamspace.CRDName, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("CRD after reset: got %v, want NotFound", err)
	}
	nss, err := l.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{LabelSelector: teamspace.OwnerLabel})
	if err != nil {
		t.Fatal(err)
	}
	var left []string
	for _, ns := range nss.Items {
		left = append(left, ns.Name)
	}
	if want := []string{notOurs.Name, stranger.Name}; !slices.Equal(left, want) {
		t.Errorf("labelled namespaces after reset: got %v, want only %v (not ours, so untouched)", left, want)
	}
	if files := dirNames(l.dir); !slices.Equal(files, []string{".cnpa", ".cnpa-state.json", "archive", "notes.json"}) {
		t.Errorf("evidence dir after reset: got %v, want only the lab's choices (.cnpa-state.json and its manifest in .cnpa/, kept for the new run), archive/ (kept without --purge) and the learner's notes.json", files)
	}
	learnerSurvived("after reset")
	// --purge removes the records cnpa's engines wrote (beta's, and held's
	// that reset wrote), not the learner's files in archive/.
	if code, out, errOut := l.reset("--purge"); code != 0 {
		t.Fatalf("reset --purge: exit %d\n%s%s", code, out, errOut)
	}
	if files := dirNames(filepath.Join(l.dir, "archive")); !slices.Equal(files, []string{"by-hand.json", "notes.txt"}) {
		t.Errorf("archive dir after reset --purge: got %v, want only the learner's by-hand.json and notes.txt", files)
	}
	// A dir cnpa never wrote into: nothing in it is cnpa's, whatever its name.
	if code, out, errOut := l.run("--dir", project, "reset", "--yes", "--purge", "--service-manager", "process", "--unit-dir", l.unitDir); code != 0 {
		t.Fatalf("reset --purge of %s: exit %d\n%s%s", project, code, out, errOut)
	}
	learnerSurvived("after reset --purge")
	// The service's identity went with it (its kubeconfig file did, above).
	if present, err := identity.Present(ctx, &kube.Clients{Dynamic: l.Dyn}); err != nil || present {
		t.Errorf("the service's identity after reset: present %v (err %v), want ServiceAccount, token, roles and policy gone", present, err)
	}
	if code, out, _ := l.run("service", "status"); code == 0 {
		t.Errorf("service after reset: `cnpa service status` exits 0, want it not running\n%s", out)
	}

	l.lab("go")
	l.mustPass()
	assertNoTemporaries(t, l)
}

// TestCheckShellEngine runs the lab from a reset cluster with the shell
// engine (assets/reconcile.sh behind reconcile.sh and the service) and
// grades it, including a reconcile.sh that writes when nothing differs.
func TestCheckShellEngine(t *testing.T) {
	l, _ := passingLab(t, "shell")
	l.must("service", "stop")
	code, rep := l.check()
	l.must("service", "start")
	if got, want := rep.FailedIDs(), []string{"step4.service_active"}; code != 1 || !slices.Equal(got, want) {
		t.Errorf("service stopped: got exit %d and failures %v, want 1 and %v", code, got, want)
	}
}

// passingLab starts from a reset cluster, whatever earlier tests left in
// it, runs the whole lab with engine and grades it: every check must pass,
// and no temporary TeamSpace of the grader's may be left.
func passingLab(t *testing.T, engine string) (*labCLI, *judge.Report) {
	t.Helper()
	l := newLabCLI(t)
	if code, out, errOut := l.reset(); code != 0 {
		t.Fatalf("reset before the lab: exit %d\n%s%s", code, out, errOut)
	}
	l.lab(engine)
	start := time.Now()
	rep := l.mustPass()
	t.Logf("check: %d checks passed in %s", rep.Passed, time.Since(start).Round(time.Millisecond))
	assertNoTemporaries(t, l)
	return l, rep
}

// assertNoTemporaries: the grader's temporary TeamSpaces and their archive
// records are gone once check has exited.
func assertNoTemporaries(t *testing.T, l *labCLI) {
	t.Helper()
	list, err := l.Dyn.Resource(teamspace.GVR).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range list.Items {
		if strings.HasPrefix(u.GetName(), check.TempPrefix) {
			t.Errorf("temporary TeamSpace %s left behind (finalizers %v)", u.GetName(), u.GetFinalizers())
		}
	}
	left, _ := filepath.Glob(filepath.Join(l.dir, "archive", check.TempPrefix+"*"))
	if len(left) > 0 {
		t.Errorf("archive records of temporary TeamSpaces left behind: %v", left)
	}
}

// dirNames lists the names in dir, sorted.
func dirNames(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

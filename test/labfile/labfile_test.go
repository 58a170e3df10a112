// Package labfile proves the labs kept as files on a real control plane:
// `cnpa lab lint` and `cnpa lab test` on labs/vap, case by case; `cnpa
// --lab vap step all` and `check` on its reference, in English and
// Japanese; and a lab whose mutant no check sees, which `cnpa lab test`
// must reject by name.
package labfile

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/tools/clientcmd"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/labfile"
	"github.com/labhub/cnpa/internal/submission"
	"github.com/labhub/cnpa/test/kit"
	"github.com/labhub/cnpa/test/kit/cluster"
)

func TestMain(m *testing.M) { cluster.Main(m) }

// cnpaBin is the cnpa binary under test, placed once.
var cnpaBin string

func bin(t *testing.T) string {
	t.Helper()
	if cnpaBin == "" {
		p := filepath.Join(os.TempDir(), fmt.Sprintf("cnpa-labfile-%d", os.Getpid()))
		os.Remove(p)
		if err := kit.PlaceCnpa(p); err != nil {
			t.Fatal(err)
		}
		cnpaBin = p
	}
	return cnpaBin
}

// cnpaRun runs cnpa with args against the shared cluster: exit code and
// combined output.
func cnpaRun(t *testing.T, env []string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin(t), args...)
	cmd.Env = append(cluster.Shared(t).Env(), env...)
	cmd.Dir = repoRoot(t)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	}
	if err != nil {
		t.Fatalf("cnpa %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return 0, string(out)
}

func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func kubectl(t *testing.T, args ...string) string {
	t.Helper()
	c := cluster.Shared(t)
	cmd := exec.Command(c.Kubectl(), args...)
	cmd.Env = c.Env()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// The shipped lab lints clean, offline.
func TestLint(t *testing.T) {
	code, out := cnpaRun(t, nil, "lab", "lint", "labs/vap")
	if code != 0 || !strings.Contains(out, "labs/vap/lab.yaml: the lab is whole: 4 steps, 6 checks, 11 cases, in en, ja") {
		t.Fatalf("cnpa lab lint labs/vap: exit %d, want 0 and the lab whole:\n%s", code, out)
	}
}

// Every built-in verb against the real API server, on objects the
// control plane keeps by itself: a namespace's kube-root-ca.crt, which
// kube-controller-manager publishes again under a new uid when it is
// deleted.
func TestVerbs(t *testing.T) {
	c := cluster.Shared(t)
	ns := "labfile-verbs"
	kubectl(t, "create", "namespace", ns)
	t.Cleanup(func() { kubectl(t, "delete", "namespace", ns, "--wait=false") })
	root := repoRoot(t)
	l, ps := labfile.Load(os.DirFS(filepath.Join(root, "labs/vap")), "labs/vap")
	if len(ps) > 0 {
		t.Fatal(ps.Say(i18n.English))
	}
	rc, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	e, err := labfile.NewEngine(l, rc, c.Kubeconfig, filepath.Join(root, "labs/vap"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	fact := func(verb string, with map[string]any) map[string]any {
		t.Helper()
		v, err := e.Cluster.Fact(ctx, labfile.Fact{ID: "x", Verb: verb, With: with})
		if err != nil {
			t.Fatalf("%s %v: %v", verb, with, err)
		}
		return v
	}
	cm := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "namespace": ns, "name": "kube-root-ca.crt"}
	// The controller publishes it a moment after the namespace is made.
	until := map[string]any{"condition": "found && has(object.data)", "timeout": "30"}
	for k, v := range cm {
		until[k] = v
	}
	if got := fact("wait-until", until); got["held"] != true || got["found"] != true {
		t.Fatalf("wait-until kube-root-ca.crt in %s: got %v, want held", ns, got)
	}
	until["condition"], until["timeout"] = "object.data.size() > 5", "1"
	if got := fact("wait-until", until); got["held"] != false || got["found"] != true || got["seconds"].(int64) < 1 {
		t.Errorf("wait-until a condition that never holds: got %v, want not held after 1 s, the object as last seen", got)
	}
	got := fact("get", cm)
	if name := got["object"].(map[string]any)["metadata"].(map[string]any)["name"]; name != "kube-root-ca.crt" {
		t.Errorf("get: object.metadata.name %v, want kube-root-ca.crt", name)
	}
	if got := fact("get", map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "namespace": ns, "name": "none"}); got["found"] != false {
		t.Errorf("get of no object: found %v, want false", got["found"])
	}
	if got := fact("list", map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "namespace": ns}); got["count"] != int64(1) {
		t.Errorf("list: count %v, want 1", got["count"])
	}
	with := map[string]any{"timeout": "30"}
	for k, v := range cm {
		with[k] = v
	}
	got = fact("delete-and-time", with)
	if got["returned"] != true || got["returned_uid"] == got["deleted_uid"] || got["seconds"].(int64) < 0 {
		t.Errorf("delete-and-time: got %v, want returned under a new uid", got)
	}
	if got := fact("try-create", map[string]any{"namespace": ns, "manifest": "resources/too-many.yaml"}); got["admitted"] != true {
		t.Errorf("try-create with no policy bound: got %v, want admitted", got)
	}
	if got := fact("get", map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "namespace": ns, "name": "too-many"}); got["found"] != false {
		t.Error("try-create made the Deployment: a dry run makes nothing")
	}
	got = fact("try-patch", map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "namespace": ns, "name": "none", "patch": `{"spec":{"replicas":7}}`})
	if got["admitted"] != false || !strings.Contains(got["message"].(string), "not found") {
		t.Errorf("try-patch of no object: got %v, want refused, not found", got)
	}
}

// A learner's path through the lab: the reference applied by hand, then
// every step and the check, in English and in Japanese; then the check
// again after the binding is changed to only warn, failing the one check
// it names with its hint.
func TestStepAndCheck(t *testing.T) {
	dir := t.TempDir()
	root := repoRoot(t)
	env := []string{"CNPA_LAB=vap", "CNPA_DIR=" + dir}
	t.Cleanup(func() {
		kubectl(t, "delete", "validatingadmissionpolicybinding,validatingadmissionpolicy", "replica-limit", "--ignore-not-found")
		kubectl(t, "-n", "vap-demo", "delete", "deployment", "idle", "--ignore-not-found")
	})
	// The namespaces come with the lab's resources, which step applies.
	kubectl(t, "apply", "-f", filepath.Join(root, "labs/vap/solution/policy.yaml"), "-f", filepath.Join(root, "labs/vap/solution/binding.yaml"))
	code, out := cnpaRun(t, env, "step", "all")
	if code != 0 || strings.Count(out, "✓") != 6 || !strings.Contains(out, "wrote "+filepath.Join(dir, "scope.json")) {
		t.Fatalf("cnpa --lab vap step all: exit %d, want 0 and 6 ✓:\n%s", code, out)
	}
	code, out = cnpaRun(t, env, "check")
	if code != 0 || !strings.Contains(out, "6 passed, 0 failed, 0 not checked") {
		t.Fatalf("cnpa --lab vap check: exit %d, want all 6 passed:\n%s", code, out)
	}
	code, out = cnpaRun(t, env, "--lang", "ja", "check")
	if code != 0 || !strings.Contains(out, "ステップ4 — バインディングはほかのネームスペースに触れない") || !strings.Contains(out, "6件合格、0件不合格、0件未チェック") {
		t.Fatalf("cnpa --lang ja check: exit %d, want the Japanese report:\n%s", code, out)
	}
	// alice submits the reference; her submission names the lab and its
	// files' hash.
	subs := t.TempDir()
	code, out = cnpaRun(t, env, "submit", "--learner", "alice", "--out", filepath.Join(subs, "alice.json"))
	if code != 0 || !strings.Contains(out, "6 passed, 0 failed") || !strings.Contains(out, "the submission is of lab vap") {
		t.Fatalf("cnpa --lab vap submit: exit %d, want 0 and 6 passed:\n%s", code, out)
	}

	// watch follows the lab: every step passes, so it is on the last; a
	// refuse.json saved that says nothing was refused puts it on step 1,
	// saved back on the last again.
	w := watchLab(t, env)
	w.next("the last step passing", func(v verdict) bool { return v.Step == 4 && v.Status == "pass" })
	good := readFile(t, filepath.Join(dir, "refuse.json"))
	saveFile(t, filepath.Join(dir, "refuse.json"), `{"refused": false, "message": ""}`)
	w.next("step 1 failing on the file saved", func(v verdict) bool {
		return v.Step == 1 && v.ID == "refuse.refused" && v.Status == "fail" && strings.Contains(v.Actual, `"recorded":false`)
	})
	saveFile(t, filepath.Join(dir, "refuse.json"), good)
	w.next("the last step again", func(v verdict) bool { return v.Step == 4 && v.Status == "pass" })

	// The binding only warns: refuse.refused fails, refuse.message waits
	// on it, and the hint nudges first, then gives the answer. watch sees
	// it with no file saved: the facts changed.
	warn := strings.Replace(readFile(t, filepath.Join(root, "labs/vap/solution/binding.yaml")), "[Deny]", "[Warn]", 1)
	apply(t, warn)
	admitted(t, 20*time.Second)
	w.next("step 1 failing on the cluster's change", func(v verdict) bool {
		return v.Step == 1 && v.ID == "refuse.refused" && v.Status == "fail" && strings.Contains(v.Actual, `"live":false,"recorded":true`)
	})
	w.stop()
	for _, want := range []struct {
		line, hint string
	}{
		{"hint: A policy alone does nothing", ""},
		{"hint: A policy alone does nothing", "answer: Apply a ValidatingAdmissionPolicyBinding"},
	} {
		code, out = cnpaRun(t, env, "check")
		for _, s := range []string{"✗ the Deployment of 7 replicas in vap-demo is refused", `found:    {"live":false,"recorded":true}`,
			"likely: the policy is not bound to deny", "– the refusal says the policy's message", "not checked: refuse.refused does not pass yet", want.line} {
			if !strings.Contains(out, s) {
				t.Errorf("cnpa check with a Warn binding lacks %q:\n%s", s, out)
			}
		}
		if code != 1 || (want.hint != "") != strings.Contains(out, "answer:") || (want.hint != "" && !strings.Contains(out, want.hint)) {
			t.Errorf("cnpa check with a Warn binding: exit %d, want 1, and the answer only the second time (%q):\n%s", code, want.hint, out)
		}
	}
	// bob submits the same files with the binding that only warns: the
	// facts his run read say the Deployment was admitted.
	code, out = cnpaRun(t, env, "submit", "--learner", "bob", "--out", filepath.Join(subs, "bob.json"))
	if code != 1 || !strings.Contains(out, "wrote "+filepath.Join(subs, "bob.json")) {
		t.Fatalf("cnpa --lab vap submit with a Warn binding: exit %d, want 1 and the file written:\n%s", code, out)
	}
	classGrade(t, subs)
}

// classGrade grades alice's (the reference) and bob's (the binding that
// only warns) submissions of labs/vap offline, with the lab's own engine,
// and refuses a submission of another lab, or of other files under the
// same name, naming both and the fix. It needs no cluster.
func classGrade(t *testing.T, subs string) {
	t.Helper()
	vap := []string{"CNPA_LAB=vap"}
	code, out := cnpaRun(t, vap, "class", "grade", "-o", "csv", subs)
	if code != 0 {
		t.Fatalf("cnpa --lab vap class grade -o csv: exit %d\n%s", code, out)
	}
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil || len(recs) != 3 {
		t.Fatalf("cnpa --lab vap class grade -o csv: %v, want a header and 2 rows:\n%s", err, out)
	}
	head := strings.Join(recs[0], ",")
	if !strings.HasSuffix(head, ",cluster,refuse,admit,update,scope") {
		t.Errorf("CSV header %q: want the lab's steps as its step columns", head)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	rows := map[string][]string{}
	for _, r := range recs[1:] {
		rows[r[0]] = r
	}
	cell := func(who, c string) string { return rows[who][col[c]] }
	// Both were made on this one cluster, and say so.
	if a := strings.Join(rows["alice"], ","); cell("alice", "steps_passed") != "4" || cell("alice", "checks_passed") != "6" || cell("alice", "checks_total") != "6" ||
		cell("alice", "flags") != "same-cluster-as:bob" || cell("alice", "graded") != "offline" || cell("alice", "scope") != "pass" {
		t.Errorf("alice (the reference): %q, want 4 steps and 6 checks of 6, flagged only as on bob's cluster", a)
	}
	// A binding that only warns admits everything: every step fails, and
	// the first failure names the mistake.
	if b := strings.Join(rows["bob"], ","); cell("bob", "first_failing_step") != "1" || cell("bob", "diagnosis") != "the policy is not bound to deny" ||
		cell("bob", "refuse") != "fail" || cell("bob", "steps_passed") != "0" || cell("bob", "flags") != "same-cluster-as:alice" {
		t.Errorf("bob (a binding that only warns): %q, want step 1 failing by its mistake's name, not tampered", b)
	}
	code, out = cnpaRun(t, vap, "class", "grade", subs)
	if code != 0 || !strings.Contains(out, "bob              0/4 steps") {
		t.Errorf("cnpa --lab vap class grade: exit %d, want bob's row with 0 of 4 steps\n%s", code, out)
	}
	t.Logf("cnpa --lab vap class grade:\n%s", out)
	code, out = cnpaRun(t, vap, "--lang", "ja", "class", "grade", subs)
	if code != 0 || !strings.Contains(out, "ラボvap（ファイル") || !strings.Contains(out, "ポリシーが拒否として結び付けられていない") {
		t.Errorf("cnpa --lab vap class grade in Japanese: exit %d\n%s", code, out)
	}

	// The same files in a dir hash as the lab cnpa ships: admitted.
	same := t.TempDir()
	if err := os.CopyFS(same, os.DirFS(filepath.Join(repoRoot(t), "labs/vap"))); err != nil {
		t.Fatal(err)
	}
	if code, out := cnpaRun(t, []string{"CNPA_LAB=" + same}, "class", "grade", "-o", "json", filepath.Join(subs, "alice.json")); code != 0 || !strings.Contains(out, `"steps_passed": 4`) {
		t.Errorf("cnpa --lab DIR class grade, DIR the same files as labs/vap: exit %d, want alice graded\n%s", code, out)
	}
	// One changed byte is another version of the lab: refused, naming both
	// hashes and the fix.
	if err := os.WriteFile(filepath.Join(same, "lab.yaml"), append([]byte(readFile(t, filepath.Join(same, "lab.yaml"))), "# changed\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out = cnpaRun(t, []string{"CNPA_LAB=" + same}, "class", "grade", filepath.Join(subs, "alice.json"))
	if code != 2 || !regexp.MustCompile(`alice.json is a submission of lab vap with files [0-9a-f]{12}…, and the lab this grading uses \(\S+\) has files [0-9a-f]{12}…: another version of the lab: grade it with the lab files the learner used`).MatchString(out) {
		t.Errorf("cnpa --lab DIR class grade, DIR another version of vap: exit %d, want 2 and the refusal\n%s", code, out)
	}
	// The TeamSpace lab's grading refuses it, and says how to grade it;
	// with a submission it can grade, the refused one is a row of its own.
	code, out = cnpaRun(t, []string{"CNPA_LAB="}, "class", "grade", filepath.Join(subs, "alice.json"))
	if code != 2 || !strings.Contains(out, "alice.json is a submission of lab \"vap\"") || !strings.Contains(out, "this grading is of the TeamSpace lab: grade it with its lab: `cnpa --lab vap class grade`") {
		t.Errorf("cnpa class grade (the TeamSpace lab) of a vap submission: exit %d, want 2 and the refusal\n%s", code, out)
	}
	// A submission of another lab (its name changed and hashed again, as
	// anyone can) is refused in vap's gradebook, in a row of its own.
	sub, err := submission.Read(filepath.Join(subs, "alice.json"))
	if err != nil {
		t.Fatal(err)
	}
	sub.Learner, sub.Lab.Name = "carol", "gitops"
	if err := submission.Write(filepath.Join(subs, "carol.json"), &sub.Content); err != nil {
		t.Fatal(err)
	}
	code, out = cnpaRun(t, vap, "class", "grade", subs)
	if code != 0 || !strings.Contains(out, "carol.json is a submission of lab \"gitops\"") || !strings.Contains(out, "and this grading is of lab vap (labs/vap): grade it with its lab: `cnpa --lab gitops class grade`") {
		t.Errorf("cnpa --lab vap class grade with a gitops submission: exit %d, want its row refused\n%s", code, out)
	}
}

// verdict is one line of `cnpa watch -o json`.
type verdict struct {
	Step   int    `json:"step"`
	ID     string `json:"id"`
	Status string `json:"status"`
	Actual string `json:"actual"`
}

// labWatch is a `cnpa --lab vap watch -o json` running.
type labWatch struct {
	t     *testing.T
	lines chan verdict
	in    io.WriteCloser
	cmd   *exec.Cmd
	out   *strings.Builder
}

// watchLab starts `cnpa watch -o json` on the lab env names, polling
// the cluster every 300 ms.
func watchLab(t *testing.T, env []string) *labWatch {
	t.Helper()
	cmd := exec.Command(bin(t), "watch", "-o", "json", "--poll", "300ms")
	cmd.Env = append(cluster.Shared(t).Env(), env...)
	var errOut strings.Builder
	cmd.Stderr = &errOut
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w := &labWatch{t: t, lines: make(chan verdict, 64), in: in, cmd: cmd, out: &errOut}
	go func() {
		defer close(w.lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var v verdict
			if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
				v = verdict{ID: "not JSON: " + sc.Text()}
			}
			w.lines <- v
		}
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	return w
}

// next waits (at most 30 s) for a verdict for which ok holds.
func (w *labWatch) next(what string, ok func(verdict) bool) {
	w.t.Helper()
	deadline := time.After(30 * time.Second)
	var seen []verdict
	for {
		select {
		case v, open := <-w.lines:
			if !open {
				w.t.Fatalf("cnpa watch ended before %s; saw %+v; stderr %s", what, seen, w.out)
			}
			if strings.HasPrefix(v.ID, "not JSON") {
				w.t.Errorf("cnpa watch -o json printed %s", v.ID)
			}
			if ok(v) {
				return
			}
			seen = append(seen, v)
		case <-deadline:
			w.t.Fatalf("cnpa watch: no verdict of %s in 30 s; saw %+v", what, seen)
		}
	}
}

// stop quits watch as a learner does (q, Enter) and wants exit 0.
func (w *labWatch) stop() {
	w.t.Helper()
	_, _ = io.WriteString(w.in, "q\n")
	w.in.Close()
	for range w.lines {
	}
	if err := w.cmd.Wait(); err != nil {
		w.t.Errorf("cnpa watch after q: %v; stderr %s", err, w.out)
	}
}

// saveFile saves content at p as an editor does: a temporary file
// renamed over it.
func saveFile(t *testing.T, p, content string) {
	t.Helper()
	tmp := filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".swp")
	if err := os.WriteFile(tmp, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, p); err != nil {
		t.Fatal(err)
	}
}

// admitted waits until the API server admits the Deployment of 7 replicas
// in vap-demo: a binding changed is enforced a moment later.
func admitted(t *testing.T, within time.Duration) {
	t.Helper()
	c := cluster.Shared(t)
	deadline := time.Now().Add(within)
	for {
		cmd := exec.Command(c.Kubectl(), "-n", "vap-demo", "create", "-f", filepath.Join(repoRoot(t), "labs/vap/resources/too-many.yaml"), "--dry-run=server", "-o", "name")
		cmd.Env = c.Env()
		out, err := cmd.CombinedOutput()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Deployment of 7 replicas is still refused after %s: %s", within, out)
		}
		time.Sleep(200 * time.Millisecond) // polling the API server's answer, with a deadline
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func apply(t *testing.T, manifest string) {
	t.Helper()
	c := cluster.Shared(t)
	cmd := exec.Command(c.Kubectl(), "apply", "-f", "-")
	cmd.Env, cmd.Stdin = c.Env(), strings.NewReader(manifest)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("kubectl apply: %v\n%s", err, out)
	}
}

// caseLine is one run of a case as `cnpa lab test` prints it.
var caseLine = regexp.MustCompile(`(?m)^([✓✗]) (\S+) \(run (\d)\): (.*)$`)

// `cnpa lab test labs/vap` proves the lab: every case, twice, as its file
// says; and it leaves nothing of the learner's behind.
func TestLabTest(t *testing.T) {
	start := time.Now()
	code, out := cnpaRun(t, nil, "lab", "test", "vap")
	t.Logf("cnpa lab test vap: %s", time.Since(start).Round(time.Second))
	want := map[string]int{"solution": 0, "unsolved": 0}
	for _, m := range []string{"wrong-message", "fail-open", "warn-only", "off-by-one", "refuse-all", "create-only", "create-only-condition", "no-selector", "selector-too-wide"} {
		want["mutant/"+m] = 0
	}
	for _, m := range caseLine.FindAllStringSubmatch(out, -1) {
		if _, ok := want[m[2]]; !ok {
			t.Errorf("a case the lab does not have: %s", m[0])
			continue
		}
		if m[1] != "✓" || m[4] != "as expected" {
			t.Errorf("case %s run %s: %s", m[2], m[3], m[4])
		}
		want[m[2]]++
	}
	for c, n := range want {
		if n != 2 {
			t.Errorf("case %s ran %d times, want 2", c, n)
		}
	}
	if code != 0 || !strings.Contains(out, "the lab is proved: 11 cases, each twice") {
		t.Fatalf("cnpa lab test vap: exit %d, want 0:\n%s", code, out)
	}
	// Cleaned up: no policy, no binding, the namespaces going.
	if got := kubectl(t, "get", "validatingadmissionpolicies,validatingadmissionpolicybindings", "-o", "name"); strings.TrimSpace(got) != "" {
		t.Errorf("left behind: %s", got)
	}
	for _, ns := range []string{"vap-demo", "vap-free"} {
		phase := kubectl(t, "get", "namespace", ns, "--ignore-not-found", "-o", "jsonpath={.status.phase}")
		if phase != "" && phase != "Terminating" {
			t.Errorf("namespace %s is %s, want gone or Terminating", ns, phase)
		}
	}
}

// A lab whose mutant changes nothing a check reads lints, but `cnpa lab
// test` rejects it, naming the mutant and the check that missed it; a lab
// that does not lint is not run at all.
func TestLabTestRejects(t *testing.T) {
	dir := t.TempDir()
	root := repoRoot(t)
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(root, "labs/vap"))); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "lab.yaml"), []byte(readFile(t, "testdata/blind/lab.yaml")), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out := cnpaRun(t, nil, "lab", "lint", dir); code != 0 {
		t.Fatalf("the blind lab does not lint: exit %d\n%s", code, out)
	}
	code, out := cnpaRun(t, nil, "lab", "test", dir)
	for _, s := range []string{
		"✓ solution (run 1): as expected", "✓ unsolved (run 2): as expected",
		"✗ mutant/blind (run 1): it does not fail refuse.message (it is pass): the check misses this mistake",
		"✗ mutant/blind (run 2):", "the lab is not proved: 2 of 6 runs did not go as its file says",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("cnpa lab test of the blind lab lacks %q", s)
		}
	}
	if code != 1 {
		t.Errorf("exit %d, want 1:\n%s", code, out)
	}

	// Broken: it is refused before anything runs (no namespace made).
	broken := strings.Replace(readFile(t, filepath.Join(dir, "lab.yaml")), "blind-demo", "broken-demo", 1)
	broken = strings.Replace(broken, "got: evidence.refused", "got: evidence.refusd", 1)
	if err := os.WriteFile(filepath.Join(dir, "lab.yaml"), []byte(broken), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out = cnpaRun(t, nil, "lab", "test", dir)
	if code != 1 || !strings.Contains(out, "reads evidence.refusd, which the lab does not declare") {
		t.Errorf("cnpa lab test of a lab that does not lint: exit %d, want 1 and the problem:\n%s", code, out)
	}
	if got := kubectl(t, "get", "namespace", "broken-demo", "--ignore-not-found", "-o", "name"); got != "" {
		t.Errorf("a lab that does not lint ran: %s", got)
	}
}

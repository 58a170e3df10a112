package judge_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/internal/course"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/manifest"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/ui"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// The uids of testdata/lab.
const (
	alphaUID    = "11111111-1111-1111-1111-111111111111"
	restoredUID = "33333333-3333-3333-3333-333333333333"
)

// labDir copies testdata/lab, the evidence of a correct run, to a temp dir
// the test may damage.
func labDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/lab")); err != nil {
		t.Fatal(err)
	}
	// As cnpa's steps leave them: each evidence file in cnpa's manifest,
	// with what it holds (a file not there is the learner's).
	for _, f := range steps.Files() {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			continue
		}
		if err := manifest.Record(dir, f, data); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// goodFacts is the cluster a correct run leaves behind testdata/lab: the
// shipped CRD, alpha at generation 3 in sync with its quota, beta gone, the
// service running.
func goodFacts(t *testing.T, dir string) *judge.Facts {
	t.Helper()
	var crd map[string]any
	if err := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(assets.CRD), 4096).Decode(&crd); err != nil {
		t.Fatal(err)
	}
	// Through JSON, as the API server returns it (numbers as int64).
	data, _ := json.Marshal(crd)
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	unstructured.SetNestedSlice(u.Object, []any{map[string]any{"type": "Established", "status": "True"}}, "status", "conditions")
	alpha := &teamspace.TeamSpace{
		ObjectMeta: metav1.ObjectMeta{Name: "alpha", UID: alphaUID, Generation: 3, Finalizers: []string{teamspace.Finalizer}},
		Spec:       teamspace.Spec{Pods: 8, CPU: "1"},
		Status:     teamspace.Status{ObservedGeneration: 3, Namespace: "team-alpha"},
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-alpha",
		Labels: map[string]string{teamspace.OwnerLabel: "alpha"}, OwnerReferences: []metav1.OwnerReference{alpha.OwnerReference()}}}
	q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: teamspace.QuotaName, Namespace: "team-alpha", UID: restoredUID},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("8"), corev1.ResourceRequestsCPU: resource.MustParse("1")}}}
	return &judge.Facts{CRD: u, Alpha: alpha, TeamAlpha: ns, Quota: q, Dir: dir, Authors: steps.Authors(dir),
		Service: lab.ServiceStatus{Manager: "process", UnitPath: "/etc/systemd/system/cnpa-op.service", Installed: true, Enabled: true, Active: true, MainPID: 42},
		Unit:    "[Service]\nExecStart=/bin/true\nRestart=always\n"}
}

func writeFile(t *testing.T, dir, name, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// editJSON rewrites one key of an evidence file; a nil value deletes it.
func editJSON(t *testing.T, dir, name, key string, value any) {
	t.Helper()
	var m map[string]any
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	if value == nil {
		delete(m, key)
	} else {
		m[key] = value
	}
	data, _ = json.Marshal(m)
	writeFile(t, dir, name, string(data))
}

func failed(checks []judge.Check) []string {
	var ids []string
	for _, c := range checks {
		if c.Status == judge.Fail {
			ids = append(ids, c.ID)
		}
	}
	return ids
}

func TestEvaluate(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, dir string, f *judge.Facts)
		want   []string // failing ids, in report order
	}{
		{"correct run", func(*testing.T, string, *judge.Facts) {}, nil},
		{"changed uid", func(t *testing.T, d string, _ *judge.Facts) { editJSON(t, d, "before.json", "uid", "x") }, []string{"step1.uid"}},
		{"bool as string", func(t *testing.T, d string, _ *judge.Facts) {
			editJSON(t, d, "before.json", "namespace_exists", "false")
		}, []string{"step1.namespace_exists"}},
		{"flipped bool", func(t *testing.T, d string, _ *judge.Facts) { editJSON(t, d, "cleanup.json", "blocked_seen", false) }, []string{"step6.blocked_seen"}},
		{"flipped bool feeds the report", func(t *testing.T, d string, _ *judge.Facts) { editJSON(t, d, "before.json", "namespace_exists", true) },
			[]string{"step1.namespace_exists", "step8.crd_alone_created_namespace"}},
		{"integer as string", func(t *testing.T, d string, _ *judge.Facts) { editJSON(t, d, "drift.json", "restore_seconds", "1") }, []string{"step5.restore_seconds"}},
		{"quota pods as integer", func(t *testing.T, d string, _ *judge.Facts) {
			editJSON(t, d, "catchup.json", "quota_pods_while_stopped", 6)
		}, []string{"step7.quota_pods_while_stopped"}},
		{"float", func(t *testing.T, d string, _ *judge.Facts) {
			writeFile(t, d, "generation.json", strings.Replace(readFile(t, d, "generation.json"), `"gen_initial": 1`, `"gen_initial": 1.0`, 1))
		},
			[]string{"step2.gen_initial"}},
		{"extra key", func(t *testing.T, d string, _ *judge.Facts) { editJSON(t, d, "drift.json", "note", "hi") }, []string{"step5.file"}},
		{"missing key", func(t *testing.T, d string, _ *judge.Facts) { editJSON(t, d, "cleanup.json", "namespace_gone", nil) }, []string{"step6.namespace_gone"}},
		{"not JSON", func(t *testing.T, d string, _ *judge.Facts) { writeFile(t, d, "reconcile.json", "{") }, []string{"step3.file"}},
		{"missing file", func(t *testing.T, d string, _ *judge.Facts) { os.Remove(filepath.Join(d, "catchup.json")) }, []string{"step7.file"}},
		{"status via main", func(t *testing.T, d string, _ *judge.Facts) {
			editJSON(t, d, "generation.json", "status_via_main", map[string]any{"observedGeneration": 7})
		}, []string{"step2.status_via_main"}},
		{"restored uid not new", func(t *testing.T, d string, _ *judge.Facts) {
			editJSON(t, d, "drift.json", "restored_uid", "22222222-2222-2222-2222-222222222222")
		}, []string{"step5.restored_uid_new", "step5.restored_uid_live"}},
		{"deleted uid not step 3's", func(t *testing.T, d string, _ *judge.Facts) { editJSON(t, d, "drift.json", "deleted_uid", "x") }, []string{"step5.deleted_uid"}},
		{"report restore_seconds", func(t *testing.T, d string, _ *judge.Facts) { editJSON(t, d, "report.json", "restore_seconds", 2) }, []string{"step8.restore_seconds"}},
		{"report trigger", func(t *testing.T, d string, _ *judge.Facts) { editJSON(t, d, "report.json", "trigger", "edge") }, []string{"step8.trigger"}},
		{"archive removed", func(t *testing.T, d string, _ *judge.Facts) { os.Remove(filepath.Join(d, "archive", "beta.json")) }, []string{"step6.archive_record"}},
		{"archive pods as string", func(t *testing.T, d string, _ *judge.Facts) { editJSON(t, d, "archive/beta.json", "pods", "2") }, []string{"step6.archive_record"}},
		{"cleanup uid not archived", func(t *testing.T, d string, _ *judge.Facts) { editJSON(t, d, "cleanup.json", "uid", alphaUID) }, []string{"step6.uid"}},
		{"CRD maximum", func(_ *testing.T, _ string, f *judge.Facts) { setSchema(f, int64(60), "pods", "maximum") }, []string{"step1.crd.pods_maximum"}},
		{"CRD default", func(_ *testing.T, _ string, f *judge.Facts) { setSchema(f, int64(1), "cpu", "default") }, []string{"step1.crd.cpu_default"}},
		{"CRD not installed", func(_ *testing.T, _ string, f *judge.Facts) { f.CRD = nil }, []string{"step1.crd"}},
		{"service stopped", func(_ *testing.T, _ string, f *judge.Facts) { f.Service.Active = false }, []string{"step4.service_active"}},
		{"no Restart=always", func(_ *testing.T, _ string, f *judge.Facts) { f.Unit += "Restart=on-failure\n" }, []string{"step4.restart_always"}},
		// Another dir's unit at the one unit path is not this lab's service.
		{"another dir's unit", func(_ *testing.T, _ string, f *judge.Facts) { f.OtherDir = "/root/other-lab" }, []string{"step4.unit_file"}},
		{"quota edited", func(_ *testing.T, _ string, f *judge.Facts) {
			f.Quota.Spec.Hard[corev1.ResourcePods] = resource.MustParse("99")
		}, []string{"step5.quota_in_sync"}},
		{"beta back", func(_ *testing.T, _ string, f *judge.Facts) {
			f.Beta = &teamspace.TeamSpace{ObjectMeta: metav1.ObjectMeta{Name: "beta"}}
		}, []string{"step6.beta_gone"}},
		{"finalizer dropped", func(_ *testing.T, _ string, f *judge.Facts) { f.Alpha.Finalizers = nil }, []string{"step6.alpha_finalizer"}},
		{"alpha changed later", func(_ *testing.T, _ string, f *judge.Facts) { f.Alpha.Generation = 4 }, []string{"step7.generation_live", "step7.alpha_observed"}},
		{"team-alpha not alpha's", func(_ *testing.T, _ string, f *judge.Facts) { f.TeamAlpha.OwnerReferences[0].UID = "x" }, []string{"step3.namespace_owned"}},
		// What LAB.md does not ask for is never a failure.
		{"ownerReference not marked controller", func(_ *testing.T, _ string, f *judge.Facts) { f.TeamAlpha.OwnerReferences[0].Controller = nil }, nil},
		{"edited_to as a string", func(t *testing.T, d string, _ *judge.Facts) { editJSON(t, d, "drift.json", "edited_to", "99") }, nil},
		{"edited_to wrong as a string", func(t *testing.T, d string, _ *judge.Facts) { editJSON(t, d, "drift.json", "edited_to", "98") }, []string{"step5.edited_to"}},
	}
	var ids []string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := labDir(t)
			f := goodFacts(t, dir)
			tt.tamper(t, dir, f)
			checks := grader.Judge(steps.Read(dir), f).Checks
			if got := failed(checks); !slices.Equal(got, tt.want) {
				t.Errorf("failed checks: got %v, want %v", got, tt.want)
			}
			if tt.name == "ownerReference not marked controller" {
				if c := checks[slices.IndexFunc(checks, func(c judge.Check) bool { return c.ID == "step3.namespace_owned" })]; !strings.Contains(c.Note, "controller: true") {
					t.Errorf("step3.namespace_owned: got note %q, want one saying cnpa marks it controller: true", c.Note)
				}
			}
			for _, c := range checks {
				if c.Status == judge.Fail && (c.Hint == "" || c.Expected == "" || c.Actual == "") {
					t.Errorf("%s fails without expected, actual and hint: %+v", c.ID, c)
				}
				if c.Status == judge.Skip && len(failed(checks)) == 0 {
					t.Errorf("%s skipped with nothing failing: %s", c.ID, c.Actual)
				}
			}
			// Every state reports the same checks, in the same order.
			var these []string
			for _, c := range checks {
				these = append(these, c.ID)
			}
			if ids == nil {
				ids = these
				seen := map[string]bool{}
				for _, id := range ids {
					if seen[id] {
						t.Errorf("duplicate check id %s", id)
					}
					seen[id] = true
				}
			} else if !slices.Equal(these, ids) {
				t.Errorf("check ids differ from the correct run's:\n got %v\nwant %v", these, ids)
			}
		})
	}
}

func readFile(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// setSchema sets spec.<prop>.<field> in the CRD's v1alpha1 schema.
func setSchema(f *judge.Facts, v any, prop, field string) {
	versions, _, _ := unstructured.NestedSlice(f.CRD.Object, "spec", "versions")
	m := versions[0].(map[string]any)
	unstructured.SetNestedField(m, v, "schema", "openAPIV3Schema", "properties", "spec", "properties", prop, field)
	unstructured.SetNestedSlice(f.CRD.Object, versions, "spec", "versions")
}

// TestOutputGolden pins the three renderings of one report with a pass, a
// failure and a skip, in English and in Japanese (report.ja.*: the words
// translated, the ids, keys, values and commands as they are).
func TestOutputGolden(t *testing.T) {
	for _, l := range i18n.Langs {
		t.Run(string(l), func(t *testing.T) {
			defer i18n.Set(i18n.Current())
			i18n.Set(l)
			suffix := ""
			if l != i18n.English {
				suffix = "." + string(l)
			}
			testOutputGolden(t, suffix)
		})
	}
}

func testOutputGolden(t *testing.T, suffix string) {
	dir := labDir(t)
	f := goodFacts(t, dir)
	os.Remove(filepath.Join(dir, "archive", "beta.json"))
	f.Service.Active = false
	rep := grader.Judge(steps.Read(dir), f)
	rep.Dir, rep.Server = "/root/cnpa-op", "https://127.0.0.1:6443"
	rep.Finish(6)
	// The temp dir appears in hints; pin it.
	for i := range rep.Checks {
		rep.Checks[i].Hint = strings.ReplaceAll(rep.Checks[i].Hint, dir, "/root/cnpa-op")
	}

	var text, js, junit bytes.Buffer
	judge.WriteText(ui.New(&text, true), rep)
	if err := judge.WriteJSON(&js, rep); err != nil {
		t.Fatal(err)
	}
	if err := judge.WriteJUnit(&junit, rep); err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string][]byte{"report.txt": text.Bytes(), "report.json": js.Bytes(), "report.junit.xml": junit.Bytes()} {
		golden := filepath.Join("testdata", strings.Replace(name, ".", suffix+".", 1)+".golden")
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run with -update to create it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s:\n%s", name, golden, got)
		}
	}

	var doc judge.JUnitSuites
	if err := xml.Unmarshal(junit.Bytes(), &doc); err != nil {
		t.Fatalf("junit output does not parse: %v", err)
	}
	n := 0
	for _, s := range doc.Suites {
		n += len(s.Cases)
	}
	if n != len(rep.Checks) || doc.Tests != len(rep.Checks) {
		t.Errorf("junit testcases: got %d (tests=%d), want %d", n, doc.Tests, len(rep.Checks))
	}
	if got, want := rep.FailedIDs(), []string{"step6.archive_record"}; !slices.Equal(got, want) {
		t.Errorf("failed ids: got %v, want %v", got, want)
	}
}

func TestRedo(t *testing.T) {
	tests := []struct {
		step    int
		missing []string
		want    string
		edited  string
	}{
		{8, nil, "run `cnpa step 8` again", ""},
		{2, nil, "cannot be repeated", ""},
		{5, nil, "of a later step exists", ""},
		{5, []string{"cleanup.json", "catchup.json", "report.json"}, "run `cnpa step 5` again", ""},
		{7, []string{"catchup.json", "report.json"}, "run `cnpa step 7`", ""},
		{1, []string{"before.json", "generation.json", "reconcile.json", "drift.json", "cleanup.json", "catchup.json", "report.json"}, "run `cnpa step 1`", ""},
		// A file edited by hand is the learner's: the step keeps it only
		// when it holds, --force measures again; a once-only step's is
		// fixed by writing the value (review row 2), and reset moves it
		// aside, so starting over needs no --force.
		// It never says cnpa wrote the learner's file, and names what
		// they can change before --force (review rows 9 and 11).
		{8, nil, "report.json is yours, as you wrote it: fix the value this line names; or let cnpa compute it from the other files: `cnpa step 8 --force`", "report.json"},
		{5, []string{"cleanup.json", "catchup.json", "report.json"}, "drift.json is yours, as you wrote it: fix the value this line names; or let cnpa measure it: `cnpa step 5 --force`", "drift.json"},
		{2, nil, "generation.json is yours: write the value each ✗ line of it expects; or start over: `cnpa reset --yes` (it moves your own generation.json aside into ", "generation.json"},
		{6, nil, "start over: `cnpa reset --yes`, then `cnpa step all`", ""},
	}
	for _, tt := range tests {
		dir := labDir(t)
		for _, m := range tt.missing {
			os.Remove(filepath.Join(dir, m))
		}
		if tt.edited != "" {
			if err := os.WriteFile(filepath.Join(dir, tt.edited), []byte("{}\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := judge.GradeState(steps, steps.Read(dir), &judge.Facts{Authors: steps.Authors(dir)}).Redo(tt.step); !strings.Contains(got, tt.want) {
			t.Errorf("redo(%d) with %v missing, %q edited: got %q, want it to contain %q", tt.step, tt.missing, tt.edited, got, tt.want)
		}
	}
	// Starting over names the engine (reset keeps it; naming it does no harm).
	ev := judge.GradeState(steps, steps.Read(labDir(t)), &judge.Facts{Engine: lab.EngineShell})
	if got, want := ev.Redo(2), "then `cnpa step all --engine shell`"; !strings.Contains(got, want) {
		t.Errorf("redo(2) of a shell lab: got %q, want it to contain %q", got, want)
	}
}

// TestOneRead: Judge judges the state as read once and opens nothing
// again: with the evidence dir gone after the read, every check comes out
// as it does with the dir in place.
func TestOneRead(t *testing.T) {
	dir := labDir(t)
	f := goodFacts(t, dir)
	want := grader.Judge(steps.Read(dir), f).Checks
	st := steps.Read(dir)
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	got := grader.Judge(st, f).Checks
	if !slices.EqualFunc(got, want, func(a, b judge.Check) bool { return a == b }) {
		t.Errorf("with the dir removed after the read: got %+v, want %+v", got, want)
	}
	for _, c := range got {
		if c.Status != judge.Pass {
			t.Errorf("%s: got %s (%s), want pass", c.ID, c.Status, c.Actual)
		}
	}
}

// Review rows 2 and 4: a wrong value in a hand-written evidence file is
// fixed by writing it, and a CRD field by naming it in crd.yaml; neither
// hint says "start over" or "apply it again".
func TestHandWrittenHints(t *testing.T) {
	hintOf := func(checks []judge.Check, id string) string {
		for _, c := range checks {
			if c.ID == id {
				if c.Status != judge.Fail {
					t.Errorf("%s: got %s, want a failure", id, c.Status)
				}
				return c.Hint
			}
		}
		t.Fatalf("no check %s", id)
		return ""
	}
	t.Run("status_via_main written as a string", func(t *testing.T) {
		dir := labDir(t)
		writeFile(t, dir, "generation.json", `{"uid": "`+alphaUID+`", "gen_initial": 1, "gen_after_label": 1, "gen_after_spec": 2, "status_via_main": ""}`)
		got := hintOf(grader.Judge(steps.Read(dir), goodFacts(t, dir)).Checks, "step2.status_via_main")
		if want := "write `\"status_via_main\": null` in generation.json"; got != want {
			t.Errorf("hint: got %q, want %q", got, want)
		}
	})
	t.Run("gen_after_spec wrong by hand", func(t *testing.T) {
		dir := labDir(t)
		writeFile(t, dir, "generation.json", `{"uid": "`+alphaUID+`", "gen_initial": 1, "gen_after_label": 1, "gen_after_spec": 3, "status_via_main": null}`)
		got := hintOf(grader.Judge(steps.Read(dir), goodFacts(t, dir)).Checks, "step2.gen_after_spec")
		if want := "write `\"gen_after_spec\": 2` in generation.json"; got != want {
			t.Errorf("hint: got %q, want %q", got, want)
		}
	})
	t.Run("trigger edge by hand: why level, then the value", func(t *testing.T) {
		dir := labDir(t)
		editJSON(t, dir, "report.json", "trigger", "edge")
		got := hintOf(grader.Judge(steps.Read(dir), goodFacts(t, dir)).Checks, "step8.trigger")
		why, write := strings.Index(got, "Level-triggered: each pass compares desired with actual state"), strings.Index(got, "write `\"trigger\": \"level\"` in report.json")
		if why < 0 || write < why || strings.Contains(got, "changed since cnpa wrote it") {
			t.Errorf("hint: got %q, want why level first, then the value, never that cnpa wrote the file", got)
		}
	})
	t.Run("uid of another alpha by hand", func(t *testing.T) {
		dir := labDir(t)
		editJSON(t, dir, "before.json", "uid", "0000")
		got := hintOf(grader.Judge(steps.Read(dir), goodFacts(t, dir)).Checks, "step1.uid")
		if want := "write `\"uid\": \"" + alphaUID + "\"` in before.json"; got != want {
			t.Errorf("hint: got %q, want %q", got, want)
		}
	})
	t.Run("CRD without required and maximum", func(t *testing.T) {
		dir := labDir(t)
		writeFile(t, dir, "crd.yaml", "# the learner's\n")
		f := goodFacts(t, dir)
		versions, _, _ := unstructured.NestedSlice(f.CRD.Object, "spec", "versions")
		v := versions[0].(map[string]any)
		unstructured.RemoveNestedField(v, "schema", "openAPIV3Schema", "properties", "spec", "required")
		unstructured.RemoveNestedField(v, "schema", "openAPIV3Schema", "properties", "spec", "properties", "pods", "maximum")
		unstructured.SetNestedSlice(f.CRD.Object, versions, "spec", "versions")
		checks := grader.Judge(steps.Read(dir), f).Checks
		for id, want := range map[string]string{
			"step1.crd.pods_required": "spec.versions[0].schema.openAPIV3Schema.properties.spec: add required: [pods]",
			"step1.crd.pods_maximum":  "spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.pods: add maximum: 50",
		} {
			got := hintOf(checks, id)
			if !strings.Contains(got, "in "+filepath.Join(dir, "crd.yaml")+", "+want+"; then apply it") {
				t.Errorf("%s hint: got %q, want it to name %q in crd.yaml", id, got, want)
			}
		}
	})
}

// The table the tests judge by, as the commands hand it down.
var (
	steps  = course.Steps.Lab()
	grader = course.Steps.Grader()
)

package ssaconflict

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/ui"
)

// TestFind reads the refusals kubectl v1.37.2 printed against kubebox's
// kube-apiserver (testdata/, captured as they came: the service log of a
// learner's loop whose apply has no --force-conflicts after step 5's
// `kubectl patch`; an apply after `kubectl edit` and `kubectl patch` of
// two fields; two objects of one apply refused, which kubectl prints
// without "error: "), and the same message as a client-go program's
// structured log writes it.
func TestFind(t *testing.T) {
	for _, tc := range []struct {
		name string
		log  string
		want []Owner
	}{
		{"one-field.log", "", []Owner{{"kubectl-patch", []string{".spec.hard.pods"}}}},
		{"one-manager-two-fields.log", "", []Owner{{"kubectl-patch", []string{".spec.hard.pods", ".spec.hard.requests.cpu"}}}},
		{"two-managers.log", "", []Owner{{"kubectl-edit", []string{".spec.hard.requests.cpu"}}, {"kubectl-patch", []string{".spec.hard.pods"}}}},
		// Both refusals: the namespace's, then the quota's.
		{"two-objects.log", "", []Owner{{"kubectl-label", []string{".metadata.labels.team"}}, {"kubectl-edit", []string{".spec.hard.requests.cpu"}},
			{"kubectl-patch", []string{".spec.hard.pods"}}}},
		// Two passes of a loop: alpha's quota refused, then a probe's;
		// each manager once.
		{"passes", "error: Apply failed with 1 conflict: conflict with \"kubectl-patch\" using v1: .spec.hard.pods\n" +
			"error: Apply failed with 1 conflict: conflict with \"cnpa-check\" using v1: .spec.hard.pods\n" +
			"error: Apply failed with 1 conflict: conflict with \"kubectl-patch\" using v1: .spec.hard.pods\n",
			[]Owner{{"kubectl-patch", []string{".spec.hard.pods"}}, {"cnpa-check", []string{".spec.hard.pods"}}}},
		{"slog", `time=2026-12-07T05:40:00Z level=ERROR msg="apply quota" ns=team-alpha err="Apply failed with 2 conflicts: conflicts with \"kubectl-edit\" using v1:\n- .spec.hard.requests.cpu\nconflicts with \"cnpa-check\" with subresource \"status\" using v1:\n- .spec.hard.pods" pass=3`,
			[]Owner{{"kubectl-edit", []string{".spec.hard.requests.cpu"}}, {"cnpa-check", []string{".spec.hard.pods"}}}},
		{"json", `{"level":"error","msg":"apply","error":"Apply failed with 1 conflict: conflict with \"kubectl-patch\" using v1: .spec.hard.pods"}`,
			[]Owner{{"kubectl-patch", []string{".spec.hard.pods"}}}},
		{"an Apply manager", `error: Apply failed with 1 conflict: conflict with "other-controller": .metadata.labels.platform.labhub.io/teamspace`,
			[]Owner{{"other-controller", []string{".metadata.labels.platform.labhub.io/teamspace"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := tc.log
			if log == "" {
				data, err := os.ReadFile(filepath.Join("testdata", tc.name))
				if err != nil {
					t.Fatal(err)
				}
				log = string(data)
			}
			c := Find(log)
			if c == nil {
				t.Fatalf("Find found no refusal in\n%s", log)
			}
			if !reflect.DeepEqual(c.Owners, tc.want) {
				t.Errorf("got %+v, want %+v", c.Owners, tc.want)
			}
		})
	}
}

// TestFindNone: a log without a refusal, or with kubectl's advice alone,
// holds none.
func TestFindNone(t *testing.T) {
	for _, log := range []string{
		"",
		"namespace/team-alpha serverside-applied\nresourcequota/team-quota serverside-applied\n",
		"error: Apply failed with 1 conflict: \n",
		"Error from server (Conflict): Operation cannot be fulfilled on teamspaces.platform.labhub.io \"alpha\": the object has been modified",
		"  command with the `--force-conflicts` flag.\nSee https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts",
	} {
		if c := Find(log); c != nil {
			t.Errorf("Find(%q) = %+v, want nil", log, c)
		}
	}
}

// TestSays: every language's words name the manager, the field, the flag,
// client-go's Force and the fix; each line of the explanation, as a
// step shows it after "  - ", fits 80 columns (Japanese is one paragraph,
// wrapped by its caller).
func TestSays(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "two-managers.log"))
	if err != nil {
		t.Fatal(err)
	}
	c := Find(string(data))
	for _, lang := range []i18n.Lang{i18n.English, i18n.Japanese} {
		t.Run(string(lang), func(t *testing.T) {
			i18n.Set(lang)
			t.Cleanup(func() { i18n.Set(i18n.English) })
			for name, s := range map[string]string{"Found": c.Found(), "Hint": c.Hint(), "Explain": c.Explain()} {
				for _, want := range []string{`"kubectl-edit"`, `"kubectl-patch"`, ".spec.hard.pods", ".spec.hard.requests.cpu"} {
					if name != "Hint" && !strings.Contains(s, want) {
						t.Errorf("%s does not name %s: %s", name, want, s)
					}
				}
				if name != "Found" && (!strings.Contains(s, ForceFlag) || !strings.Contains(s, "Force: true")) {
					t.Errorf("%s names neither %s nor Force: true: %s", name, ForceFlag, s)
				}
			}
			if !strings.Contains(c.Hint(), Fix) {
				t.Errorf("the hint does not show the fix %q: %s", Fix, c.Hint())
			}
			if lang == i18n.English {
				for _, l := range strings.Split(c.Explain(), "\n") {
					if w := ui.Width("  - " + l); w > 80 {
						t.Errorf("line %d columns wide, want at most 80: %q", w, l)
					}
				}
			}
		})
	}
}

// TestStill: a refusal stands while its manager holds the field in one of
// the lab's objects (as managedFields says, the label's key with its
// dots too); taken back with --force-conflicts, it is dropped.
func TestStill(t *testing.T) {
	entry := func(manager, fields string) metav1.ManagedFieldsEntry {
		return metav1.ManagedFieldsEntry{Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, FieldsV1: &metav1.FieldsV1{Raw: []byte(fields)}}
	}
	quota := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "team-quota", ManagedFields: []metav1.ManagedFieldsEntry{
		entry("teamspace-reconcile", `{"f:spec":{"f:hard":{"f:requests.cpu":{}}}}`),
		entry("kubectl-patch", `{"f:spec":{"f:hard":{"f:pods":{}}}}`),
	}}}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-alpha", ManagedFields: []metav1.ManagedFieldsEntry{
		entry("kubectl-label", `{"f:metadata":{"f:labels":{"f:platform.labhub.io/teamspace":{}}}}`),
	}}}
	c := &Conflict{Owners: []Owner{
		{"kubectl-patch", []string{".spec.hard.pods"}},
		{"kubectl-label", []string{".metadata.labels.platform.labhub.io/teamspace"}},
		{"kubectl-edit", []string{".spec.hard.requests.cpu"}}, // taken back: the learner's manager holds it now
	}}
	got := c.Still([]metav1.Object{quota, ns})
	want := []Owner{c.Owners[0], c.Owners[1]}
	if got == nil || !reflect.DeepEqual(got.Owners, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if got := c.Still([]metav1.Object{&corev1.ResourceQuota{}}); got != nil {
		t.Errorf("with nobody holding the fields: got %+v, want nil", got)
	}
}

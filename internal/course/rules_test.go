package course_test

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

// TestRulesCoverShapes: one rule per key of every evidence file, in
// LAB.md's order, and no rule for a key LAB.md does not name.
func TestRulesCoverShapes(t *testing.T) {
	ids := map[string]bool{}
	for _, file := range steps.Files() {
		var keys, ruled []string
		for _, k := range steps.ShapeOf(file) {
			keys = append(keys, k.Name)
		}
		for _, r := range steps.For(file) {
			ruled = append(ruled, r.Key)
			if ids[r.ID] {
				t.Errorf("%s: id used twice", r.ID)
			}
			ids[r.ID] = true
			if !strings.HasPrefix(r.ID, "step") || r.Expected != "" && !json.Valid([]byte(r.Expected)) || r.Judge == nil {
				t.Errorf("%s %s: incomplete rule %+v", file, r.Key, r)
			}
		}
		if strings.Join(keys, ",") != strings.Join(ruled, ",") {
			t.Errorf("%s: rules for %v, shape has %v", file, ruled, keys)
		}
	}
	if len(steps.Rules()) != len(ids) {
		t.Errorf("%d rules, %d ids", len(steps.Rules()), len(ids))
	}
}

// goldenDir is a correct run's evidence (check's golden input).
const goldenDir = "../judge/testdata/lab"

func alpha(t *testing.T) *teamspace.TeamSpace {
	t.Helper()
	var before lab.BeforeRecord
	if problems, err := steps.ReadFile(goldenDir, lab.BeforeFile, &before); err != nil || len(problems) > 0 {
		t.Fatal(err, problems)
	}
	return &teamspace.TeamSpace{ObjectMeta: metav1.ObjectMeta{Name: "alpha", UID: types.UID(before.UID)}}
}

// TestCorrectRunPasses: every rule holds on a correct run.
func TestCorrectRunPasses(t *testing.T) {
	st := steps.Read(goldenDir)
	in := st.Inputs(alpha(t))
	if in.ReportProblem != "" || in.ArchiveProblem != "" {
		t.Fatalf("inputs: report %q archive %q", in.ReportProblem, in.ArchiveProblem)
	}
	for _, file := range steps.Files() {
		values, err := st.Records[file].Strict()
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range steps.Judge(file, values, in) {
			if !j.OK || j.Skip != "" {
				t.Errorf("%s: got %s (skip %q), want %s", j.ID, j.Got, j.Skip, j.Want)
			}
		}
	}
}

// TestWrongValuesFail: each rule fails on a value a broken controller or
// an edit would leave, and says what it wanted.
func TestWrongValuesFail(t *testing.T) {
	in := steps.Read(goldenDir).Inputs(alpha(t))
	wrong := map[string]any{
		"step1.uid": "other", "step1.namespace_exists": true,
		"step2.uid": "other", "step2.gen_initial": int64(2), "step2.gen_after_label": int64(2), "step2.gen_after_spec": int64(1),
		"step2.status_via_main": json.RawMessage(`{"observedGeneration":7}`),
		"step3.quota_uid":       "", "step3.namespace_owner_uid": "other", "step3.second_pass_rv_changed": true,
		"step5.deleted_uid": "other", "step5.restore_seconds": int64(-1), "step5.edited_to": int64(98), "step5.reverted_to": int64(99),
		"step6.uid": "other", "step6.blocked_seen": false, "step6.namespace_gone": false,
		"step7.generation": int64(2), "step7.observed_while_stopped": int64(3), "step7.quota_pods_while_stopped": "8",
		"step7.observed_after_start": int64(2), "step7.quota_pods_after_start": "6",
		"step8.crd_alone_created_namespace": true, "step8.status_bumps_generation": true, "step8.restore_seconds": int64(1000),
		"step8.finalizer": "example.com/other", "step8.archived": "other", "step8.generations_behind_while_stopped": int64(0),
		"step8.trigger": "edge",
	}
	for _, r := range steps.Rules() {
		v, ok := wrong[r.ID]
		if !ok {
			// restored_uid_new: a uid equal to deleted_uid.
			d, _ := in.Value(lab.DriftFile, "deleted_uid")
			v = d
		}
		if got := r.Apply(v, in); got.OK || got.Want == "" {
			t.Errorf("%s with %s: got ok=%t want=%q, want a failure naming the expected value", r.ID, lab.Show(v), got.OK, got.Want)
		}
	}
}

// TestAlphaUnknown: without a cluster to ask, a rule that compares with
// the live alpha cannot decide; it must not call alpha gone (that hint
// says to start over).
func TestAlphaUnknown(t *testing.T) {
	in := &lab.Inputs{AlphaUnknown: "no cluster when the report was made",
		Value: func(string, string) (any, string) { return nil, "unused" }}
	for _, j := range steps.Judge(lab.BeforeFile, map[string]any{"uid": "u", "namespace_exists": false}, in) {
		switch j.Key {
		case "uid":
			if j.Skip != in.AlphaUnknown || j.OK {
				t.Errorf("uid with alpha unknown: got %+v, want skipped with %q", j.Verdict, in.AlphaUnknown)
			}
		case "namespace_exists":
			if !j.OK || j.Skip != "" {
				t.Errorf("namespace_exists needs no cluster: got %+v, want ok", j.Verdict)
			}
		}
	}
}

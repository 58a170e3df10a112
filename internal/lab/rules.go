package lab

import (
	"bytes"
	"encoding/json"

	"github.com/labhub/cnpa/internal/evidence"
)

// Rules is every key of every evidence file, in lab order: LAB.md's
// expected values, one row each.
var Rules = []Rule{
	// Step 1: registering a type does nothing by itself.
	{File: evidence.BeforeFile, Key: "uid", Step: 1, ID: "step1.uid",
		Title: "before.json uid is the live alpha's uid", Expected: "the live alpha's uid", Judge: alphaUID},
	{File: evidence.BeforeFile, Key: "namespace_exists", Step: 1, ID: "step1.namespace_exists",
		Title: "before.json namespace_exists is false: a CRD alone creates no namespace", Expected: "false", Judge: is(false)},

	// Step 2: what bumps metadata.generation.
	{File: evidence.GenerationFile, Key: "uid", Step: 2, ID: "step2.uid",
		Title: "generation.json uid is the live alpha's uid", Expected: "the live alpha's uid", Judge: alphaUID},
	{File: evidence.GenerationFile, Key: "gen_initial", Step: 2, ID: "step2.gen_initial",
		Title: "generation.json gen_initial is 1", Expected: "1", Judge: is(1)},
	{File: evidence.GenerationFile, Key: "gen_after_label", Step: 2, ID: "step2.gen_after_label",
		Title: "generation.json gen_after_label is 1: a label does not bump generation", Expected: "1", Judge: is(1)},
	{File: evidence.GenerationFile, Key: "gen_after_spec", Step: 2, ID: "step2.gen_after_spec",
		Title: "generation.json gen_after_spec is 2: a spec change does", Expected: "2", Judge: is(2)},
	{File: evidence.GenerationFile, Key: "status_via_main", Step: 2, ID: "step2.status_via_main",
		Title: "generation.json status_via_main is null: status sent to the main endpoint is dropped", Expected: "null",
		Judge: func(v any, _ *Inputs) Verdict {
			var b bytes.Buffer
			if err := json.Compact(&b, v.(json.RawMessage)); err != nil {
				return Holds(false, "null", string(v.(json.RawMessage)))
			}
			return Same(json.RawMessage("null"), json.RawMessage(b.String()))
		}},

	// Step 3: the same result however often it runs.
	{File: evidence.ReconcileFile, Key: "quota_uid", Step: 3, ID: "step3.quota_uid",
		Title: "reconcile.json quota_uid is the uid team-quota had (step 5 deletes it)", Expected: "a uid",
		Judge: func(v any, _ *Inputs) Verdict { return Holds(v != "", "a uid", Show(v)) }},
	{File: evidence.ReconcileFile, Key: "namespace_owner_uid", Step: 3, ID: "step3.namespace_owner_uid",
		Title: "reconcile.json namespace_owner_uid is the live alpha's uid", Expected: "the live alpha's uid", Judge: alphaUID},
	{File: evidence.ReconcileFile, Key: "second_pass_rv_changed", Step: 3, ID: "step3.second_pass_rv_changed",
		Title: "reconcile.json second_pass_rv_changed is false: a second pass writes nothing", Expected: "false", Judge: is(false)},

	// Step 5: the deleted quota is back seconds later.
	{File: evidence.DriftFile, Key: "deleted_uid", Step: 5, ID: "step5.deleted_uid", Hint: Stale,
		Title: "drift.json deleted_uid is reconcile.json quota_uid: the quota step 3 made was deleted", Expected: "reconcile.json quota_uid",
		Judge: func(v any, in *Inputs) Verdict {
			q, why := in.Value(evidence.ReconcileFile, "quota_uid")
			if why != "" {
				return Skipped(why)
			}
			return Same(q, v)
		}},
	{File: evidence.DriftFile, Key: "restored_uid", Step: 5, ID: "step5.restored_uid_new", Hint: Stale,
		Title: "drift.json restored_uid is a new uid: the restored quota is a new object", Expected: "a uid other than deleted_uid",
		Judge: func(v any, in *Inputs) Verdict {
			d, why := in.Value(evidence.DriftFile, "deleted_uid")
			if why != "" {
				return Skipped(why)
			}
			return Holds(v != "" && v != d, "a uid other than "+Show(d), Show(v))
		}},
	{File: evidence.DriftFile, Key: "restore_seconds", Step: 5, ID: "step5.restore_seconds",
		Title: "drift.json restore_seconds is a whole number of seconds, at least 1", Expected: "an integer ≥ 1",
		Judge: func(v any, _ *Inputs) Verdict { return Holds(v.(int64) >= 1, "an integer ≥ 1", Show(v)) }},
	{File: evidence.DriftFile, Key: "edited_to", Step: 5, ID: "step5.edited_to",
		Title: "drift.json edited_to is 99", Expected: "99",
		Judge: func(v any, _ *Inputs) Verdict {
			// LAB.md gives no type for it: 99 and "99" both say it.
			return Holds(v == int64(99) || v == "99", "99", Show(v))
		}},
	{File: evidence.DriftFile, Key: "reverted_to", Step: 5, ID: "step5.reverted_to",
		Title: "drift.json reverted_to is 6: the hand edit went back to the spec of step 2", Expected: "6", Judge: is(6)},

	// Step 6: cleanup before deletion.
	{File: evidence.CleanupFile, Key: "uid", Step: 6, ID: "step6.uid", Hint: Stale,
		Title: "cleanup.json uid is the uid archived in archive/beta.json", Expected: "archive/beta.json uid",
		Judge: func(v any, in *Inputs) Verdict {
			if in.ArchiveProblem != "" {
				return Skipped(in.ArchiveProblem + " (see step6.archive_record)")
			}
			return Same(in.ArchiveUID, v)
		}},
	{File: evidence.CleanupFile, Key: "blocked_seen", Step: 6, ID: "step6.blocked_seen",
		Title: "cleanup.json blocked_seen is true: beta waited for its finalizer", Expected: "true", Judge: is(true)},
	{File: evidence.CleanupFile, Key: "namespace_gone", Step: 6, ID: "step6.namespace_gone",
		Title: "cleanup.json namespace_gone is true: team-beta went by garbage collection", Expected: "true", Judge: is(true)},

	// Step 7: no change missed while stopped.
	{File: evidence.CatchupFile, Key: "generation", Step: 7, ID: "step7.generation",
		Title: "catchup.json generation is 3", Expected: "3", Judge: is(3)},
	{File: evidence.CatchupFile, Key: "observed_while_stopped", Step: 7, ID: "step7.observed_while_stopped",
		Title: "catchup.json observed_while_stopped is 2: the stopped controller saw nothing", Expected: "2", Judge: is(2)},
	{File: evidence.CatchupFile, Key: "quota_pods_while_stopped", Step: 7, ID: "step7.quota_pods_while_stopped",
		Title: `catchup.json quota_pods_while_stopped is "6"`, Expected: `"6"`, Judge: is("6")},
	{File: evidence.CatchupFile, Key: "observed_after_start", Step: 7, ID: "step7.observed_after_start",
		Title: "catchup.json observed_after_start is 3: started again, it caught up", Expected: "3", Judge: is(3)},
	{File: evidence.CatchupFile, Key: "quota_pods_after_start", Step: 7, ID: "step7.quota_pods_after_start",
		Title: `catchup.json quota_pods_after_start is "8"`, Expected: `"8"`, Judge: is("8")},
}

// Step 8: every key of report.json is what the other files give.
func init() {
	for _, k := range evidence.Shapes[evidence.ReportFile] {
		Rules = append(Rules, Rule{File: evidence.ReportFile, Key: k.Name, Step: 8, ID: "step8." + k.Name,
			Title: "report.json " + k.Name + " is what the other files give", Expected: "the value computed from the other files",
			Judge: computed(k.Name)})
	}
}

// is is the rule "exactly this value".
func is(want any) func(any, *Inputs) Verdict {
	return func(v any, _ *Inputs) Verdict { return Same(want, v) }
}

// alphaUID is the rule "the live alpha's uid". Without alpha nothing can
// match it, and only a new run helps; when alpha could not be asked for at
// all, the rule cannot decide.
func alphaUID(v any, in *Inputs) Verdict {
	if in.AlphaUnknown != "" {
		return Skipped(in.AlphaUnknown)
	}
	if in.Alpha == nil {
		h := StartOver
		return Verdict{Want: "the live alpha's uid", Got: "TeamSpace alpha does not exist", Hint: &h}
	}
	r := Same(string(in.Alpha.UID), v)
	h := Stale
	r.Hint = &h
	return r
}

// reportConstants are report.json's keys whose value does not depend on
// the other files: they can be judged even when those cannot be read.
var reportConstants = map[string]any{"finalizer": reportFinalizer, "trigger": reportTrigger}

// computed is the rule "what ComputeReport gives for key".
func computed(key string) func(any, *Inputs) Verdict {
	return func(v any, in *Inputs) Verdict {
		if in.ReportProblem != "" {
			w, ok := reportConstants[key]
			if !ok {
				return Skipped(in.ReportProblem)
			}
			return Same(w, v)
		}
		return Same(in.Report[key], v)
	}
}

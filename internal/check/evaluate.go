package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/steps"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Hints that recur.
const (
	hintStartOver    = "start over: `cnpa reset --yes`, then `cnpa step all`"
	hintStartService = "the controller is not running: `cnpa service start` (logs: `cnpa service logs`)"
)

// redo says how to get step n's evidence written (again). Steps 1, 2 and
// 7 need the cluster as it was before them, and a step whose file a later
// step's file depends on keeps its old file; in both cases only starting
// over helps.
func (ev *evidenceSet) redo(n int) string {
	if n == 8 {
		return "run `cnpa step 8` again: it recomputes report.json from the other files"
	}
	own, later := "", ""
	for _, f := range evidence.Files {
		present := ev.records[f].fileProblem != "missing"
		switch {
		case stepOfFile[f] == n && present:
			own = f
		case stepOfFile[f] > n && present && later == "":
			later = f
		}
	}
	switch {
	case own == "" && later == "":
		return fmt.Sprintf("run `cnpa step %d`", n)
	case n == 1 || n == 2 || n == 7:
		return fmt.Sprintf("the cluster has moved past step %d, so it cannot be repeated: %s", n, hintStartOver)
	case later != "":
		return fmt.Sprintf("%s of a later step exists, so `cnpa step %d` would keep what it wrote: %s", later, n, hintStartOver)
	}
	return fmt.Sprintf("run `cnpa step %d` again", n)
}

// stale is the hint for a value that disagrees with the cluster or another
// file: it was edited, or is left from an earlier run.
func (ev *evidenceSet) stale(n int, file string) string {
	return file + " does not describe this cluster (edited, or left from an earlier run): " + ev.redo(n)
}

// evaluate judges the evidence against itself and against the facts. It
// reads nothing and writes nothing, so it is tested without a cluster.
func evaluate(ev *evidenceSet, f *facts) []Check {
	c := &checker{}
	before, gen, rec := ev.records[evidence.BeforeFile], ev.records[evidence.GenerationFile], ev.records[evidence.ReconcileFile]
	drift, clean, catch := ev.records[evidence.DriftFile], ev.records[evidence.CleanupFile], ev.records[evidence.CatchupFile]
	report := ev.records[evidence.ReportFile]

	alphaUID := func(file string, n int) func(v any) verdict {
		return func(v any) verdict {
			if f.alpha == nil {
				return verdict{want: "the live alpha's uid", got: "TeamSpace alpha does not exist", hint: hintStartOver}
			}
			r := same(string(f.alpha.UID), v)
			r.hint = ev.stale(n, file)
			return r
		}
	}
	value := func(want any) func(v any) verdict { return func(v any) verdict { return same(want, v) } }

	// Step 1.
	c.file(before, ev.redo(1))
	c.key(before, "uid", "step1.uid", "before.json uid is the live alpha's uid", "the live alpha's uid", ev.redo(1), alphaUID(before.file, 1))
	c.key(before, "namespace_exists", "step1.namespace_exists", "before.json namespace_exists is false: a CRD alone creates no namespace", "false", ev.redo(1), value(false))
	checkCRD(c, f)

	// Step 2.
	c.file(gen, ev.redo(2))
	c.key(gen, "uid", "step2.uid", "generation.json uid is the live alpha's uid", "the live alpha's uid", ev.redo(2), alphaUID(gen.file, 2))
	c.key(gen, "gen_initial", "step2.gen_initial", "generation.json gen_initial is 1", "1", ev.redo(2), value(1))
	c.key(gen, "gen_after_label", "step2.gen_after_label", "generation.json gen_after_label is 1: a label does not bump generation", "1", ev.redo(2), value(1))
	c.key(gen, "gen_after_spec", "step2.gen_after_spec", "generation.json gen_after_spec is 2: a spec change does", "2", ev.redo(2), value(2))
	c.key(gen, "status_via_main", "step2.status_via_main", "generation.json status_via_main is null: status sent to the main endpoint is dropped", "null", ev.redo(2), func(v any) verdict {
		var b bytes.Buffer
		if err := json.Compact(&b, v.(json.RawMessage)); err != nil {
			return holds(false, "null", string(v.(json.RawMessage)))
		}
		return same(json.RawMessage("null"), json.RawMessage(b.String()))
	})

	// Step 3.
	c.file(rec, ev.redo(3))
	c.key(rec, "quota_uid", "step3.quota_uid", "reconcile.json quota_uid is the uid team-quota had (step 5 deletes it)", "a uid", ev.redo(3), func(v any) verdict {
		return holds(v != "", "a uid", show(v))
	})
	c.key(rec, "namespace_owner_uid", "step3.namespace_owner_uid", "reconcile.json namespace_owner_uid is the live alpha's uid", "the live alpha's uid", ev.redo(3), alphaUID(rec.file, 3))
	c.key(rec, "second_pass_rv_changed", "step3.second_pass_rv_changed", "reconcile.json second_pass_rv_changed is false: a second pass writes nothing", "false", ev.redo(3), value(false))
	c.add("step3.namespace_owned", 3, "team-alpha is labelled "+teamspace.OwnerLabel+"=alpha and owned by the live alpha",
		"the controller makes team-alpha alpha's: is it running? `cnpa service status`", namespaceOwned(f))

	// Step 4.
	checkService(c, f)

	// Step 5.
	c.file(drift, ev.redo(5))
	c.key(drift, "deleted_uid", "step5.deleted_uid", "drift.json deleted_uid is reconcile.json quota_uid: the quota step 3 made was deleted", "reconcile.json quota_uid", ev.stale(5, drift.file), func(v any) verdict {
		q, why := rec.str("quota_uid")
		if why != "" {
			return skipped(why)
		}
		return same(q, v)
	})
	c.key(drift, "restored_uid", "step5.restored_uid_new", "drift.json restored_uid is a new uid: the restored quota is a new object", "a uid other than deleted_uid", ev.stale(5, drift.file), func(v any) verdict {
		d, why := drift.str("deleted_uid")
		if why != "" {
			return skipped(why)
		}
		return holds(v != "" && v != d, "a uid other than "+show(d), show(v))
	})
	c.add("step5.restored_uid_live", 5, "drift.json restored_uid is the uid of the live team-alpha/team-quota", ev.stale(5, drift.file), func() verdict {
		r, why := drift.str("restored_uid")
		switch {
		case why != "":
			return skipped(why)
		case f.quota == nil:
			return verdict{want: show(r), got: "team-alpha/team-quota does not exist", hint: hintStartService}
		}
		return same(string(f.quota.UID), r)
	}())
	c.key(drift, "restore_seconds", "step5.restore_seconds", "drift.json restore_seconds is a whole number of seconds, at least 1", "an integer ≥ 1", ev.redo(5), func(v any) verdict {
		return holds(v.(int64) >= 1, "an integer ≥ 1", show(v))
	})
	c.key(drift, "edited_to", "step5.edited_to", "drift.json edited_to is 99", "99", ev.redo(5), value(99))
	c.key(drift, "reverted_to", "step5.reverted_to", "drift.json reverted_to is 6: the hand edit went back to the spec of step 2", "6", ev.redo(5), value(6))
	c.add("step5.quota_in_sync", 5, "team-alpha/team-quota holds what alpha's spec asks (pods, requests.cpu)", hintStartService, quotaInSync(f))

	// Step 6.
	c.file(clean, ev.redo(6))
	c.key(clean, "uid", "step6.uid", "cleanup.json uid is the uid archived in archive/beta.json", "archive/beta.json uid", ev.stale(6, clean.file), func(v any) verdict {
		if ev.archiveProblem != "" {
			return skipped(ev.archiveProblem + " (see step6.archive_record)")
		}
		return same(ev.archive.UID, v)
	})
	c.key(clean, "blocked_seen", "step6.blocked_seen", "cleanup.json blocked_seen is true: beta waited for its finalizer", "true", ev.redo(6), value(true))
	c.key(clean, "namespace_gone", "step6.namespace_gone", "cleanup.json namespace_gone is true: team-beta went by garbage collection", "true", ev.redo(6), value(true))
	c.add("step6.archive_record", 6, "archive/beta.json is the controller's record of beta: name beta, its uid, pods 2",
		"the controller writes it before it lets beta go; "+ev.redo(6), archiveRecord(ev))
	c.add("step6.beta_gone", 6, "TeamSpace beta is gone", "beta is still there: is the controller running with the finalizer on (`cnpa service logs`)? or "+ev.redo(6),
		gone(f.beta != nil, func() string {
			return fmt.Sprintf("beta exists (uid %s, deleting %t, finalizers %v)", f.beta.UID, f.beta.DeletionTimestamp != nil, f.beta.Finalizers)
		}))
	c.add("step6.team_beta_gone", 6, "namespace team-beta is gone", "team-beta goes by garbage collection once beta is gone; wait a minute and check again",
		gone(f.teamBeta != nil, func() string { return "team-beta exists, phase " + string(f.teamBeta.Status.Phase) }))
	c.add("step6.alpha_finalizer", 6, "alpha carries the finalizer "+teamspace.Finalizer, "the controller adds it when finalizer handling is on: run `cnpa step 6` (or `cnpa service start`)", func() verdict {
		if f.alpha == nil {
			return holds(false, "finalizers including "+teamspace.Finalizer, "TeamSpace alpha does not exist")
		}
		return holds(teamspace.HasFinalizer(f.alpha.Finalizers, teamspace.Finalizer), "finalizers including "+teamspace.Finalizer, show(f.alpha.Finalizers))
	}())

	// Step 7.
	c.file(catch, ev.redo(7))
	c.key(catch, "generation", "step7.generation", "catchup.json generation is 3", "3", ev.redo(7), value(3))
	c.key(catch, "observed_while_stopped", "step7.observed_while_stopped", "catchup.json observed_while_stopped is 2: the stopped controller saw nothing", "2", ev.redo(7), value(2))
	c.key(catch, "quota_pods_while_stopped", "step7.quota_pods_while_stopped", `catchup.json quota_pods_while_stopped is "6"`, `"6"`, ev.redo(7), value("6"))
	c.key(catch, "observed_after_start", "step7.observed_after_start", "catchup.json observed_after_start is 3: started again, it caught up", "3", ev.redo(7), value(3))
	c.key(catch, "quota_pods_after_start", "step7.quota_pods_after_start", `catchup.json quota_pods_after_start is "8"`, `"8"`, ev.redo(7), value("8"))
	c.add("step7.generation_live", 7, "alpha's live metadata.generation is catchup.json generation", ev.stale(7, catch.file), func() verdict {
		g, why := catch.int("generation")
		switch {
		case why != "":
			return skipped(why)
		case f.alpha == nil:
			return holds(false, show(g), "TeamSpace alpha does not exist")
		}
		return same(g, f.alpha.Generation)
	}())
	c.add("step7.alpha_observed", 7, "alpha's status.observedGeneration is its generation: the controller acted on the current spec", hintStartService, func() verdict {
		if f.alpha == nil {
			return holds(false, "observedGeneration = generation", "TeamSpace alpha does not exist")
		}
		return holds(f.alpha.Status.ObservedGeneration == f.alpha.Generation, fmt.Sprint(f.alpha.Generation),
			fmt.Sprintf("%d (generation %d)", f.alpha.Status.ObservedGeneration, f.alpha.Generation))
	}())

	// Step 8.
	c.file(report, ev.redo(8))
	computed, cerr := steps.ComputeReport(ev.dir)
	var want map[string]any
	if cerr != nil {
		// Name the inputs at fault: their own checks fail and say why.
		var bad []string
		for _, f := range []string{evidence.BeforeFile, evidence.GenerationFile, evidence.DriftFile, evidence.CatchupFile} {
			if r := ev.records[f]; r.fileProblem != "" || len(r.keyProblem) > 0 || len(r.extra) > 0 {
				bad = append(bad, f)
			}
		}
		if ev.archiveProblem != "" {
			bad = append(bad, "archive/beta.json")
		}
		if len(bad) > 0 {
			cerr = fmt.Errorf("%s, which report.json is computed from, fails its own checks", strings.Join(bad, ", "))
		}
	} else {
		data, _ := json.Marshal(computed)
		json.Unmarshal(data, &want)
	}
	fixed := map[string]any{"finalizer": teamspace.Finalizer, "trigger": "level"}
	for _, k := range evidence.Shapes[evidence.ReportFile] {
		key := k.Name
		c.key(report, key, "step8."+key, "report.json "+key+" is what the other files give", "the value computed from the other files", ev.redo(8), func(v any) verdict {
			if cerr != nil {
				w, ok := fixed[key]
				if !ok {
					return skipped(cerr.Error())
				}
				return same(w, v)
			}
			// JSON numbers decode as float64; compare in JSON form.
			return same(want[key], v)
		})
	}
	return c.checks
}

// namespaceOwned: team-alpha carries our label and alpha's controller
// ownerReference.
func namespaceOwned(f *facts) verdict {
	want := "labelled alpha, controller ownerReference to alpha's uid"
	switch {
	case f.alpha == nil:
		return holds(false, want, "TeamSpace alpha does not exist")
	case f.teamAlpha == nil:
		return holds(false, want, "namespace team-alpha does not exist")
	}
	var owners []string
	for _, r := range f.teamAlpha.OwnerReferences {
		owners = append(owners, fmt.Sprintf("%s/%s uid %s", r.Kind, r.Name, r.UID))
	}
	got := fmt.Sprintf("label %q, owners %v", f.teamAlpha.Labels[teamspace.OwnerLabel], owners)
	ok := f.teamAlpha.Labels[teamspace.OwnerLabel] == "alpha" && teamspace.OwnedBy(f.teamAlpha.OwnerReferences, f.alpha.UID)
	return holds(ok, fmt.Sprintf("label \"alpha\", controller owner TeamSpace/alpha uid %s", f.alpha.UID), got)
}

// quotaInSync: the live quota holds alpha's desired pods and cpu.
func quotaInSync(f *facts) verdict {
	if f.alpha == nil {
		return holds(false, "the quota alpha's spec asks for", "TeamSpace alpha does not exist")
	}
	d, err := teamspace.DesiredState(f.alpha)
	if err != nil {
		return holds(false, "a valid spec", "alpha's spec is invalid: "+err.Error())
	}
	want := fmt.Sprintf("pods=%s requests.cpu=%s", d.Pods.String(), d.CPU.String())
	if f.quota == nil {
		return holds(false, want, "team-alpha/team-quota does not exist")
	}
	pods, cpu := f.quota.Spec.Hard[corev1.ResourcePods], f.quota.Spec.Hard[corev1.ResourceRequestsCPU]
	return holds(d.QuotaMatches(f.quota.Spec.Hard), want, fmt.Sprintf("pods=%s requests.cpu=%s", pods.String(), cpu.String()))
}

func archiveRecord(ev *evidenceSet) verdict {
	want := `{"name":"beta","uid":<beta's uid>,"pods":2}`
	if ev.archiveProblem != "" {
		return holds(false, want, ev.archiveProblem)
	}
	a := ev.archive
	return holds(a.Name == "beta" && a.UID != "" && a.Pods == 2, want, show(a))
}

func gone(exists bool, describe func() string) verdict {
	if exists {
		return holds(false, "gone", describe())
	}
	return holds(true, "gone", "gone")
}

// restartLine matches a Restart= line of a unit; systemd takes the last.
var restartLine = regexp.MustCompile(`(?m)^\s*Restart\s*=\s*(\S*)\s*$`)

// checkService grades cnpa-op.service as installed and running now.
func checkService(c *checker, f *facts) {
	st := f.service
	c.add("step4.unit_file", 4, "the unit file "+st.UnitPath+" exists", "run `cnpa step 4` again: it writes the unit",
		func() verdict {
			if f.unitErr != "" {
				return holds(false, "a unit file", f.unitErr)
			}
			return holds(true, "a unit file", "exists")
		}())
	c.add("step4.restart_always", 4, "the unit says Restart=always: the controller comes back after any exit", "run `cnpa step 4` again: it writes the unit with Restart=always", func() verdict {
		if f.unitErr != "" {
			return skipped("no unit file (see step4.unit_file)")
		}
		m := restartLine.FindAllStringSubmatch(string(f.unit), -1)
		got := "no Restart= line"
		if len(m) > 0 {
			got = "Restart=" + m[len(m)-1][1]
		}
		return holds(got == "Restart=always", "Restart=always", got)
	}())
	enabledHint := "enable it: `systemctl enable " + service.Name + "` (or run `cnpa step 4` again)"
	if st.Manager != "systemd" {
		enabledHint = "process mode has no boot-time start; the service counts as enabled once installed: run `cnpa step 4` again"
	}
	c.add("step4.service_enabled", 4, service.Name+" is enabled ("+st.Manager+")", enabledHint, same(true, st.Enabled))
	c.add("step4.service_active", 4, service.Name+" is running ("+st.Manager+")", hintStartService, func() verdict {
		if st.Active {
			return holds(true, "active", fmt.Sprintf("active, main pid %d", st.MainPID))
		}
		return holds(false, "active", "inactive")
	}())
}

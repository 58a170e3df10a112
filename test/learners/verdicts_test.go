package learners

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/judge"
	labdata "github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/test/kit"
)

// Issue 57's passes that were not passes, and the reset that deleted a
// learner's file (the newcomer's review of 2026-12-07, rows 6 and 8 and
// section 4), driven as the learner met them on one control plane: their
// own reconcile.sh, run by hand, and a reconcile.json written by hand
// with the values the lab text asks for (the corpus's
// status-main-endpoint and no-status-namespace, each also graded there by
// `cnpa step all` and `cnpa check`). Step 3 grades alpha's status
// from the live objects whatever files exist: in `cnpa check --step 3`
// (which watch runs for one step) and in `cnpa step 3 --engine own`.

// caseScript is the corpus case's reconcile.sh.
func caseScript(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("cases", name, "reconcile.sh"))
	if err != nil {
		t.Fatal(err)
	}
	return string(src)
}

func TestStep3GradesTheLiveStatus(t *testing.T) {
	t.Parallel()
	l := newLab(t)
	if err := os.MkdirAll(l.Dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(l.Dir, "reconcile.sh")
	flags := []string{"--engine", "own", "--service-manager", "process", "--unit-dir", l.UnitDir, "--timeout", stepTimeout}
	for _, n := range []string{"1", "2"} {
		if r := l.Cnpa(append([]string{"step", n}, flags...)...); r.Code != 0 {
			t.Fatalf("cnpa step %s: exit %d\n%s", n, r.Code, r)
		}
	}
	kubectl := func(args ...string) string {
		t.Helper()
		r := l.Run(nil, "kubectl", args...)
		if r.Code != 0 {
			t.Fatalf("kubectl %v: exit %d\n%s", args, r.Code, r)
		}
		return strings.TrimSpace(r.Stdout)
	}
	// The learner's pass, by hand, and reconcile.json as the lab text
	// asks, by hand: both uids read live, the second pass wrote nothing.
	handWritten := func(t *testing.T, src []byte) {
		t.Helper()
		if err := os.WriteFile(script, src, 0o755); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if r := l.Run(nil, script); r.Code != 0 {
				t.Fatalf("the learner's reconcile.sh by hand: exit %d\n%s", r.Code, r)
			}
		}
		rec := `{"quota_uid": "` + kubectl("get", "resourcequota", "team-quota", "-n", "team-alpha", "-o", "jsonpath={.metadata.uid}") +
			`", "namespace_owner_uid": "` + kubectl("get", "teamspace", "alpha", "-o", "jsonpath={.metadata.uid}") +
			`", "second_pass_rv_changed": false}` + "\n"
		if err := os.WriteFile(filepath.Join(l.Dir, labdata.ReconcileFile), []byte(rec), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name    string
		script  []byte
		mistake labdata.Mistake
		// found and advice are what check names, in English and in
		// Japanese; step what `cnpa step 3 --engine own` says.
		found, advice, adviceJa, step string
	}{
		{"status on the main endpoint", []byte(caseScript(t, "status-main-endpoint")), labdata.MistakeStatusMain,
			`status.observedGeneration 0, status.namespace ""`, "--subresource=status", "statusサブリソースを通して書いてください",
			"status.observedGeneration never appeared although the pass exited 0"},
		{"no status.namespace", []byte(caseScript(t, "no-status-namespace")), labdata.MistakeStaleStatus,
			`status.namespace ""`, "status.namespace team-<name>", "status.namespaceはteam-<name>でなければなりません",
			`namespace=""`},
	} {
		t.Run(c.name, func(t *testing.T) {
			handWritten(t, c.script)
			for _, lang := range []string{"en", "ja"} {
				var rep judge.Report
				r := l.Check(&rep, "--lang", lang, "--step", "3", "--timeout", checkTimeout, "--service-manager", "process", "--unit-dir", l.UnitDir)
				ch := findCheck(&rep, "step3.status_written")
				if r.Code != 1 || ch == nil || ch.Status != judge.Fail {
					t.Fatalf("cnpa check --lang %s --step 3 with reconcile.json present: exit %d, step3.status_written %+v, want 1 and a failure\n%s", lang, r.Code, ch, r)
				}
				t.Logf("%s: found %s; hint %s", lang, ch.Actual, ch.Hint)
				advice := c.advice
				if lang == "ja" {
					advice = c.adviceJa
				} else if !strings.Contains(ch.Actual, c.found) {
					t.Errorf("found %q, want it to show %q", ch.Actual, c.found)
				}
				if !strings.Contains(ch.Hint, advice) {
					t.Errorf("%s hint %q, want the mistake's advice %q", lang, ch.Hint, advice)
				}
				if ch.Diagnosis != c.mistake {
					t.Errorf("%s diagnosis %q, want %q", lang, ch.Diagnosis.Name, c.mistake.Name)
				}
				// The rerun row passes (nothing written), and never says
				// alpha converged when it did not.
				if w := findCheck(&rep, "step3.rerun_writes_nothing"); w != nil && strings.Contains(w.Actual, "converged [alpha]") {
					t.Errorf("the rerun row says alpha converged: %s", w.Actual)
				}
			}
			r := l.Cnpa(append([]string{"step", "3"}, flags...)...)
			if r.Code != 1 || !strings.Contains(r.Stderr, c.step) {
				t.Errorf("cnpa step 3 --engine own with reconcile.json present: exit %d, want 1 and %q\n%s", r.Code, c.step, r)
			}
			if c.mistake != labdata.MistakeStaleStatus {
				return
			}
			// Row 8: step 4 with the running service names the missing
			// status.namespace within a few passes, never after its
			// timeout, and never asks whether the service runs.
			t.Cleanup(l.StopService)
			r = l.Cnpa(append([]string{"step", "4"}, flags...)...)
			if r.Code != 1 || !strings.Contains(r.Stderr, "status.namespace") || strings.Contains(r.Stderr, "is the service running") {
				t.Errorf("cnpa step 4 with a script that never writes status.namespace: exit %d, want 1 naming status.namespace\n%s", r.Code, r)
			}
			if r.Took > 40*time.Second {
				t.Errorf("cnpa step 4 named it after %s, want within a few passes (its timeout is %s)", r.Took, stepTimeout)
			}
		})
	}

	t.Run("reset deletes no file of the learner's, and says what it does", func(t *testing.T) {
		// The fixed script; cnpa writes reconcile.json, the learner moves
		// it away and writes their own, the same bytes (the newcomer's
		// §4: reset counted it as cnpa's and deleted it).
		if err := os.WriteFile(script, []byte(caseScript(t, "valid-create-patch")), 0o755); err != nil {
			t.Fatal(err)
		}
		rec := filepath.Join(l.Dir, labdata.ReconcileFile)
		if err := os.Remove(rec); err != nil {
			t.Fatal(err)
		}
		if r := l.Cnpa(append([]string{"step", "3"}, flags...)...); r.Code != 0 {
			t.Fatalf("cnpa step 3 with the fixed script: exit %d\n%s", r.Code, r)
		}
		data, err := os.ReadFile(rec)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(rec, rec+".cnpa"); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(rec, data, 0o644); err != nil {
			t.Fatal(err)
		}
		// The plan, as the prompt shows it (no answer: cancelled).
		plan := l.Cnpa("reset", "--service-manager", "process", "--unit-dir", l.UnitDir)
		announced := count(t, `remove (\d+) files? from`, kit.Unwrapped(plan.Stderr))
		if announced == "0" {
			t.Fatalf("the plan announces no file of cnpa's (before.json, generation.json are):\n%s", plan)
		}
		if !strings.Contains(plan.Stderr, labdata.ReconcileFile) {
			t.Errorf("the plan does not say reconcile.json is moved aside:\n%s", plan)
		}
		r := l.Reset()
		if r.Code != 0 {
			t.Fatalf("cnpa reset --yes: exit %d\n%s", r.Code, r)
		}
		if removed := count(t, `removed (\d+) files? cnpa wrote`, kit.Unwrapped(r.Stdout)); removed != announced {
			t.Errorf("reset announced %s files and removed %s\nplan:\n%s\nreset:\n%s", announced, removed, plan.Stderr, r.Stdout)
		}
		aside, _ := filepath.Glob(filepath.Join(l.Dir, "own-*", labdata.ReconcileFile))
		if len(aside) != 1 {
			t.Fatalf("the learner's reconcile.json is not in own-*/: %v\n%s", aside, r.Stdout)
		}
		if got, err := os.ReadFile(aside[0]); err != nil || string(got) != string(data) {
			t.Errorf("the learner's reconcile.json moved aside: %q (%v), want it whole", got, err)
		}
		if _, err := os.Stat(rec + ".cnpa"); err != nil {
			t.Errorf("reset removed reconcile.json.cnpa, a file it never wrote: %v", err)
		}
	})
}

// count is the number the first group of re matches in out ("0" when it
// does not match: nothing announced or removed).
func count(t *testing.T, re, out string) string {
	t.Helper()
	if m := regexp.MustCompile(re).FindStringSubmatch(out); m != nil {
		return m[1]
	}
	return "0"
}

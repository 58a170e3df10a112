package labfile

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/labhub/cnpa/internal/i18n"
)

func vap(t *testing.T) *Lab {
	t.Helper()
	l, ps := Load(shipped(t), "labs/vap")
	if len(ps) > 0 {
		t.Fatal(ps.Say(i18n.English))
	}
	return l
}

// A case holds or not by its report alone: the judge of `cnpa lab test`.
func TestJudgeCases(t *testing.T) {
	l := vap(t)
	report := func(status map[string]Status) *Report {
		rep := &Report{Lab: "vap"}
		for _, s := range l.Steps {
			sr := StepReport{Step: s.ID}
			for _, c := range s.Checks {
				id := s.ID + "." + c.ID
				st, ok := status[id]
				if !ok {
					st = Pass
				}
				sr.Checks = append(sr.Checks, Result{Check: id, Status: st})
			}
			rep.Steps = append(rep.Steps, sr)
		}
		return rep
	}
	cases := map[string]Case{}
	for _, c := range l.Cases() {
		cases[c.Name] = c
	}
	for _, c := range []struct {
		name, cse string
		status    map[string]Status
		why       string
	}{
		{"reference passes", "solution", nil, ""},
		{"reference fails one", "solution", map[string]Status{"scope.outside_admitted": Fail}, "labfile.case.solution"},
		{"unsolved fails every step", "unsolved", map[string]Status{"refuse.refused": Fail, "refuse.message": Skip, "refuse.fails_closed": Fail, "admit.at_limit": Skip, "update.refused": Fail, "scope.outside_admitted": Skip}, ""},
		{"unsolved passes a step", "unsolved", map[string]Status{"refuse.refused": Fail, "refuse.fails_closed": Fail, "update.refused": Fail, "admit.at_limit": Skip}, "labfile.case.unsolved_passes"},
		{"unsolved skips a check it must fail", "unsolved", map[string]Status{"refuse.refused": Fail, "refuse.fails_closed": Skip, "admit.at_limit": Skip, "update.refused": Fail, "scope.outside_admitted": Skip}, "labfile.case.unsolved_not_failed"},
		{"mutant fails its check", "mutant/warn-only", map[string]Status{"refuse.refused": Fail, "refuse.message": Skip, "admit.at_limit": Skip}, ""},
		{"mutant fails its check and later steps", "mutant/off-by-one", map[string]Status{"admit.at_limit": Fail, "update.refused": Fail}, ""},
		{"mutant misses", "mutant/off-by-one", nil, "labfile.case.mutant_missed"},
		{"mutant fails an earlier step", "mutant/create-only", map[string]Status{"update.refused": Fail, "refuse.message": Fail}, "labfile.case.mutant_earlier"},
		{"mutant fails two of its step", "mutant/wrong-message", map[string]Status{"refuse.message": Fail, "refuse.fails_closed": Fail}, "labfile.case.mutant_also"},
	} {
		t.Run(c.name, func(t *testing.T) {
			why, _ := l.judge(cases[c.cse], report(c.status))
			if why != c.why {
				t.Errorf("got %q, want %q", why, c.why)
			}
		})
	}
}

// An evidence file is read strictly against its shape, and each way it
// can be wrong has its reason.
func TestReadEvidence(t *testing.T) {
	s := vap(t).Step("refuse")
	for _, c := range []struct{ name, data, reason string }{
		{"ok", `{"refused": true, "message": "m"}`, ""},
		{"not JSON", `{"refused": tru`, "labfile.reason.not_json"},
		{"a key missing", `{"refused": true}`, "labfile.reason.no_key"},
		{"of another type", `{"refused": "yes", "message": "m"}`, "labfile.reason.type"},
		{"an extra key", `{"refused": true, "message": "m", "by": "me"}`, "labfile.reason.extra_key"},
		{"missing", "", "labfile.reason.missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if c.data != "" {
				if err := os.WriteFile(filepath.Join(dir, "refuse.json"), []byte(c.data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, reason, _ := readEvidence(s, 1, dir)
			if reason != c.reason {
				t.Errorf("got %q, want %q", reason, c.reason)
			}
		})
	}
}

// A check over evidence, facts and params: its needs, its expression, its
// values shown, the mistake and hints its failure carries.
func TestCheck(t *testing.T) {
	l := vap(t)
	e := &Engine{Lab: l, Cluster: &Cluster{Lab: l, Params: l.Defaults()}}
	s := l.Step("refuse")
	vars := func(refused, admitted bool, message string) map[string]any {
		return map[string]any{
			"evidence": map[string]any{"refused": refused, "message": message},
			"facts": map[string]any{
				"too_many": map[string]any{"admitted": admitted, "message": message},
				"policy":   map[string]any{"found": true, "object": map[string]any{"spec": map[string]any{"failurePolicy": "Fail"}}},
			},
			"files":  map[string]any{},
			"params": e.Cluster.Params,
		}
	}
	r := e.check(0, 0, s, s.Checks[0], vars(true, false, "replicas must be at most 5"), map[string]Status{})
	if r.Status != Pass {
		t.Errorf("refused and refused live: got %s, want pass (%+v)", r.Status, r)
	}
	r = e.check(0, 0, s, s.Checks[0], vars(true, true, ""), map[string]Status{})
	if r.Status != Fail || r.Got != `{"live":false,"recorded":true}` || r.Want != `{"live":true,"recorded":true}` {
		t.Errorf("admitted live: got %+v", r)
	}
	if r.Mistake != "no-binding-or-warn" || len(r.Hints) != 2 {
		t.Errorf("got mistake %q hints %v, want no-binding-or-warn and its 2 hints", r.Mistake, r.Hints)
	}
	r = e.check(0, 1, s, s.Checks[1], vars(true, false, "too many"), map[string]Status{"refuse.refused": Fail})
	if r.Status != Skip || r.Reason != "labfile.reason.needs" {
		t.Errorf("message with refused failing: got %+v, want skipped for its need", r)
	}
	r = e.check(0, 1, s, s.Checks[1], vars(true, false, "too many"), map[string]Status{"refuse.refused": Pass})
	if r.Status != Fail || r.Got != "too many" || r.Want != "replicas must be at most 5" {
		t.Errorf("another message: got %+v", r)
	}
}

// tiny is a lab of two steps with no cluster: the second computes its
// evidence from the first's, as a report step does.
const tiny = `apiVersion: cnpa.labhub.io/v1alpha1
kind: Lab
metadata: {name: tiny, title: {en: Tiny}}
languages: [en]
parameters: [{name: who, default: world}]
steps:
  - id: count
    evidence: {file: count.json, shape: {n: integer, hello: string, failed: boolean}}
    run:
      - {id: two, sh: echo 2}
      - {id: hello, sh: 'echo "hello $who"'}
      - {id: bad, sh: 'echo oops >&2; exit 3'}
    write:
      n: int(run.two.stdout)
      hello: run.hello.stdout
      failed: run.bad.exit == 3 && run.bad.stderr == 'oops'
    checks:
      - {id: n, got: evidence.n, want: "2"}
  - id: double
    evidence: {file: double.json, shape: {n: integer}}
    run: []
    write:
      n: files.count.n * 2
    checks:
      - {id: n, got: evidence.n, want: "4"}
solution: []
unsolved: {fails: [count.n, double.n]}
mutants: []
words:
  en: {count: Count, count.text: It counts., count.n: n is 2, double: Double, double.text: It doubles., double.n: n is 4}
`

// A step's commands run in a shell with the parameters; their stdout,
// stderr and exit become its evidence, and a later step computes from an
// earlier one's file.
func TestRunStep(t *testing.T) {
	l, ps := Load(fstest.MapFS{"lab.yaml": {Data: []byte(tiny)}}, "tiny")
	if len(ps) > 0 {
		t.Fatal(ps.Say(i18n.English))
	}
	dir := t.TempDir()
	e := &Engine{Lab: l, Cluster: &Cluster{Lab: l, Params: l.Defaults()}, LabDir: dir}
	ev, file, err := e.RunStep(context.Background(), l.Step("count"), dir)
	if err != nil {
		t.Fatal(err)
	}
	if file != filepath.Join(dir, "count.json") || ev["n"] != int64(2) || ev["hello"] != "hello world" || ev["failed"] != true {
		t.Errorf("got %s %v, want count.json with n 2, hello world, failed true", file, ev)
	}
	if ev, _, err = e.RunStep(context.Background(), l.Step("double"), dir); err != nil || ev["n"] != int64(4) {
		t.Errorf("got %v, %v; want n 4", ev, err)
	}
	rep, err := e.Grade(context.Background(), dir, "")
	if err != nil || !rep.OK() {
		t.Errorf("got %+v, %v; want every check passed", rep, err)
	}
}

package class_test

import (
	"github.com/labhub/cnpa/internal/lab"

	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/class"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/submission"
	"github.com/labhub/cnpa/test/kit/classfixture"
)

func good(t *testing.T, name string, i int) *submission.Content {
	t.Helper()
	c, err := classfixture.Good(name, i)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// roundTrip writes c and reads it back, as the instructor's cnpa does.
func roundTrip(t *testing.T, dir string, c *submission.Content) *submission.Submission {
	t.Helper()
	p, err := classfixture.Write(dir, c)
	if err != nil {
		t.Fatal(err)
	}
	s, err := submission.Read(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func grade(t *testing.T, subs []*submission.Submission, roster []string) *class.Gradebook {
	t.Helper()
	gb, err := class.Grade(subs, class.Options{Version: classfixture.Version, Now: time.Now(), Roster: roster})
	if err != nil {
		t.Fatal(err)
	}
	return gb
}

func learner(t *testing.T, gb *class.Gradebook, name string) *class.Learner {
	t.Helper()
	for _, l := range gb.Learners {
		if l.Name == name {
			return l
		}
	}
	t.Fatalf("no learner %s in the gradebook", name)
	return nil
}

// setStatus sets one recorded check's status, as a learner editing the
// file would.
func setStatus(t *testing.T, c *submission.Content, id string, st judge.Status) {
	t.Helper()
	for i := range c.Checks {
		if c.Checks[i].ID == id {
			c.Checks[i].Status = st
			return
		}
	}
	t.Fatalf("no check %s recorded", id)
}

func TestGradeClass(t *testing.T) {
	dir := t.TempDir()
	ada := good(t, "ada", 1)
	// bob's quota went back to 7, not 6: step 5 fails, recorded as it was.
	bob := good(t, "bob", 2)
	bob.Evidence["drift.json"] = strings.Replace(bob.Evidence["drift.json"], `"reverted_to": 6`, `"reverted_to": 7`, 1)
	if err := classfixture.Record(bob); err != nil {
		t.Fatal(err)
	}
	// cy's is the same mistake, but the failed check was flipped to pass
	// after submit (and the hash recomputed, as a careful cheat would).
	cy := good(t, "cy", 3)
	cy.Evidence["drift.json"] = strings.Replace(cy.Evidence["drift.json"], `"reverted_to": 6`, `"reverted_to": 7`, 1)
	if err := classfixture.Record(cy); err != nil {
		t.Fatal(err)
	}
	setStatus(t, cy, "step5.reverted_to", judge.Pass)
	// dee copied ada's evidence files into her own lab and submitted.
	dee := good(t, "dee", 4)
	dee.Evidence = ada.Evidence
	if err := classfixture.Record(dee); err != nil {
		t.Fatal(err)
	}
	// eli did the lab on ada's cluster, and with another cnpa.
	eli := good(t, "eli", 5)
	eli.Cluster = ada.Cluster
	eli.CnpaVersion = "v0.9"
	subs := []*submission.Submission{roundTrip(t, dir, ada), roundTrip(t, dir, bob), roundTrip(t, dir, cy), roundTrip(t, dir, dee), roundTrip(t, dir, eli)}
	gb := grade(t, subs, []string{"ada", "bob", "cy", "dee", "eli", "fay"})

	for _, tc := range []struct {
		name, graded, diagnosis, flags string
		steps, first                   int
	}{
		{"ada", class.GradedOffline, "", "copied-by:dee; same-cluster-as:eli", 8, 0},
		{"bob", class.GradedOffline, "", "", 7, 5},
		{"cy", class.GradedOffline, "", "tampered", 7, 5},
		{"dee", class.GradedOffline, lab.MistakeStale.Name, "copied-from:ada", 4, 1},
		{"eli", class.GradedOffline, "", "cnpa-version:v0.9; same-cluster-as:ada", 8, 0},
		{"fay", class.GradedMissing, "", "no-submission", 0, 1},
	} {
		l := learner(t, gb, tc.name)
		if l.Graded != tc.graded || l.FlagList() != tc.flags || l.StepsPassed != tc.steps || l.FirstFailingStep != tc.first {
			t.Errorf("%s: got graded %s, flags %q, steps %d, first failing %d; want %s, %q, %d, %d",
				tc.name, l.Graded, l.FlagList(), l.StepsPassed, l.FirstFailingStep, tc.graded, tc.flags, tc.steps, tc.first)
		}
		if tc.diagnosis != "" && l.Diagnosis != tc.diagnosis {
			t.Errorf("%s: got diagnosis %q, want %q", tc.name, l.Diagnosis, tc.diagnosis)
		}
	}
	if l := learner(t, gb, "bob"); !strings.Contains(l.Diagnosis, "reverted_to") {
		t.Errorf("bob: got diagnosis %q, want the failed check's words (reverted_to)", l.Diagnosis)
	}
	if l := learner(t, gb, "ada"); l.ChecksPassed != l.ChecksTotal || l.ChecksTotal == 0 {
		t.Errorf("ada: got %d of %d checks, want all", l.ChecksPassed, l.ChecksTotal)
	}
	// The probes cannot be judged offline: they are the record's, as reported.
	for _, c := range learner(t, gb, "ada").Checks {
		if want := contains(judge.ProbeIDs, c.ID); c.AsReported != want {
			t.Errorf("ada %s: as reported %v, want %v", c.ID, c.AsReported, want)
		}
	}

	var b bytes.Buffer
	if err := class.WriteCSV(&b, gb); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(rows[0][:8], ","), "learner,steps_passed,checks_passed,checks_total,first_failing_step,diagnosis,flags,graded"; got != want {
		t.Errorf("CSV header: got %s, want %s", got, want)
	}
	if len(rows) != 7 || rows[1][0] != "ada" || rows[1][4] != "" || rows[6][7] != "missing" {
		t.Errorf("CSV rows: got %q", rows)
	}
	b.Reset()
	if err := class.WriteJUnit(&b, gb); err != nil || !strings.Contains(b.String(), `<testsuite name="cy"`) {
		t.Errorf("JUnit: %v\n%s", err, b.String())
	}
	b.Reset()
	if err := class.WriteJSON(&b, gb); err != nil {
		t.Fatal(err)
	}
	var back class.Gradebook
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || len(back.Learners) != 6 {
		t.Errorf("JSON: %v, %d learners", err, len(back.Learners))
	}
	b.Reset()
	if err := class.WriteHTML(&b, gb); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{`id="matrix"`, `id="pass-rate"`, `data-flag="tampered"`, `id="learner-1"`, `id="learner-1-step-5"`, `href="#learner-1"`} {
		if !strings.Contains(page, want) {
			t.Errorf("class page: no %s", want)
		}
	}
	if strings.Count(page, "<style>") != 1 || strings.Contains(page, "<script") {
		t.Errorf("class page: want one inline style sheet and no script")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// A content changed after submit without recomputing the hash is flagged
// edited; nothing else about it changes.
func TestEditedFlag(t *testing.T) {
	dir := t.TempDir()
	p, err := classfixture.Write(dir, good(t, "ada", 1))
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(p)
	data = bytes.Replace(data, []byte(`"learner": "ada"`), []byte(`"learner": "ann"`), 1)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := submission.Read(p)
	if err != nil {
		t.Fatal(err)
	}
	if got := learner(t, grade(t, []*submission.Submission{s}, nil), "ann").FlagList(); got != "edited" {
		t.Errorf("got flags %q, want edited", got)
	}
}

// Bad input: every one an error naming the file and the fix.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	okPath, err := classfixture.Write(dir, good(t, "ada", 1))
	if err != nil {
		t.Fatal(err)
	}
	whole, _ := os.ReadFile(okPath)
	future := bytes.Replace(whole, []byte(`"format": 1`), []byte(`"format": 9`), 1)
	write := func(name, data string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, data string
		says       []string
	}{
		{"report.json", `{"finalizer": "x"}`, []string{"report.json", "is not a cnpa submission", "cnpa submit"}},
		{"notes.txt", "dear instructor", []string{"notes.txt", "not JSON", "cnpa submit"}},
		{"cut.json", string(whole[:len(whole)/2]), []string{"cut.json", "truncated", "cnpa submit` again"}},
		{"future.json", string(future), []string{"future.json", "format-9", "newer"}},
		{"empty.json", "", []string{"empty.json", "is empty"}},
	} {
		_, err := submission.Read(write(tc.name, tc.data))
		if err == nil {
			t.Errorf("%s: read as a submission", tc.name)
			continue
		}
		for _, s := range tc.says {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: got %q, want it to say %q", tc.name, err, s)
			}
		}
	}
	// A directory with one bad file among good ones: the bad one is named,
	// for its row, and the good one is read (issue 40: one bad file never
	// stops the class).
	sub := filepath.Join(dir, "class")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "ada.json"), whole, 0o644)
	os.WriteFile(filepath.Join(sub, "bob.json"), whole[:100], 0o644)
	subs, bad, err := class.Load([]string{sub})
	if err != nil || len(subs) != 1 || len(bad) != 1 || !strings.Contains(bad[0].Error(), "bob.json is truncated") {
		t.Errorf("a dir with a truncated file: got %d, %v, %v", len(subs), bad, err)
	}
	// Only bad files: nothing to grade, an error naming each.
	if _, _, err := class.Load([]string{filepath.Join(sub, "bob.json")}); err == nil || !strings.Contains(err.Error(), "bob.json is truncated") {
		t.Errorf("only a truncated file: got %v", err)
	}
	// Two submissions of one learner: both read, for Grade to flag.
	os.WriteFile(filepath.Join(sub, "bob.json"), whole, 0o644)
	if subs, bad, err := class.Load([]string{sub}); err != nil || len(subs) != 2 || len(bad) != 0 {
		t.Errorf("two of one learner: got %d, %v, %v", len(subs), bad, err)
	}

	roster := write("roster.txt", "# class of December\nada\nbob\n\nada\n")
	if _, err := class.ReadRoster(roster); err == nil || !strings.Contains(err.Error(), `"ada" is on line 2 and again on line 5`) {
		t.Errorf("duplicate roster names: got %v", err)
	}
	kc := write("bob.kubeconfig", "apiVersion: v1\nkind: Config\n")
	classFile := write("class.yaml", "learners:\n- {name: ada, kubeconfig: ada.kubeconfig}\n- {name: bob, kubeconfig: "+kc+", context: lab}\n")
	_, err = class.ReadClassFile(classFile)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "ada.kubeconfig")) || !strings.Contains(err.Error(), "copy the learner's kubeconfig there") ||
		strings.Contains(err.Error(), "bob") {
		t.Errorf("CLASS.yaml naming a missing kubeconfig: got %v", err)
	}
	if _, err := class.ReadClassFile(write("typo.yaml", "learner:\n- {name: ada}\n")); err == nil || !strings.Contains(err.Error(), "learners: [{name: alice") {
		t.Errorf("CLASS.yaml with a typo: got %v", err)
	}
}

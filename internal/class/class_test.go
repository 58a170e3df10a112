package class_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/class"
	"github.com/labhub/cnpa/internal/course"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
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
		// Offline, no source is named: whose cluster held the uid is each
		// learner's own word (TestCopySourceOnlyFromLive).
		{"ada", class.GradedOffline, "", "shares-uids-with:dee; same-cluster-as:eli", 8, 0},
		{"bob", class.GradedOffline, "", "", 7, 5},
		{"cy", class.GradedOffline, "", "tampered", 7, 5},
		{"dee", class.GradedOffline, lab.MistakeStale.Name, "shares-uids-with:ada", 4, 1},
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
		if want := contains(course.Steps.Grader().ProbeIDs(), c.ID); c.AsReported != want {
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
	// A submission taken in exam mode says so on the page, as in the text
	// and in every LMS format; the others say nothing of it.
	gb.Learners[0].Exam = true
	b.Reset()
	if err := class.WriteHTML(&b, gb); err != nil {
		t.Fatal(err)
	}
	page = b.String()
	if strings.Count(page, `data-exam="true"`) != 1 || strings.Count(page, "taken in exam mode") != 1 || !strings.Contains(page, `data-exam="false"`) {
		t.Errorf("class page: want one learner marked taken in exam mode")
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

// live is a learner graded live whose cluster holds what the submission's
// facts say: the offline re-judging stands for the live report.
func live(t *testing.T, s *submission.Submission) *class.LiveResult {
	t.Helper()
	checks, _, err := class.Offline(s)
	if err != nil {
		t.Fatal(err)
	}
	return &class.LiveResult{Graded: class.GradedLive, Report: &judge.Report{Checks: checks}, Facts: s.Facts}
}

// Copy flags name a source only from live grading (issue 40, N7): offline
// every holder of a shared uid shares-uids-with the others; live, the
// holder on whose cluster the object is is the source, whatever the
// other claims in the facts of their own file.
func TestCopySourceOnlyFromLive(t *testing.T) {
	dir := t.TempDir()
	gina := good(t, "gina", 1)
	// dee copied gina's evidence files into her own lab, and left her
	// facts alone.
	dee := good(t, "dee", 2)
	dee.Evidence = gina.Evidence
	if err := classfixture.Record(dee); err != nil {
		t.Fatal(err)
	}
	// mallory puts gina's alpha uid in her evidence and her facts alike,
	// to be the one whose cluster held it.
	mallory := good(t, "mallory", 3)
	ginaAlpha, malloryAlpha := string(gina.Facts.Alpha.UID), string(mallory.Facts.Alpha.UID)
	for f, text := range mallory.Evidence {
		mallory.Evidence[f] = strings.ReplaceAll(text, malloryAlpha, ginaAlpha)
	}
	mallory.Facts.Alpha.UID = gina.Facts.Alpha.UID
	for i := range mallory.Facts.TeamAlpha.OwnerReferences {
		mallory.Facts.TeamAlpha.OwnerReferences[i].UID = gina.Facts.Alpha.UID
	}
	if err := classfixture.Record(mallory); err != nil {
		t.Fatal(err)
	}
	g, d, m := roundTrip(t, dir, gina), roundTrip(t, dir, dee), roundTrip(t, dir, mallory)
	// mallory's cluster, read live, holds her own alpha, not gina's.
	malloryLive := live(t, m)
	liveFacts := *m.Facts
	alpha := *m.Facts.Alpha
	alpha.UID = types.UID(malloryAlpha)
	liveFacts.Alpha = &alpha
	malloryLive.Facts = &liveFacts
	// A second learner graded live on gina's cluster: two clusters never
	// hold one object, so it is one cluster reached twice.
	twin := good(t, "twin", 4)
	twin.Evidence = gina.Evidence
	if err := classfixture.Record(twin); err != nil {
		t.Fatal(err)
	}
	tw := roundTrip(t, dir, twin)
	twinLive := live(t, tw)
	twinLive.Facts = g.Facts

	for _, tc := range []struct {
		name  string
		subs  []*submission.Submission
		live  map[string]*class.LiveResult
		flags map[string]string
	}{
		{"offline: no source", []*submission.Submission{g, d}, nil,
			map[string]string{"gina": "shares-uids-with:dee", "dee": "shares-uids-with:gina"}},
		{"gina live: the source", []*submission.Submission{g, d}, map[string]*class.LiveResult{"gina": live(t, g)},
			map[string]string{"gina": "copied-by:dee", "dee": "copied-from:gina"}},
		{"dee live: her cluster does not hold it", []*submission.Submission{g, d}, map[string]*class.LiveResult{"dee": live(t, d)},
			map[string]string{"gina": "shares-uids-with:dee", "dee": "shares-uids-with:gina"}},
		{"mallory frames gina, offline", []*submission.Submission{g, m}, nil,
			map[string]string{"gina": "shares-uids-with:mallory", "mallory": "shares-uids-with:gina"}},
		{"mallory frames gina, mallory live", []*submission.Submission{g, m}, map[string]*class.LiveResult{"mallory": malloryLive},
			map[string]string{"gina": "shares-uids-with:mallory", "mallory": "shares-uids-with:gina"}},
		{"mallory frames gina, both live", []*submission.Submission{g, m}, map[string]*class.LiveResult{"mallory": malloryLive, "gina": live(t, g)},
			map[string]string{"gina": "copied-by:mallory", "mallory": "copied-from:gina"}},
		{"two live on one cluster", []*submission.Submission{g, tw}, map[string]*class.LiveResult{"gina": live(t, g), "twin": twinLive},
			map[string]string{"gina": "shares-uids-with:twin", "twin": "shares-uids-with:gina"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			gb, err := class.Grade(tc.subs, class.Options{Version: classfixture.Version, Now: time.Now(), Live: tc.live})
			if err != nil {
				t.Fatal(err)
			}
			for name, want := range tc.flags {
				var copyFlags []string
				for _, f := range learner(t, gb, name).Flags {
					if f.Kind == class.FlagCopiedFrom || f.Kind == class.FlagCopiedBy || f.Kind == class.FlagSharesUIDs {
						copyFlags = append(copyFlags, f.String())
					}
				}
				if got := strings.Join(copyFlags, "; "); got != want {
					t.Errorf("%s: got %q, want %q", name, got, want)
				}
			}
		})
	}
}

// A learner to be graded live who was not (an unreachable cluster, or two
// files claiming them) is never credited with the submission's own
// score: 0 steps, 0 checks, first failing step 1, flagged unverified in
// every output an LMS reads, and left out of the class's pass rate
// (issue 40, N6).
func TestNotGradedLiveIsUnverified(t *testing.T) {
	dir := t.TempDir()
	ada, hal := roundTrip(t, dir, good(t, "ada", 1)), roundTrip(t, dir, good(t, "hal", 2))
	dup1, dup2 := roundTrip(t, t.TempDir(), good(t, "dup", 3)), roundTrip(t, t.TempDir(), good(t, "dup", 4))
	subs := []*submission.Submission{ada, hal, dup1, dup2}
	// GradeLive says dup was to be graded live, and why it was not,
	// without reaching anything.
	results, err := class.GradeLive(t.Context(), &class.ClassFile{Learners: []class.Reach{{Name: "dup", Kubeconfig: "/nonexistent"}}}, subs, class.LiveOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := results["dup"]; r == nil || r.Graded != class.GradedOffline || r.Report != nil {
		t.Fatalf("dup, two files: got %+v, want a result graded offline", r)
	}
	results["hal"] = &class.LiveResult{Graded: class.GradedUnreachable, Detail: "cannot reach the cluster: 500"}
	gb, err := class.Grade(subs, class.Options{Version: classfixture.Version, Now: time.Now(), Live: results})
	if err != nil {
		t.Fatal(err)
	}
	if a := learner(t, gb, "ada"); a.StepsPassed != class.Steps || !a.Verified() || len(a.Flags) != 0 {
		t.Errorf("ada, offline and not in the class file: got %d steps, flags %q, want %d and none", a.StepsPassed, a.FlagList(), class.Steps)
	}
	for _, l := range gb.Learners {
		if l.Name == "ada" {
			continue
		}
		if l.StepsPassed != 0 || l.ChecksPassed != 0 || l.FirstFailingStep != 1 || l.Verified() || !strings.Contains(l.FlagList(), class.FlagUnverified) {
			t.Errorf("%s: got %d steps, %d checks, first failing %d, flags %q; want 0, 0, 1, unverified", l.Name, l.StepsPassed, l.ChecksPassed, l.FirstFailingStep, l.FlagList())
		}
		if !strings.Contains(flagDetail(l, class.FlagUnverified), "not the submission's own 8/8 steps") {
			t.Errorf("%s: the unverified flag does not say what the submission claimed: %q", l.Name, flagDetail(l, class.FlagUnverified))
		}
	}
	if r := gb.StepPassRate[0]; r != 1 {
		t.Errorf("step 1's pass rate: got %v, want 1 (ada's alone: an unverified row is neither pass nor fail)", r)
	}
	var b bytes.Buffer
	if err := class.WriteCSV(&b, gb); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows[1:] {
		if row[0] != "hal" {
			continue
		}
		if row[1] != "0" || row[2] != "0" || row[4] != "1" || row[6] != class.FlagUnverified || row[7] != class.GradedUnreachable {
			t.Errorf("hal's CSV row: got %q, want 0 steps, 0 checks, first failing 1, flags unverified, graded unreachable", row[:8])
		}
	}
	b.Reset()
	if err := class.WriteJUnit(&b, gb); err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`<testsuite name="hal" tests="\d+" failures="1"`).MatchString(b.String()) || !strings.Contains(b.String(), `type="unverified"`) {
		t.Errorf("JUnit: hal's suite is not one failure (live grading) and skipped checks:\n%.2000s", b.String())
	}
}

func flagDetail(l *class.Learner, kind string) string {
	for _, f := range l.Flags {
		if f.Kind == kind {
			return f.Detail
		}
	}
	return ""
}

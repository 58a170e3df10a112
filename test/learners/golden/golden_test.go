// Package golden checks in milliseconds what the grader makes of each
// learners case, with no cluster: the submission a real lab of the case
// left (testdata/<case>.json, written by the corpus run with -update:
// `go test ./test/learners -run TestCorpus -update`) is judged again
// offline, as `cnpa class grade` does, and the verdicts, hints and
// diagnoses are held to the case's case.json and to testdata/<case>.want
// (refreshed with `go test ./test/learners/golden -update`). A change of
// wording shows here as a diff of the .want files.
package golden

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/class"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/submission"
)

// tempDir is where class.Offline unpacks a submission's evidence.
var tempDir = regexp.MustCompile(regexp.QuoteMeta(os.TempDir()) + `/cnpa-class-[0-9]+`)

var update = flag.Bool("update", false, "write testdata/<case>.want from what the grader makes of the submissions now")

// cases is the corpus, beside this package.
const cases = "../cases"

// learnerCase is what this test reads of a case.json (test/learners has
// the whole of it, and checks it strictly).
type learnerCase struct {
	Valid    bool     `json:"valid"`
	Step     int      `json:"step"`
	CaughtBy string   `json:"caught_by"`
	Says     []string `json:"says"`
	Notes    []string `json:"notes"`
}

func TestCorpusDiagnosis(t *testing.T) {
	entries, err := os.ReadDir(cases)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	var missing []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		name := e.Name()
		path := filepath.Join("testdata", name+".json")
		if _, err := os.Stat(path); err != nil {
			missing = append(missing, name)
			continue
		}
		n++
		t.Run(name, func(t *testing.T) { judgeCase(t, name, path) })
	}
	if n == 0 {
		t.Fatal("no golden submission in testdata: run `go test ./test/learners -run TestCorpus -update`")
	}
	if len(missing) > 0 {
		t.Logf("cases with no golden submission yet (go test ./test/learners -run TestCorpus -update writes them): %v", missing)
	}
}

func judgeCase(t *testing.T, name, path string) {
	data, err := os.ReadFile(filepath.Join(cases, name, "case.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c learnerCase
	if err := json.Unmarshal(data, &c); err != nil {
		t.Fatalf("case.json: %v", err)
	}
	// Read checks the hash: a golden submission is a real run's, unedited.
	s, err := submission.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	checks, disagree, err := class.Offline(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(disagree) > 0 {
		t.Errorf("judged again offline, the submission's checks disagree with the learner's run: %v", disagree)
	}
	var failed []judge.Check
	for _, ch := range checks {
		if ch.Status == judge.Fail {
			failed = append(failed, ch)
		}
	}
	for _, id := range c.Notes {
		if i := slices.IndexFunc(checks, func(ch judge.Check) bool { return ch.ID == id }); i < 0 || checks[i].Note == "" {
			t.Errorf("check %s: want a note, as case.json says", id)
		}
	}
	if c.Valid {
		for _, f := range failed {
			t.Errorf("valid case: %s failed: %s (expected %s)", f.ID, f.Actual, f.Expected)
		}
	} else {
		earliest := 0
		for _, f := range failed {
			if earliest == 0 || f.Step < earliest {
				earliest = f.Step
			}
		}
		if earliest != c.Step {
			t.Errorf("the earliest failed check is of step %d, want step %d", earliest, c.Step)
		}
		if c.CaughtBy == "check" {
			// Only check sees it: what it says names the mistake.
			var text strings.Builder
			for _, f := range failed {
				fmt.Fprintf(&text, "%s: %s; %s; %s\n", f.ID, f.Actual, f.Hint, f.Diagnosis.Name)
			}
			if !saysOne(text.String(), c.Says) {
				t.Errorf("the failed checks name none of %q:\n%s", c.Says, text.String())
			}
		}
	}

	// Judged again here, a check's hint may name the temporary dir the
	// evidence was unpacked in.
	got := tempDir.ReplaceAllString(want(checks, judge.LabDiagnosis(checks, s.Facts)), "<unpacked>")
	wantPath := filepath.Join("testdata", name+".want")
	if *update {
		if err := os.WriteFile(wantPath, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	old, err := os.ReadFile(wantPath)
	if err != nil {
		t.Fatalf("%v: run `go test ./test/learners/golden -update`", err)
	}
	if string(old) != got {
		t.Errorf("what the grader makes of %s changed (if on purpose: go test ./test/learners/golden -update, and read the diff):\n--- %s\n%s\n--- now\n%s", path, wantPath, old, got)
	}
}

// want is the golden text: every check's id and status, in report order,
// with each failed check's hint and diagnosis and each note, then the
// run's diagnosis. Actual values (uids, times, paths) stay out.
func want(checks []judge.Check, diagnosis string) string {
	var b strings.Builder
	for _, c := range checks {
		fmt.Fprintf(&b, "%s %s\n", c.ID, c.Status)
		if c.Status == judge.Fail {
			fmt.Fprintf(&b, "  hint: %s\n  diagnosis: %s\n", c.Hint, c.Diagnosis.Name)
		}
		if c.Note != "" {
			fmt.Fprintf(&b, "  note: %s\n", c.Note)
		}
	}
	fmt.Fprintf(&b, "diagnosis: %s\n", diagnosis)
	return b.String()
}

// saysOne: out holds one of the phrases, ignoring case.
func saysOne(out string, phrases []string) bool {
	lower := strings.ToLower(out)
	for _, p := range phrases {
		if strings.Contains(lower, strings.ToLower(p)) {
			return true
		}
	}
	return false
}

package class

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/gradebook"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/submission"
	"github.com/labhub/cnpa/test/kit/classfixture"
)

// TestCheckIDsAreEveryCheck: a policy may name every check a real
// submission is graded by, and nothing else.
func TestCheckIDsAreEveryCheck(t *testing.T) {
	c, err := classfixture.Good("ada", 1)
	if err != nil {
		t.Fatal(err)
	}
	ids := slices.DeleteFunc(CheckIDs(), func(id string) bool { return strings.HasPrefix(id, "stress.") })
	for _, ch := range c.Checks {
		if !slices.Contains(ids, ch.ID) {
			t.Errorf("check %s of a correct lab is not in CheckIDs", ch.ID)
		}
	}
	if len(ids) != len(c.Checks) {
		t.Errorf("got %d ids, want the %d of a correct lab", len(ids), len(c.Checks))
	}
}

// TestRosterCSV: a CSV roster gives names and identities; a roster of
// names reads as ever, with no identities.
func TestRosterCSV(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(text), 0o644)
		return p
	}
	names, r, err := ReadRosterFile(write("r.csv", "\xef\xbb\xbf# exported from Canvas\nLearner,student,ID,SIS Login ID,section,email address\nada,\"Lovelace, Ada\",7,ada,A,ada@example.org\n\nbob,Bob,8,bob,B,\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names, []string{"ada", "bob"}) || r.Identity["ada"][gradebook.ColStudent] != "Lovelace, Ada" || r.Identity["bob"][gradebook.ColSISLoginID] != "bob" ||
		!slices.Equal(r.Columns, []string{gradebook.ColStudent, gradebook.ColID, gradebook.ColSISLoginID, gradebook.ColSection, gradebook.ColEmail}) {
		t.Errorf("got %v %+v", names, r)
	}
	names, r, err = ReadRosterFile(write("r.txt", "# names\nada\nbob\n"))
	if err != nil || r == nil || len(r.Columns) != 0 || r.Path == "" || !slices.Equal(names, []string{"ada", "bob"}) {
		t.Errorf("roster of names: got %v %v %v", names, r, err)
	}
	for text, says := range map[string]string{
		"learner,ID\nada,1\nada,2\n":     `"ada" is on line 2 and again on line 3`,
		"learner,ID,id\nada,1,1\n":       `column "ID" is in the header twice`,
		"learner,ID\nada,1,3\n":          "line 2: record on line 2: wrong number of fields",
		"learner,ID\n":                   "names nobody",
		"learner,ID\n\"ada\x1b[2J\",1\n": "line 2",
	} {
		if _, _, err := ReadRosterFile(write("bad.csv", text)); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%q: got %v, want it to say %q", text, err, says)
		}
	}
}

// TestStressCountsOnlyByPolicy: a submission's stress faults are in no
// format's grade without a policy; with stress.points_per_fault each of
// the eight faults is a test of its own in every format, a fault the run
// did not judge scoring 0 and saying how to run it, and the score the
// same in all of them.
func TestStressCountsOnlyByPolicy(t *testing.T) {
	dir := t.TempDir()
	c, err := classfixture.Good("ada", 1)
	if err != nil {
		t.Fatal(err)
	}
	c.Stress = &judge.StressReport{Engine: "own", Faults: []judge.StressFault{
		{Name: "kill9", Status: judge.Pass, Injected: map[string]int64{"kill": 1}},
		{Name: "conflict", Status: judge.Fail, Hint: "read again\x1b[2J",
			Findings: []judge.StressFinding{{Property: judge.StressConverged, Found: "cnpa-stress-1: no quota", Expected: "converged"}}},
		{Name: "error", Status: judge.Skip, Why: "not run: baseline"},
	}}
	c.Stress.Count()
	path, err := classfixture.Write(dir, c)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := submission.Read(path)
	if err != nil || !sub.HashOK || sub.Stress == nil || len(sub.Stress.Faults) != 3 {
		t.Fatalf("read back: %v, hash ok %v, stress %+v", err, sub != nil && sub.HashOK, sub)
	}
	gb, err := Grade([]*submission.Submission{sub}, Options{Version: classfixture.Version, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	r := Results(gb)[0]
	if gs := gradebook.Gradescope(r, nil, 0); gs.Score != 8 || len(gs.Tests) != 8 {
		t.Errorf("no policy: gradescope score %v with %d tests, want 8 of the 8 steps, stress not counted", gs.Score, len(gs.Tests))
	}
	pf := filepath.Join(dir, "policy.toml")
	os.WriteFile(pf, []byte("[stress]\npoints_per_fault = 0.5\nself_reported = true\n"), 0o644)
	p, err := ReadPolicy(pf)
	if err != nil {
		t.Fatal(err)
	}
	s := gradebook.ScoreOf(r, p)
	faults := len(judge.StressFaults)
	if s.Total != 8.5 || s.Max != 8+0.5*float64(faults) {
		t.Errorf("points_per_fault 0.5: score %v of %v, want 8.5 of %v (8 steps, kill9 of %d faults)", s.Total, s.Max, 8+0.5*float64(faults), faults)
	}
	gs := gradebook.Gradescope(r, p, 0)
	cr := gradebook.Classroom(r, p, time.Now())
	if gs.Score != s.Total || len(gs.Tests) != 8+faults || len(cr.Tests) != 8+faults {
		t.Fatalf("gradescope %v with %d tests, classroom %d tests; want %v and %d each", gs.Score, len(gs.Tests), len(cr.Tests), s.Total, 8+faults)
	}
	want := map[string]struct {
		score float64
		says  string
	}{
		"stress.kill9: kill -9 mid-pass":          {0.5, "✓ stress.kill9"},
		"stress.conflict: 409 Conflict on writes": {0, "converged: cnpa-stress-1: no quota"},
		"stress.error: 500 errors":                {0, "not run: baseline"},
		"stress.burst: a burst of changes":        {0, "cnpa stress`, then `cnpa submit"},
	}
	for _, tc := range gs.Tests[8:] {
		w, ok := want[tc.Name]
		if !ok {
			continue
		}
		delete(want, tc.Name)
		if tc.Score != w.score || tc.MaxScore != 0.5 || !strings.Contains(tc.Output, w.says) || strings.Contains(tc.Output, "\x1b") {
			t.Errorf("%s: score %v of %v, output %q; want %v of 0.5 saying %q, no escape", tc.Name, tc.Score, tc.MaxScore, tc.Output, w.score, w.says)
		}
	}
	for name := range want {
		t.Errorf("gradescope has no test %q: %+v", name, gs.Tests[8:])
	}
	var canvas bytes.Buffer
	roster := &gradebook.Roster{Path: "r.csv", Columns: gradebook.CanvasColumns, Identity: map[string]map[string]string{"ada": {gradebook.ColID: "7"}}}
	possible := fmt.Sprint(8 + 0.5*float64(faults))
	if _, err := gradebook.Canvas(&canvas, []*gradebook.Result{r}, p, roster); err != nil || !strings.Contains(canvas.String(), ","+possible+"\n") || !strings.Contains(canvas.String(), ",8.5\n") {
		t.Errorf("canvas: %v\n%s\nwant %s points possible and 8.5", err, canvas.String(), possible)
	}
	if _, err := gradebook.ParsePolicy("p.toml", []byte("[stress]\npoints_per_fault = -1\n"), Steps, CheckIDs()); err == nil || !strings.Contains(err.Error(), "stress.points_per_fault") {
		t.Errorf("points_per_fault -1: got %v, want an error naming stress.points_per_fault", err)
	}
	hidden := "[stress]\npoints_per_fault = 1\nself_reported = true\n[visibility.checks.\"stress.kill9\"]\nbefore_due = \"hidden\"\n"
	if _, err := gradebook.ParsePolicy("p.toml", []byte(hidden), Steps, CheckIDs()); err != nil {
		t.Errorf("a stress fault's visibility: %v, want it taken", err)
	}
}

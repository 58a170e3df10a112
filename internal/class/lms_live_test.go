package class_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/labhub/cnpa/internal/class"
	"github.com/labhub/cnpa/internal/gradebook"
	"github.com/labhub/cnpa/internal/submission"
	"github.com/labhub/cnpa/test/kit/classfixture"
)

// TestLMSFormatsKeepUnverifiedAtZero: the LMS writers read the rows live
// grading left, so a learner to be graded live who was not is 0 in every
// LMS, never the submission's own 8/8; one graded offline keeps 8.
func TestLMSFormatsKeepUnverifiedAtZero(t *testing.T) {
	dir := t.TempDir()
	subs := []*submission.Submission{roundTrip(t, dir, good(t, "ada", 1)), roundTrip(t, dir, good(t, "hal", 2))}
	live := map[string]*class.LiveResult{"hal": {Graded: class.GradedUnreachable, Detail: "cannot reach the cluster: 500"}}
	gb, err := class.Grade(subs, class.Options{Version: classfixture.Version, Now: time.Now(), Live: live})
	if err != nil {
		t.Fatal(err)
	}
	rows := class.Results(gb)
	want := map[string]float64{"ada": 8, "hal": 0}
	for _, r := range rows {
		gs := gradebook.Gradescope(r, nil, 0)
		cr := gradebook.Classroom(r, nil, time.Now())
		var sum float64
		for _, x := range cr.Tests {
			sum += x.Score
		}
		if gs.Score != want[r.Learner] || sum != want[r.Learner] || cr.MaxScore != 8 {
			t.Errorf("%s: gradescope %v, classroom %v of %v; want %v of 8", r.Learner, gs.Score, sum, cr.MaxScore, want[r.Learner])
		}
		if r.Learner == "hal" && !strings.Contains(gs.Output, class.FlagUnverified) {
			t.Errorf("hal's output does not say unverified: %q", gs.Output)
		}
	}
	roster := &gradebook.Roster{Path: "r.csv", Columns: []string{gradebook.ColEmail},
		Identity: map[string]map[string]string{"ada": {gradebook.ColEmail: "ada@example.org"}, "hal": {gradebook.ColEmail: "hal@example.org"}}}
	var b bytes.Buffer
	if _, err := gradebook.Moodle(&b, rows, nil, roster); err != nil {
		t.Fatal(err)
	}
	if want := "Email address,cnpa lab\nada@example.org,8\nhal@example.org,0\n"; b.String() != want {
		t.Errorf("moodle:\n%s\nwant\n%s", b.String(), want)
	}
}

package class

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/gradebook"
	"github.com/labhub/cnpa/test/kit/classfixture"
)

// TestCheckIDsAreEveryCheck: a policy may name every check a real
// submission is graded by, and nothing else.
func TestCheckIDsAreEveryCheck(t *testing.T) {
	c, err := classfixture.Good("ada", 1)
	if err != nil {
		t.Fatal(err)
	}
	ids := CheckIDs()
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
	if err != nil || r != nil || !slices.Equal(names, []string{"ada", "bob"}) {
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

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/labhub/cnpa/test/kit/classfixture"
)

// TestClassGradeCLI: the gradebook from the command line, and bad input
// exits 2 with the file and the fix named.
func TestClassGradeCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	subs := filepath.Join(dir, "subs")
	os.Mkdir(subs, 0o755)
	for i, name := range []string{"ada", "bob"} {
		c, err := classfixture.Good(name, i+1)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := classfixture.Write(subs, c); err != nil {
			t.Fatal(err)
		}
	}
	roster := filepath.Join(dir, "roster.txt")
	os.WriteFile(roster, []byte("ada\nbob\ncy\n"), 0o644)
	code, out, errOut := cnpa(t, "-o", "csv", "class", "grade", "--roster", roster, subs)
	if code != 0 || !strings.HasPrefix(out, "learner,steps_passed,checks_passed,checks_total,first_failing_step,diagnosis,flags,graded,") ||
		!strings.Contains(out, "\ncy,0,0,0,1,,no-submission,missing,") {
		t.Errorf("class grade -o csv: exit %d\n%s%s", code, out, errOut)
	}

	notOne := filepath.Join(dir, "notes.json")
	os.WriteFile(notOne, []byte(`{"hello": "instructor"}`), 0o644)
	// One bad file among the submissions never stops the class (issue
	// 40): its row and flag, the others graded, exit 0.
	os.WriteFile(filepath.Join(subs, "zz-notes.json"), []byte(`{"hello": "instructor"}`), 0o644)
	code, out, errOut = cnpa(t, "-o", "csv", "class", "grade", subs)
	if code != 0 || !strings.Contains(out, "\nzz-notes.json,0,0,0,1,,unreadable,unreadable,") || !strings.Contains(out, "\nada,8,") {
		t.Errorf("class grade of a dir with a bad file: exit %d\n%s%s", code, out, errOut)
	}
	os.Remove(filepath.Join(subs, "zz-notes.json"))
	dup := filepath.Join(dir, "dup.txt")
	os.WriteFile(dup, []byte("ada\nada\n"), 0o644)
	live := filepath.Join(dir, "class.yaml")
	os.WriteFile(live, []byte("learners:\n- {name: ada, kubeconfig: nowhere/ada.yaml}\n"), 0o644)
	for _, tc := range []struct {
		args []string
		says []string
	}{
		{[]string{"class", "grade", notOne}, []string{notOne, "is not a cnpa submission", "cnpa submit"}},
		{[]string{"class", "grade", "--roster", dup, subs}, []string{dup, `"ada" is on line 1 and again on line 2`}},
		{[]string{"class", "grade", "--live", live, subs}, []string{filepath.Join(dir, "nowhere", "ada.yaml"), "copy the learner's kubeconfig there"}},
		{[]string{"class", "grade", subs, "--html", "x.html"}, []string{"--html comes after the submissions", "put every flag before them"}},
		{[]string{"class", "grade"}, []string{"give the submissions"}},
	} {
		code, _, errOut := cnpa(t, tc.args...)
		if code != 2 {
			t.Errorf("cnpa %v: exit %d, want 2\n%s", tc.args, code, errOut)
		}
		for _, s := range tc.says {
			if !strings.Contains(errOut, s) {
				t.Errorf("cnpa %v: stderr %q does not say %q", tc.args, errOut, s)
			}
		}
	}
}

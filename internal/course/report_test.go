package course_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/labhub/cnpa/internal/lab"
)

// ReportJQ, run by jq on the files of a correct run, gives what
// ComputeReport gives: the command step 8 shows computes the same report.
func TestReportJQ(t *testing.T) {
	jq, err := exec.LookPath("jq")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("jq is missing: %v", err)
		}
		t.Skipf("jq is missing: %v", err)
	}
	dir := filepath.Join("..", "judge", "testdata", "lab")
	want, err := lab.ComputeReport(steps.Read(dir))
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"-n"}
	for _, in := range lab.ReportJQInputs {
		args = append(args, "--slurpfile", in.Var, filepath.Join(dir, in.File))
	}
	out, err := exec.Command(jq, append(args, lab.ReportJQ)...).Output()
	if err != nil {
		t.Fatalf("jq %s: %v", lab.ReportJQ, err)
	}
	var got lab.ReportRecord
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("jq's report does not parse: %v\n%s", err, out)
	}
	if !reflect.DeepEqual(&got, want) {
		t.Errorf("got %+v, want %+v", got, *want)
	}
}

package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// reported is what GitHub Classroom's reporter made of a runner's result.
type reported struct {
	// log is what it prints to the Actions log (console-results.js).
	log string
	// notice is its "Points X/Y" notice, which Classroom records; "" for
	// none (notify-classroom.js posts none when max_score is 0).
	notice string
	// failed is core.setFailed's message, "" for none.
	failed string
}

// jsNumber is a JavaScript number as `${n}` prints it (the shortest
// repr that reads back; integers without a point).
func jsNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// classroomReporter is classroom-resources/autograding-grading-reporter
// at v1 (d13b5912daf5042ac1b71bc38bdb4a6bcd61d8ca, the commit the
// workflow pins), src/ ported:
//   - main.js: for each runner, <RUNNER>_RESULTS base64-decoded and
//     JSON.parse'd (an empty or broken one throws: the step fails with
//     the parser's message and posts nothing); setFailed "Some tests
//     failed." for a status fail, "Some tests errored." for error;
//   - console-results.js: each test's name with ✅ (status pass) or ❌,
//     its message only for a test of status error, its test_code when
//     truthy; "Total points for R: S/M" with S = passed tests / tests ×
//     max_score (test-helpers.js getTestScore, which ignores score);
//   - notify-classroom.js: "Points T/M", T the sum of the tests' score in
//     order (JavaScript numbers: float64 addition), none when max_score
//     is 0.
func classroomReporter(t *testing.T, env map[string]string, runner string) reported {
	t.Helper()
	var out reported
	raw, err := base64.StdEncoding.DecodeString(env[strings.ToUpper(runner)+"_RESULTS"])
	if err != nil {
		t.Fatalf("not base64: %v", err)
	}
	var res struct {
		Status   string  `json:"status"`
		MaxScore float64 `json:"max_score"`
		Tests    []struct {
			Name, Status, Message, TestCode string
			Score                           float64
			LineNo                          int `json:"line_no"`
		} `json:"tests"`
	}
	if len(raw) == 0 {
		out.failed = "Unexpected end of JSON input"
		return out
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		out.failed = err.Error()
		return out
	}
	var log strings.Builder
	passed := 0
	for _, tc := range res.Tests {
		switch tc.Status {
		case "pass":
			passed++
			fmt.Fprintf(&log, "✅ %s\n", tc.Name)
		case "error":
			msg := tc.Message
			if msg == "" {
				msg = fmt.Sprintf("Failed to run test '%s'", tc.Name)
			}
			fmt.Fprintf(&log, "Error: %s\n", msg)
		default:
			fmt.Fprintf(&log, "❌ %s\n", tc.Name)
		}
		if tc.TestCode != "" {
			fmt.Fprintf(&log, "Test code:\n%s\n", tc.TestCode)
		}
	}
	if res.MaxScore != 0 {
		fmt.Fprintf(&log, "Total points for %s: %.2f/%s\n", runner, float64(passed)/float64(len(res.Tests))*res.MaxScore, jsNumber(res.MaxScore))
		var total float64
		for _, tc := range res.Tests {
			total += tc.Score
		}
		out.notice = "Points " + jsNumber(total) + "/" + jsNumber(res.MaxScore)
	}
	out.log = log.String()
	switch res.Status {
	case "fail":
		out.failed = "Some tests failed."
	case "error":
		out.failed = "Some tests errored."
	}
	return out
}

// workflow is the part of lms/classroom/cnpa-autograding.yml the test
// reads.
type workflow struct {
	Jobs map[string]struct {
		Steps []struct {
			Name, ID, Uses, Run, Shell, If string
			Env                            map[string]string
			With                           map[string]string
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// TestClassroomWorkflow runs the workflow's cnpa step as GitHub runs it
// (`shell: bash` is `bash --noprofile --norc -eo pipefail {0}`), in a
// repository laid out as the README says, and hands its output to the
// port of the reporter: a correct submission, none at all, and a file
// that is no submission each give a result that the reporter posts
// ("Points X/Y", never nothing), and the learner's feedback in the log.
// Every action is pinned by a full commit SHA, and the reporter runs
// even when the cnpa step failed.
func TestClassroomWorkflow(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "..", "lms", "classroom", "cnpa-autograding.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	steps := wf.Jobs["run-autograding-tests"].Steps
	var run, shell string
	for _, s := range steps {
		if s.Uses != "" && !regexp.MustCompile(`@[0-9a-f]{40}$`).MatchString(s.Uses) {
			t.Errorf("step %q uses %s: pin it by a full commit SHA", s.Name, s.Uses)
		}
		if strings.HasPrefix(s.Uses, "classroom-resources/autograding-grading-reporter@") &&
			(s.If != "always()" || s.Env["CNPA_RESULTS"] != "${{steps.cnpa.outputs.result}}" || s.With["runners"] != "cnpa") {
			t.Errorf("the reporter step: if %q, env %v, with %v", s.If, s.Env, s.With)
		}
		if s.ID == "cnpa" {
			run, shell = s.Run, s.Shell
		}
	}
	if run == "" || shell != "bash" {
		t.Fatalf("no cnpa step run by bash in the workflow")
	}
	shim := cnpaShim(t)
	for _, tc := range []struct {
		name   string
		file   func(repo string)
		notice string
		failed string
		log    []string
	}{
		{"correct", func(repo string) { goodSubmission(t, repo, "submission", 1, nil) }, "Points 8/8", "",
			[]string{"✓ Step 1", "graded offline: the evidence in this file was judged again", "its SHA-256 shows the file is whole, not who made it"}},
		{"no submission.json", func(string) {}, "Points 0/8", "Some tests errored.",
			[]string{"submission.json: 0 of 8 points, graded unreadable", "does not exist: put the file `cnpa submit` wrote there", "commit it as submission.json at the repository's root"}},
		{"not a submission", func(repo string) { os.WriteFile(filepath.Join(repo, "submission.json"), []byte("hello"), 0o644) }, "Points 0/8", "Some tests errored.",
			[]string{"is not a cnpa submission"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			repo := t.TempDir()
			os.MkdirAll(filepath.Join(repo, ".github", "cnpa"), 0o755)
			if err := os.Symlink(shim, filepath.Join(repo, ".github", "cnpa", "cnpa")); err != nil {
				t.Fatal(err)
			}
			tc.file(repo)
			output := filepath.Join(t.TempDir(), "github_output")
			script := filepath.Join(t.TempDir(), "step.sh")
			os.WriteFile(script, []byte(run), 0o644)
			cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
			cmd.Dir = repo
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + repo, "GITHUB_OUTPUT=" + output}
			log, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("the cnpa step failed (the reporter would get nothing): %v\n%s", err, log)
			}
			outs, _ := os.ReadFile(output)
			result, ok := strings.CutPrefix(strings.TrimSpace(string(outs)), "result=")
			if !ok {
				t.Fatalf("GITHUB_OUTPUT holds %q, want result=…", outs)
			}
			rep := classroomReporter(t, map[string]string{"CNPA_RESULTS": result}, "cnpa")
			if rep.notice != tc.notice || rep.failed != tc.failed {
				t.Errorf("reporter: notice %q, failed %q; want %q, %q\nits log:\n%s", rep.notice, rep.failed, tc.notice, tc.failed, rep.log)
			}
			for _, says := range tc.log {
				if !strings.Contains(string(log), says) {
					t.Errorf("the step's log does not say %q:\n%s", says, log)
				}
			}
			for _, flag := range []string{"flags", "cnpa-version", "⚑"} {
				if strings.Contains(string(log), flag) || strings.Contains(rep.log, flag) {
					t.Errorf("the learner's log shows %q:\n%s%s", flag, log, rep.log)
				}
			}
		})
	}
}

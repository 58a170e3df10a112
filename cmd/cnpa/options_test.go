package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/labenv"
)

// These tests run commands in this process, without re-executing the
// binary (cli_test.go does that for a real process's exit code): they
// build a command's options with buffers for streams and call Validate
// or Run, or run the whole app with runStreams. The language is a
// process-wide setting (i18n.Set), so none of them is parallel; the
// re-executing tests, which are, run after them, each in its own process.

// english makes the messages English for one test, as a learner with no
// locale gets them.
func english(t *testing.T) {
	t.Helper()
	t.Setenv(i18n.OverrideVar, "en")
	prev := i18n.Current()
	i18n.Set(i18n.English)
	t.Cleanup(func() { i18n.Set(prev) })
}

// buffers are a command's streams, nothing to read.
func buffers() (IOStreams, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, &out, &errOut
}

// text are the global options of command as a learner's shell gives
// them, -o text.
func text(command string) globalOptions {
	return globalOptions{Dir: "/nonexistent/cnpa-op", Output: "text", Command: command}
}

// TestValidate: a wrong command line is refused before anything is asked
// of the cluster or the evidence dir, with the message and exit code the
// command line gets (run says it after "cnpa: ").
func TestValidate(t *testing.T) {
	english(t)
	withOutput := func(g globalOptions, o string) globalOptions { g.Output = o; return g }
	tests := []struct {
		name string
		o    commandOptions
		want string // "" for valid
	}{
		{"step 9", &StepOptions{globalOptions: text("step"), Arg: "9", Args: 1},
			"unknown step \"9\": the lab has steps 1 to 8 (or `all`)"},
		{"step nine", &StepOptions{globalOptions: text("step"), Arg: "nine", Args: 1},
			"unknown step \"nine\": the lab has steps 1 to 8 (or `all`)"},
		{"step without its argument", &StepOptions{globalOptions: text("step")},
			"step needs one argument: a step number 1..8 or `all`"},
		{"step -o junit", &StepOptions{globalOptions: withOutput(text("step"), "junit"), Arg: "3", Args: 1},
			"-o junit is not supported by step: use one of [text json]"},
		{"step --quiet --verbose", &StepOptions{globalOptions: text("step"), Arg: "all", Args: 1, Quiet: true, Verbose: true},
			"--quiet hides what --verbose shows in full: give one of them"},
		{"step all", &StepOptions{globalOptions: text("step"), Arg: "all", Args: 1}, ""},
		{"explain 9", &ExplainOptions{globalOptions: text("explain"), Arg: "9", Args: 1},
			"unknown step \"9\": the lab has steps 1 to 8 (or `all`)"},
		{"check --step 0", &CheckOptions{globalOptions: text("check"), Step: "0"},
			"--step \"0\": give a step number from 1 to 8"},
		{"check -o yaml", &CheckOptions{globalOptions: withOutput(text("check"), "yaml")},
			"-o yaml is not supported by check: use one of [text json junit]"},
		{"check -o junit --step 5", &CheckOptions{globalOptions: withOutput(text("check"), "junit"), Step: "5"}, ""},
		{"doctor -o yaml", &DoctorOptions{globalOptions: withOutput(text("doctor"), "yaml")},
			"-o yaml is not supported by doctor: use one of [text json]"},
		{"status -o wide", &StatusOptions{globalOptions: withOutput(text("status"), "wide")}, ""},
		{"scaffold run.sh", &ScaffoldOptions{globalOptions: text("scaffold"), Arg: "run.sh", Args: 1},
			"scaffold writes reconcile.sh: `cnpa scaffold reconcile.sh --engine shell`"},
		{"report without --html", &ReportOptions{globalOptions: text("report")},
			"give --html FILE: the report is an HTML page (e.g. `cnpa report --html report.html`)"},
		{"class grade -o canvas without --roster", &ClassGradeOptions{globalOptions: withOutput(text("grade"), "canvas"), Submissions: []string{"a.json"}},
			"-o canvas needs --roster with the learners' identity columns (a CSV roster): see docs/class.md, \"Into an LMS\""},
		{"completion tcsh", &CompletionOptions{Shell: "tcsh"}, "completion \"tcsh\": give bash, zsh or fish"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.o.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("got %v, want valid", err)
				}
				return
			}
			var said bytes.Buffer
			if code := exitCode(&said, err); code != 2 || said.String() != "cnpa: "+tt.want+"\n" {
				t.Errorf("got exit %d and %q, want exit 2 and %q", code, said.String(), "cnpa: "+tt.want+"\n")
			}
		})
	}
}

// TestRunWritesToItsStreams: a command that needs no cluster runs in
// process, and what it prints is on its Out, nothing on ErrOut.
func TestRunWritesToItsStreams(t *testing.T) {
	english(t)
	t.Run("version", func(t *testing.T) {
		s, out, errOut := buffers()
		if err := (&VersionOptions{IOStreams: s}).Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		want := "cnpa dev (" + runtime.Version() + ", " + runtime.GOOS + "/" + runtime.GOARCH + ")\n"
		if out.String() != want || errOut.Len() != 0 {
			t.Errorf("got %q and %q on stderr, want %q and nothing", out, errOut, want)
		}
	})
	t.Run("explain 3", func(t *testing.T) {
		s, out, errOut := buffers()
		o := &ExplainOptions{IOStreams: s, globalOptions: text("explain"), Arg: "3", Args: 1}
		o.Dir = t.TempDir()
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		if err := o.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := firstLine(out.String()); got != "Step 3 — The same result however often it runs" || errOut.Len() != 0 {
			t.Errorf("got first line %q and %q on stderr, want step 3's heading and nothing", got, errOut)
		}
		if !strings.Contains(out.String(), o.Dir) {
			t.Errorf("explain 3 does not show the evidence dir %s:\n%s", o.Dir, out)
		}
	})
	t.Run("scaffold reconcile.sh", func(t *testing.T) {
		s, out, errOut := buffers()
		dir := t.TempDir()
		o := &ScaffoldOptions{IOStreams: s, globalOptions: text("scaffold"), Arg: labenv.ScriptName, Args: 1,
			Engine: labenv.EngineShell, Finalizer: true}
		o.Dir, o.Kubeconfig = dir, unreachableKubeconfig(t)
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		if err := o.Run(context.Background()); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, labenv.ScriptName)
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("no script: %v", err)
		}
		want := "wrote " + path + " (cnpa's shell engine, finalizer handling on)\n"
		if out.String() != want || errOut.Len() != 0 {
			t.Errorf("got %q and %q on stderr, want %q and nothing", out, errOut, want)
		}
		// A second scaffold keeps the script (no --force): an error, exit 2.
		err := o.Run(context.Background())
		var said bytes.Buffer
		if code := exitCode(&said, err); code != 2 || !strings.Contains(said.String(), path) {
			t.Errorf("scaffold over a script: got exit %d and %q, want exit 2 naming %s", code, said.String(), path)
		}
	})
}

// unreachableKubeconfig is a kubeconfig that parses, for a server nobody
// listens on: enough for a command that builds clients but asks nothing.
func unreachableKubeconfig(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kubeconfig")
	const kc = `apiVersion: v1
kind: Config
clusters:
- name: nowhere
  cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}
users:
- name: nobody
  user: {token: not-a-token}
contexts:
- name: nowhere
  context: {cluster: nowhere, user: nobody}
current-context: nowhere
`
	if err := os.WriteFile(p, []byte(kc), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestAppInProcess runs the whole app, flags parsed by urfave/cli, with
// buffers for stdin, stdout and stderr: the exit code and the text are
// the binary's.
func TestAppInProcess(t *testing.T) {
	english(t)
	t.Setenv("NO_COLOR", "1")
	dir := t.TempDir()
	tests := []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string // substrings; "" for empty
	}{
		{"check --help", []string{"check", "--help"}, 0, "--step N", ""},
		{"version", []string{"version"}, 0, "cnpa dev (", ""},
		{"step 9", []string{"step", "9"}, 2, "", "cnpa: unknown step \"9\": the lab has steps 1 to 8 (or `all`)\n"},
		{"bad --lang", []string{"--lang", "xx", "explain", "3"}, 2, "", "cnpa: --lang xx: cnpa speaks en or ja\n"},
		{"doctor -o yaml", []string{"doctor", "-o", "yaml"}, 2, "", "cnpa: -o yaml is not supported by doctor: use one of [text json]\n"},
		{"check with no evidence", []string{"--dir", dir, "check"}, 1, "", "cnpa: no evidence yet in " + dir},
		{"explain 2, the flag after", []string{"explain", "2", "--dir", dir}, 0, "Step 2 — ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, out, errOut := buffers()
			code := runStreams(append([]string{"cnpa"}, tt.args...), s)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, errOut)
			}
			for _, c := range []struct {
				name      string
				got, want string
			}{{"stdout", out.String(), tt.stdout}, {"stderr", errOut.String(), tt.stderr}} {
				if c.want == "" && c.got != "" || !strings.Contains(c.got, c.want) {
					t.Errorf("%s %q, want it to hold %q", c.name, c.got, c.want)
				}
			}
			if tt.code == 2 && strings.Count(errOut.String(), "\n") != 1 {
				t.Errorf("stderr %q, want one line", errOut)
			}
		})
	}
}

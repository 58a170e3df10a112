package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/service"
)

// TestCLIHelperProcess is not a test: cnpa runs the test binary with
// CNPA_CLI_HELPER=1 to get a real `cnpa` process (its own exit code, its
// own stderr) without building a second binary.
func TestCLIHelperProcess(t *testing.T) {
	if os.Getenv("CNPA_CLI_HELPER") != "1" {
		return
	}
	args := os.Args
	for i, a := range args {
		if a == "--" {
			args = args[i+1:]
			break
		}
	}
	// urfave/cli's completion reads os.Args itself: make them cnpa's.
	os.Args = append([]string{"cnpa"}, args...)
	os.Exit(run(os.Args))
}

// cnpa runs the CLI as a process in a clean environment: no kubeconfig
// unless the arguments name one, HOME and the evidence dir in a temp dir.
// Nothing of the test process is shared, so the tests that only run cnpa
// are parallel: one after the other they were most of make unit's wall.
func cnpa(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cnpaEnv(t, nil, args...)
}

// cnpaEnv is cnpa with env added to the clean environment.
func cnpaEnv(t *testing.T, env []string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	home := t.TempDir()
	cmd := exec.Command(os.Args[0], append([]string{"-test.run=^TestCLIHelperProcess$", "--"}, args...)...)
	cmd.Env = append([]string{"CNPA_CLI_HELPER=1", "HOME=" + home, "NO_COLOR=1", "CNPA_DIR=" + filepath.Join(home, "cnpa-op"),
		"PATH=" + os.Getenv("PATH")}, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		code = ee.ExitCode()
	default:
		t.Fatalf("run cnpa %q: %v", args, err)
	}
	return code, out.String(), errb.String()
}

// TestUsageAndEnvironmentErrors: each wrong command line or broken
// environment exits 2 with exactly one line on stderr that names the
// offending thing.
func TestUsageAndEnvironmentErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A kubeconfig that parses, for a server nobody listens on.
	unreachable := write("unreachable.yaml", `apiVersion: v1
kind: Config
clusters:
- name: nowhere
  cluster:
    server: https://127.0.0.1:1
    insecure-skip-tls-verify: true
users:
- name: nobody
  user:
    token: not-a-token
contexts:
- name: nowhere
  context: {cluster: nowhere, user: nobody}
current-context: nowhere
`)
	garbage := write("garbage.yaml", "apiVersion: v1\nclusters: [ {name: x\n")
	notYAML := write("binary.yaml", "\x00\x01\x02kind: Config\n\tclusters:\n")
	aFile := write("not-a-dir", "I am a file\n")
	missing := filepath.Join(dir, "no-such-kubeconfig")

	tests := []struct {
		name string
		args []string
		want []string // all on the one stderr line
	}{
		{"unknown step number", []string{"step", "9"}, []string{`"9"`}},
		{"step zero", []string{"step", "0"}, []string{`"0"`}},
		{"step word", []string{"step", "nine"}, []string{`"nine"`}},
		{"explain unknown step", []string{"explain", "9"}, []string{`"9"`}},
		{"evidence dir is a file", []string{"--dir", aFile, "step", "1"}, []string{aFile, "file"}},
		{"evidence dir is a file, kubeconfig fine", []string{"--kubeconfig", unreachable, "--dir", aFile, "step", "1"}, []string{aFile}},
		{"evidence dir is a file, after the command", []string{"step", "1", "--dir", aFile}, []string{aFile}},
		{"kubeconfig does not parse (step)", []string{"--kubeconfig", garbage, "step", "1"}, []string{garbage, "parse"}},
		{"kubeconfig does not parse (controller)", []string{"--kubeconfig", garbage, "controller", "--once"}, []string{garbage}},
		{"kubeconfig does not parse (doctor)", []string{"--kubeconfig", garbage, "doctor"}, []string{garbage}},
		{"kubeconfig is binary junk", []string{"--kubeconfig", notYAML, "step", "1"}, []string{notYAML}},
		{"kubeconfig missing", []string{"--kubeconfig", missing, "step", "1"}, []string{missing}},
		{"context does not exist (step)", []string{"--kubeconfig", unreachable, "--context", "nope", "step", "1"}, []string{`"nope"`, unreachable}},
		{"context does not exist (controller)", []string{"--context", "nope", "--kubeconfig", unreachable, "controller"}, []string{`"nope"`}},
		{"context does not exist (doctor)", []string{"--kubeconfig", unreachable, "--context", "nope", "doctor"}, []string{`"nope"`}},
		{"doctor against an unreachable server", []string{"--kubeconfig", unreachable, "doctor"}, []string{unreachable, "https://127.0.0.1:1"}},
		{"doctor unreachable, json", []string{"--kubeconfig", unreachable, "doctor", "-o", "json"}, []string{unreachable, "https://127.0.0.1:1"}},
		{"unsupported output", []string{"step", "1", "-o", "yaml"}, []string{"yaml"}},
		{"unknown service identity", []string{"--kubeconfig", unreachable, "--dir", filepath.Join(dir, "lab"), "step", "4", "--service-identity", "root"},
			[]string{"--service-identity", `"root"`, "own", "admin"}},
		// Numeric flags: every nonsense value is a usage error naming the flag.
		{"negative log lines", []string{"service", "logs", "-n", "-1"}, []string{"--lines", "-1"}},
		{"zero workers", []string{"controller", "--workers", "0"}, []string{"--workers", "0"}},
		{"zero resync interval", []string{"controller", "--interval", "0s"}, []string{"--interval"}},
		{"negative lease", []string{"controller", "--leader-elect-lease-duration", "-1s"}, []string{"--leader-elect-lease-duration"}},
		{"zero step timeout", []string{"step", "1", "--timeout", "0s"}, []string{"--timeout"}},
		{"negative catch-up wait", []string{"step", "7", "--catchup-wait", "-8s"}, []string{"--catchup-wait"}},
		{"zero check timeout", []string{"check", "--timeout", "0s"}, []string{"--timeout"}},
		{"zero reset timeout", []string{"reset", "--timeout", "0s"}, []string{"--timeout"}},
		{"zero status interval", []string{"status", "--interval", "0s"}, []string{"--interval"}},
		// cnpa report --html: what is wrong with the command line, named.
		{"report without --html", []string{"--dir", dir, "report"}, []string{"--html FILE"}},
		{"report --html is a directory", []string{"--dir", dir, "report", "--html", dir}, []string{dir, "directory"}},
		{"report, evidence dir missing", []string{"--dir", missing, "report", "--html", filepath.Join(dir, "r.html")}, []string{missing, "does not exist"}},
		{"report, evidence dir is a file", []string{"--dir", aFile, "report", "--html", filepath.Join(dir, "r.html")}, []string{aFile, "file"}},
		{"zero report timeout", []string{"report", "--html", "x.html", "--timeout", "0s"}, []string{"--timeout"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := cnpa(t, tt.args...)
			if code != 2 {
				t.Errorf("exit code: got %d, want 2\nstderr:\n%s", code, stderr)
			}
			lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
			if len(lines) != 1 || lines[0] == "" {
				t.Fatalf("stderr: got %d lines, want exactly 1:\n%s", len(lines), stderr)
			}
			t.Logf("exit %d: %s", code, lines[0])
			for _, w := range tt.want {
				if !strings.Contains(lines[0], w) {
					t.Errorf("stderr %q does not name %q", lines[0], w)
				}
			}
		})
	}
}

// TestHelpDefaults: every flag shows exactly one default, the real one.
func TestHelpDefaults(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"step", "--help"}, {"check", "--help"}, {"reset", "--help"}, {"controller", "--help"}, {"service", "logs", "--help"}} {
		_, stdout, _ := cnpa(t, args...)
		for _, line := range strings.Split(stdout, "\n") {
			if strings.Count(line, "default") > 1 || strings.Contains(line, "(default: 0s)") {
				t.Errorf("cnpa %s: %q shows more than one default, or a false one", strings.Join(args, " "), line)
			}
		}
	}
	// A switch takes no value, so its help line names none: urfave/cli
	// reads a back-quoted word in the usage as the value's placeholder.
	if _, stdout, _ := cnpa(t, "step", "--help"); !regexp.MustCompile(`(?m)^\s+--explain\s{2,}print`).MatchString(stdout) {
		t.Errorf("cnpa step --help: --explain shows a value placeholder:\n%s", stdout)
	}
	for cmd, want := range map[string]string{"step": "(default: 8s)", "check": "(default: 30s)", "reset": "(default: 3m0s)"} {
		if _, stdout, _ := cnpa(t, cmd, "--help"); !strings.Contains(stdout, want) {
			t.Errorf("cnpa %s --help: no %q in\n%s", cmd, want, stdout)
		}
	}
}

// TestExplainOffline: `cnpa explain` needs no cluster: every step says why,
// gives the commands to type and what to look at.
func TestExplainOffline(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := cnpa(t, "--kubeconfig", "/nonexistent", "explain", "all")
	if code != 0 {
		t.Fatalf("cnpa explain all: exit %d: %s", code, stderr)
	}
	for _, s := range theLab.Lab() {
		n := s.Number
		start := strings.Index(stdout, fmt.Sprintf("Step %d — ", n))
		if start < 0 {
			t.Fatalf("no step %d in:\n%s", n, stdout)
		}
		section := stdout[start:]
		if end := strings.Index(section, fmt.Sprintf("Step %d — ", n+1)); end > 0 {
			section = section[:end]
		}
		for _, want := range []string{"Why\n", "By hand\n", "  $ ", "What to look at\n"} {
			if !strings.Contains(section, want) {
				t.Errorf("step %d: no %q in\n%s", n, want, section)
			}
		}
		if hasTimeline := s.Timeline; strings.Contains(section, fmt.Sprintf("timeline-step%d.json", n)) != hasTimeline {
			t.Errorf("step %d: names its timeline file %t, want %t\n%s", n, !hasTimeline, hasTimeline, section)
		}
	}
}

// TestHelpExitsZero: asking for help is not an error.
func TestHelpExitsZero(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--help"}, {"step", "--help"}, {"help", "controller"}} {
		if code, _, stderr := cnpa(t, args...); code != 0 {
			t.Errorf("cnpa %s: exit code got %d, want 0\n%s", strings.Join(args, " "), code, stderr)
		}
	}
}

// TestBashCompletion loads `cnpa completion bash` into a real bash and
// completes as a user pressing TAB would: commands, step numbers, engine
// names and flags.
func TestBashCompletion(t *testing.T) {
	t.Parallel()
	bin := t.TempDir()
	wrapper := "#!/bin/sh\nCNPA_CLI_HELPER=1 exec " + os.Args[0] + " -test.run=^TestCLIHelperProcess$ -- \"$@\"\n"
	if err := os.WriteFile(filepath.Join(bin, "cnpa"), []byte(wrapper), 0o755); err != nil {
		t.Fatal(err)
	}
	code, script, stderr := cnpa(t, "completion", "bash")
	if code != 0 {
		t.Fatalf("cnpa completion bash: exit %d: %s", code, stderr)
	}
	tests := []struct {
		line string // what the user typed before TAB
		want []string
	}{
		{"cnpa ", []string{"step", "check", "status", "completion"}},
		{"cnpa st", []string{"step", "status"}},
		{"cnpa step ", []string{"1", "8", "all"}},
		{"cnpa step 3 --engine ", []string{"go", "shell"}},
		{"cnpa step 3 --service-manager ", []string{"auto", "systemd", "process"}},
		{"cnpa step 3 --eng", []string{"--engine"}},
		{"cnpa status -o ", []string{"wide", "json"}},
		{"cnpa class grade -o ", []string{"csv", "gradescope", "classroom", "canvas", "moodle"}},
		{"cnpa completion ", []string{"bash", "zsh", "fish"}},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			prog := script + `
read -ra COMP_WORDS <<<"$LINE"
[[ $LINE == *" " ]] && COMP_WORDS+=("")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
_cnpa_complete
printf '%s\n' "${COMPREPLY[@]}"
`
			cmd := exec.Command("bash", "-c", prog)
			cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "LINE="+tt.line)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("bash: %v\n%s", err, out)
			}
			got := strings.Fields(string(out))
			for _, w := range tt.want {
				if !slices.Contains(got, w) {
					t.Errorf("completing %q: got %v, want %q among them", tt.line, got, w)
				}
			}
		})
	}
	for _, shell := range []string{"zsh", "fish"} {
		if code, out, stderr := cnpa(t, "completion", shell); code != 0 || !strings.Contains(out, "cnpa") {
			t.Errorf("cnpa completion %s: exit %d, %d bytes: %s", shell, code, len(out), stderr)
		}
	}
	if code, _, _ := cnpa(t, "completion", "tcsh"); code != 2 {
		t.Errorf("cnpa completion tcsh: exit %d, want 2", code)
	}
}

// TestUnknownCommandAndFlag: a mistyped command or flag is a usage error as
// kubectl makes it: exit 2, one line naming what was typed and the nearest
// real name, never the whole help.
func TestUnknownCommandAndFlag(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want []string // all on the one stderr line
	}{
		{"command", []string{"stpe", "1"}, []string{`"stpe"`, "did you mean step?", "cnpa --help"}},
		{"command, far from any", []string{"frobnicate"}, []string{`"frobnicate"`, "cnpa --help"}},
		{"help for an unknown command", []string{"help", "stpe"}, []string{`"stpe"`, "did you mean step?"}},
		{"subcommand", []string{"service", "stat"}, []string{`"stat"`, `"cnpa service"`, "did you mean start?"}},
		{"flag of a command", []string{"step", "1", "--engin", "own"}, []string{"--engin", `"cnpa step"`, "did you mean --engine?", "cnpa step --help"}},
		{"global flag after the command", []string{"step", "1", "--kubeconfg", "x"}, []string{"--kubeconfg", "did you mean --kubeconfig?"}},
		{"global flag", []string{"--dri", "x", "doctor"}, []string{"--dri", "did you mean --dir?"}},
		{"flag of a subcommand", []string{"service", "logs", "--line", "3"}, []string{"--line", `"cnpa service logs"`, "did you mean --lines?"}},
		{"flag without its value", []string{"check", "--timeout"}, []string{"--timeout", "needs a value"}},
		{"value that does not parse", []string{"step", "1", "--timeout", "soon"}, []string{"--timeout", `"soon"`}},
		{"argument to a command that takes none", []string{"check", "5"}, []string{`"cnpa check"`, "no arguments", `"5"`}},
		{"argument to a subcommand that takes none", []string{"service", "status", "now"}, []string{`"cnpa service status"`, `"now"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := cnpa(t, tt.args...)
			if code != 2 {
				t.Errorf("exit code: got %d, want 2\nstderr:\n%s", code, stderr)
			}
			if stdout != "" {
				t.Errorf("stdout: got %q, want nothing (no help dump)", stdout)
			}
			lines := strings.Split(strings.TrimRight(stderr, "\n"), "\n")
			if len(lines) != 1 || lines[0] == "" {
				t.Fatalf("stderr: got %d lines, want exactly 1:\n%s", len(lines), stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(lines[0], w) {
					t.Errorf("stderr %q does not say %q", lines[0], w)
				}
			}
			if strings.Contains(tt.name, "far from any") && strings.Contains(lines[0], "did you mean") {
				t.Errorf("stderr %q guesses a command nothing like the one typed", lines[0])
			}
		})
	}
}

// TestVersionFlag: `cnpa --version` prints what `cnpa version` prints.
func TestVersionFlag(t *testing.T) {
	t.Parallel()
	code, flag, stderr := cnpa(t, "--version")
	if code != 0 {
		t.Fatalf("cnpa --version: exit %d: %s", code, stderr)
	}
	_, cmd, _ := cnpa(t, "version")
	if flag != cmd || !strings.HasPrefix(flag, "cnpa ") {
		t.Errorf("cnpa --version: got %q, want %q as cnpa version prints", flag, cmd)
	}
}

// TestDoctorNamesTheMissingKubeconfig: a kubeconfig path the learner passed
// is named, with the fix "check the path", never "pass --kubeconfig"; and
// doctor creates nothing, not even the evidence dir it checks.
func TestDoctorNamesTheMissingKubeconfig(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "not-yet", "cnpa-op")
	missing := filepath.Join(t.TempDir(), "nonexistent", "kc")
	code, stdout, stderr := cnpa(t, "--kubeconfig", missing, "--dir", dir, "doctor")
	if code != 2 {
		t.Errorf("exit code: got %d, want 2\n%s%s", code, stdout, stderr)
	}
	// doctor wraps its details to 80 columns: read them unwrapped.
	unwrap := regexp.MustCompile(`\n +`)
	stdout = unwrap.ReplaceAllString(stdout, " ")
	for _, out := range []string{stdout, stderr} {
		if !strings.Contains(out, missing+" (--kubeconfig) does not exist: check the path") {
			t.Errorf("doctor does not name %s as missing:\n%s", missing, out)
		}
		if strings.Contains(out, "pass --kubeconfig") {
			t.Errorf("doctor asks to pass --kubeconfig, which was passed:\n%s", out)
		}
	}
	if !strings.Contains(stdout, dir+" does not exist yet") {
		t.Errorf("doctor's evidence dir line does not say %s is still to be made:\n%s", dir, stdout)
	}
	if _, err := os.Stat(filepath.Dir(dir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("cnpa doctor created %s (stat: %v), want nothing created", filepath.Dir(dir), err)
	}
}

// TestExplainUsesTheDir: `cnpa --dir mine explain` shows the learner's own
// paths, and step 3 lists what one pass must produce, as LAB.md asks.
func TestExplainUsesTheDir(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "mine")
	code, stdout, stderr := cnpa(t, "--dir", dir, "explain", "all")
	if code != 0 {
		t.Fatalf("cnpa explain all: exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "/root/cnpa-op") {
		t.Errorf("cnpa --dir %s explain shows /root/cnpa-op:\n%s", dir, stdout)
	}
	// The service's commands are the machine's: the unit under systemd,
	// `cnpa service` where the loop runs as a process (review row 14).
	unit := "$ cnpa service start"
	if service.SystemdRunning() {
		unit = "/etc/systemd/system/cnpa-op.service"
	}
	for _, want := range []string{dir + "/reconcile.sh", dir + "/archive/beta.json", unit,
		"label platform.labhub.io/teamspace: <name>", "ownerReference", "hard.pods = spec.pods", "hard.requests.cpu = spec.cpu", "observedGeneration = metadata.generation"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("cnpa --dir %s explain all: no %q", dir, want)
		}
	}
}

package labenv

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/test/kit"
)

// oddEnv is an Env whose evidence dir, kubeconfig and cnpa binary all lie
// on kit.OddDir paths, with --context given. The cnpa binary is a stub
// that prints its arguments, NUL-separated, and the environment's
// KUBECONFIG.
func oddEnv(t *testing.T, engine string) (e *Env, marker string) {
	t.Helper()
	base := t.TempDir()
	dir, marker := kit.OddDir(base)
	kcDir, _ := kit.OddDir(filepath.Join(base, "kc"))
	for _, d := range []string{dir, kcDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// systemd refuses quotes in a program's path (service.Unit.Render
	// says so); every other odd character is there.
	cnpa := filepath.Join(base, "bin %x $HOME (1)", "cnpa")
	if err := os.MkdirAll(filepath.Dir(cnpa), 0o755); err != nil {
		t.Fatal(err)
	}
	stub := "#!/bin/sh\nprintf '%s\\0' \"$@\" \"KUBECONFIG=$KUBECONFIG\"\n"
	if err := os.WriteFile(cnpa, []byte(stub), 0o755); err != nil {
		t.Fatal(err)
	}
	target := &kube.Target{Path: filepath.Join(kcDir, "kube config"), Context: "good", ContextGiven: true}
	mgr, err := service.New("systemd", t.TempDir(), dir)
	if err != nil {
		t.Fatal(err)
	}
	// The admin identity: the unit then runs on the learner's kubeconfig
	// and context, which is what these tests follow through.
	return &Env{Dir: dir, Target: target, Engine: engine, CnpaPath: cnpa, Service: mgr,
		State: &State{Engine: engine, Finalizer: true, ServiceIdentity: "admin"}}, marker
}

// runArgs runs path with env added and returns the NUL-separated words it
// printed.
func runArgs(t *testing.T, path string, env ...string) []string {
	t.Helper()
	cmd := exec.Command(path)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", path, err, out)
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

// The Go engine's reconcile.sh hands every path to cnpa exactly, runs
// nothing embedded in them, and always names the --context it was given;
// the environment's KUBECONFIG still wins over the pinned one.
func TestGoScriptCarriesPathsAndContext(t *testing.T) {
	e, marker := oddEnv(t, EngineGo)
	if err := e.InstallScript(); err != nil {
		t.Fatal(err)
	}
	pinned := filepath.Join(e.Dir, ContextFile) + ":" + e.Target.Path
	for _, tt := range []struct {
		name, env, kubeconfig string
	}{
		{"pinned default", "KUBECONFIG=", pinned},
		{"the environment wins", "KUBECONFIG=/root/other config", "/root/other config"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := runArgs(t, e.ScriptPath(), tt.env)
			want := []string{"controller", "--once", "--kubeconfig", tt.kubeconfig, "--context", "good",
				"--archive-dir", e.ArchiveDir(), "--finalizer=true", "KUBECONFIG=" + tt.kubeconfig}
			if !slices.Equal(got, want) {
				t.Errorf("cnpa got argv %q, want %q", got, want)
			}
		})
	}
	kit.NoMarker(t, marker)
}

// The shell engine's pinned header sets exactly the paths, runs nothing
// embedded in them, and leaves a value the environment sets alone.
func TestShellScriptPinsPaths(t *testing.T) {
	e, marker := oddEnv(t, EngineShell)
	if err := e.InstallScript(); err != nil {
		t.Fatal(err)
	}
	script, err := os.ReadFile(e.ScriptPath())
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("bash", "-n", e.ScriptPath()).CombinedOutput(); err != nil {
		t.Fatalf("bash -n %s: %v\n%s", e.ScriptPath(), err, out)
	}
	// The header alone, then print what it set.
	const exportLine = "export KUBECONFIG CNPA_ARCHIVE_DIR CNPA_FINALIZER\n"
	i := bytes.Index(script, []byte(exportLine))
	if i < 0 {
		t.Fatalf("the script has no line %q:\n%s", exportLine, script)
	}
	header := string(script[:i+len(exportLine)]) + `printf '%s\0' "$KUBECONFIG" "$CNPA_ARCHIVE_DIR" "$CNPA_FINALIZER"` + "\n"
	path := filepath.Join(t.TempDir(), "header.sh")
	if err := os.WriteFile(path, []byte(header), 0o755); err != nil {
		t.Fatal(err)
	}
	pinned := filepath.Join(e.Dir, ContextFile) + ":" + e.Target.Path
	if got, want := runArgs(t, path, "KUBECONFIG=", "CNPA_ARCHIVE_DIR=", "CNPA_FINALIZER="), []string{pinned, e.ArchiveDir(), "true"}; !slices.Equal(got, want) {
		t.Errorf("pinned values: got %q, want %q", got, want)
	}
	set := []string{"KUBECONFIG=/k c", "CNPA_ARCHIVE_DIR=/a d", "CNPA_FINALIZER=false"}
	if got, want := runArgs(t, path, set...), []string{"/k c", "/a d", "false"}; !slices.Equal(got, want) {
		t.Errorf("with the environment set: got %q, want %q", got, want)
	}
	kit.NoMarker(t, marker)
}

// The context file names the context and nothing else; kubectl's merge of
// KUBECONFIG=<it>:<kubeconfig> then selects it (proven on the real
// control plane by test/lab's TestStepAll, in its labs with a context).
func TestContextFile(t *testing.T) {
	e, _ := oddEnv(t, EngineOwn)
	e.Target.Context = `we"ird: name`
	if err := e.writeContextFile(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(e.Dir, ContextFile))
	if err != nil {
		t.Fatal(err)
	}
	if want := "\ncurrent-context: \"we\\\"ird: name\"\n"; !strings.Contains(string(data), want) {
		t.Errorf("%s: got\n%s\nwant a line %q", ContextFile, data, want)
	}
	for _, key := range []string{"clusters:", "users:", "token", "contexts:"} {
		if strings.Contains(string(data), key) {
			t.Errorf("%s holds %q; it must set current-context only:\n%s", ContextFile, key, data)
		}
	}
	// Without --context nothing is written and KUBECONFIG is the kubeconfig.
	e2, _ := oddEnv(t, EngineOwn)
	e2.Target.ContextGiven = false
	if err := e2.writeContextFile(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(e2.Dir, ContextFile)); err == nil {
		t.Errorf("%s written without --context", ContextFile)
	}
	if got, _ := e2.CommandKubeconfig(); got != e2.Target.Path {
		t.Errorf("CommandKubeconfig without --context: got %q, want %q", got, e2.Target.Path)
	}
	// A dir with the list separator cannot be listed: a clear refusal.
	e.Dir = "/root/a:b"
	if _, err := e.CommandKubeconfig(); err == nil || !strings.Contains(err.Error(), "choose a --dir without it") {
		t.Errorf("CommandKubeconfig with %s: got %v, want a refusal naming the fix", e.Dir, err)
	}
}

// The unit of every engine, rendered from odd paths, is one systemd reads
// without complaint, and the Go engine's names the context.
func TestUnitOddPathsVerify(t *testing.T) {
	for _, engine := range []string{EngineGo, EngineShell, EngineOwn} {
		t.Run(engine, func(t *testing.T) {
			e, marker := oddEnv(t, engine)
			u, err := e.Unit()
			if err != nil {
				t.Fatal(err)
			}
			if engine == EngineGo && !slices.Contains(u.Argv, "--context") {
				t.Errorf("go engine's unit argv %q has no --context", u.Argv)
			}
			if want := filepath.Join(e.Dir, ContextFile) + ":" + e.Target.Path; u.Kubeconfig != want {
				t.Errorf("unit KUBECONFIG: got %q, want %q", u.Kubeconfig, want)
			}
			b, err := u.Render()
			if err != nil {
				t.Fatal(err)
			}
			kit.VerifyUnit(t, b)
			kit.NoMarker(t, marker)

			// Its own identity, from the same odd paths: the credential,
			// the archive dir and what it runs are bound in, each escaped;
			// the context stays with the learner's kubeconfig.
			e.State.ServiceIdentity = "own"
			if err := os.MkdirAll(e.ArchiveDir(), 0o755); err != nil {
				t.Fatal(err)
			}
			u, err = e.Unit()
			if err != nil {
				t.Fatal(err)
			}
			if slices.Contains(u.Argv, "--context") || slices.Contains(u.Argv, "--kubeconfig") {
				t.Errorf("own identity's argv %q names the learner's kubeconfig or context", u.Argv)
			}
			b, err = u.Render()
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{"LoadCredential=kubeconfig:" + strings.ReplaceAll(e.CredentialPath(), "%", "%%"), `Environment="KUBECONFIG=%d/kubeconfig"`} {
				if !strings.Contains(string(b), want) {
					t.Errorf("own identity's unit lacks %q:\n%s", want, b)
				}
			}
			kit.VerifyUnit(t, b)
			kit.NoMarker(t, marker)
		})
	}
}

// A systemd service cannot see paths under /tmp (PrivateTmp=yes): each one
// gets a warning; process mode, which sees the real /tmp, gets none.
func TestPrivateTmpWarnings(t *testing.T) {
	systemd, err := service.New("systemd", t.TempDir(), "/root/cnpa-op")
	if err != nil {
		t.Fatal(err)
	}
	process, err := service.New("process", t.TempDir(), "/root/cnpa-op")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		mgr        service.Manager
		dir, kc    string
		wantTmpFor []string
	}{
		{"nothing under /tmp", systemd, "/root/cnpa-op", "/etc/rancher/k3s/k3s.yaml", nil},
		{"dir under /tmp", systemd, "/tmp/lab", "/etc/rancher/k3s/k3s.yaml", []string{"the evidence dir /tmp/lab"}},
		{"kubeconfig under /var/tmp", systemd, "/root/cnpa-op", "/etc/k:/var/tmp/kc", []string{"the kubeconfig /var/tmp/kc"}},
		{"/tmp itself", systemd, "/tmp", "/root/kc", []string{"the evidence dir /tmp "}},
		{"a name that only starts like it", systemd, "/tmpfoo/lab", "/root/kc", nil},
		{"process mode", process, "/tmp/lab", "/tmp/kc", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &Env{Dir: tt.dir, Target: &kube.Target{Path: tt.kc}, Service: tt.mgr}
			got := e.PrivateTmpWarnings()
			if len(got) != len(tt.wantTmpFor) {
				t.Fatalf("warnings: got %q, want %d naming %q", got, len(tt.wantTmpFor), tt.wantTmpFor)
			}
			for i, w := range tt.wantTmpFor {
				if !strings.HasPrefix(got[i], w) || !strings.Contains(got[i], "PrivateTmp=yes") {
					t.Errorf("warning %d: got %q, want it to start %q and name PrivateTmp=yes", i, got[i], w)
				}
			}
		})
	}
}

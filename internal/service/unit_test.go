package service

import (
	"bytes"
	"strings"
	"testing"
	"text/template"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/test/kit"
)

// Render must write exactly what text/template made of the unit before it
// was replaced by plain substitution (the binary no longer links it).
func TestRenderMatchesTextTemplate(t *testing.T) {
	u := Unit{Engine: "go", Argv: []string{"/usr/local/bin/cnpa", "controller", "--dir", "/root/my $dir"},
		Kubeconfig: "/etc/rancher/k3s/k3s.yaml", Path: "/usr/local/bin:/usr/bin", ArchiveDir: "/root/cnpa-op/archive", Dir: "/root/cnpa-op"}
	got, err := u.Render()
	if err != nil {
		t.Fatal(err)
	}
	tmpl := template.Must(template.New(Name).Option("missingkey=error").Parse(string(assets.ServiceUnit)))
	var want bytes.Buffer
	if err := tmpl.Execute(&want, map[string]string{
		"Engine": u.Engine, "ExecStart": u.ExecStart(), "Kubeconfig": u.unitKubeconfig(),
		"Path": u.Path, "ArchiveDir": u.ArchiveDir, "Dir": u.Dir, "Identity": u.identity(),
	}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Errorf("Render:\n%s\nwant (text/template):\n%s", got, want.Bytes())
	}
	if strings.Contains(string(got), "{{") {
		t.Errorf("Render left a placeholder:\n%s", got)
	}
}

// unitLines are the non-comment lines of a rendered unit.
func unitLines(b []byte) map[string]bool {
	lines := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			lines[l] = true
		}
	}
	return lines
}

// Each value lands in the unit escaped for where it stands: `%` doubled
// everywhere (a specifier otherwise), `$` doubled in ExecStart (a variable
// otherwise), `\` and `"` C-escaped inside Environment= quotes, and every
// value with a space quoted whole. systemd-analyze verify reads the result
// without a word of complaint.
func TestRenderEscapesOddPaths(t *testing.T) {
	dir := `/root/my lab %x/a$(touch /tmp/pwned)b/x}y/it's`
	kc := `/root/k %h/"q"\b/config`
	u := Unit{Engine: "shell", Argv: []string{"/bin/bash", "-c", "while true; do '" + dir + "/reconcile.sh'; sleep 3; done"},
		Kubeconfig: kc, Path: "/usr/bin:/bin", ArchiveDir: dir + "/archive", Dir: dir}
	b, err := u.Render()
	if err != nil {
		t.Fatal(err)
	}
	lines := unitLines(b)
	for _, want := range []string{
		`Environment="KUBECONFIG=/root/k %%h/\"q\"\\b/config"`,
		`Environment="CNPA_ARCHIVE_DIR=/root/my lab %%x/a$(touch /tmp/pwned)b/x}y/it's/archive"`,
		`ExecStart=/bin/bash -c "while true; do '/root/my lab %%x/a$$(touch /tmp/pwned)b/x}y/it's/reconcile.sh'; sleep 3; done"`,
		`ReadWritePaths="/root/my lab %%x/a$(touch /tmp/pwned)b/x}y/it's"`,
	} {
		if !lines[want] {
			t.Errorf("unit line %s is missing:\n%s", want, b)
		}
	}
	kit.VerifyUnit(t, b)
}

func TestExecStartWords(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"/usr/local/bin/cnpa", "controller", "--finalizer=true"}, `/usr/local/bin/cnpa controller --finalizer=true`},
		{[]string{"/x/cnpa", "--dir", "/root/50%off"}, `/x/cnpa --dir /root/50%%off`},
		{[]string{"/x/cnpa", "--dir", "/root/my lab"}, `/x/cnpa --dir "/root/my lab"`},
		{[]string{"/x/cnpa", "--dir", `/root/a"b\c`}, `/x/cnpa --dir "/root/a\"b\\c"`},
		{[]string{"/x/cnpa", "--dir", "/root/$HOME"}, `/x/cnpa --dir /root/$$HOME`},
		{[]string{"/x/cnpa", "--dir", "/root/it's"}, `/x/cnpa --dir "/root/it's"`},
		{[]string{"/x/cnpa", ";", ""}, `/x/cnpa ";" ""`},
		// No $VAR expansion in the program path: its $ stays single.
		{[]string{"/x/$a b/cnpa", "$a"}, `"/x/$a b/cnpa" $$a`},
	}
	for _, tt := range tests {
		if got := (Unit{Argv: tt.argv}).ExecStart(); got != tt.want {
			t.Errorf("ExecStart(%q): got %s, want %s", tt.argv, got, tt.want)
		}
	}
}

// What no unit line can carry is refused with the value and the fix, and
// nothing is written.
func TestRenderRefusesUncarriableValues(t *testing.T) {
	ok := Unit{Engine: "go", Argv: []string{"/x/cnpa", "controller"}, Kubeconfig: "/root/kc", Path: "/usr/bin", ArchiveDir: "/root/d/archive", Dir: "/root/d"}
	tests := []struct {
		name   string
		change func(*Unit)
		want   string
	}{
		{"newline in the kubeconfig", func(u *Unit) { u.Kubeconfig = "/root/kc\nExecStartPre=/bin/sh -c id" }, "the kubeconfig path"},
		{"newline in a word", func(u *Unit) { u.Argv = append(u.Argv, "a\nb") }, "word 3 of the command"},
		{"quote in the dir", func(u *Unit) { u.Dir = `/root/a"b` }, "ReadWritePaths="},
		{"backslash in the dir", func(u *Unit) { u.Dir = `/root/a\b` }, "ReadWritePaths="},
		{"quote in the program", func(u *Unit) { u.Argv[0] = "/root/it's/cnpa" }, "the program"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := ok
			u.Argv = append([]string{}, ok.Argv...)
			tt.change(&u)
			_, err := u.Render()
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "choose") {
				t.Errorf("Render: got %v, want an error naming %q and the fix", err, tt.want)
			}
		})
	}
}

// A unit that names the credentials directory (%d) says what goes into it,
// whoever it runs as: systemd sets $CREDENTIALS_DIRECTORY only for a unit
// with a LoadCredential= line. The admin identity names neither.
func TestCredentialIsLoadedWhereNamed(t *testing.T) {
	for _, u := range []Unit{
		{Credential: "/root/cnpa-op/cnpa-op.kubeconfig", User: User},
		{Credential: "/root/cnpa-op/cnpa-op.kubeconfig"},
		{Kubeconfig: "/etc/rancher/k3s/k3s.yaml"},
	} {
		u.Engine, u.Argv, u.Path, u.ArchiveDir, u.Dir = "go", []string{"/usr/local/bin/cnpa", "controller"}, "/usr/bin", "/root/cnpa-op/archive", "/root/cnpa-op"
		data, err := u.Render()
		if err != nil {
			t.Fatal(err)
		}
		unit := string(data)
		named := strings.Contains(unit, "%d/"+CredentialName)
		loaded := strings.Contains(unit, "\nLoadCredential="+CredentialName+":"+u.Credential+"\n")
		if named != (u.Credential != "") || loaded != named {
			t.Errorf("user %q credential %q: %%d named %v, LoadCredential= line %v; want both %v:\n%s", u.User, u.Credential, named, loaded, u.Credential != "", unit)
		}
	}
}

// ServedDir reads back the dir Render wrote, quotes, backslashes and %
// included; a hand-written unit names none.
func TestServedDir(t *testing.T) {
	for _, dir := range []string{"/root/cnpa-op", "/srv/lab one 100%"} {
		u := Unit{Engine: "shell", Argv: []string{"/bin/bash", "-c", "true"}, Kubeconfig: "/root/kc", Path: "/usr/bin",
			ArchiveDir: dir + "/archive", Dir: dir}
		data, err := u.Render()
		if err != nil {
			t.Fatal(err)
		}
		if got, ok := ServedDir(data); !ok || got != dir {
			t.Errorf("ServedDir of a unit for %q: got %q, %v", dir, got, ok)
		}
	}
	if _, ok := ServedDir([]byte("[Service]\nExecStart=/bin/bash -c 'while true; do /root/cnpa-op/reconcile.sh; sleep 3; done'\n")); ok {
		t.Error("a hand-written unit names no evidence dir")
	}
}

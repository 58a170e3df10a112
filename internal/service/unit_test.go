package service

import (
	"bytes"
	"strings"
	"testing"
	"text/template"

	"github.com/labhub/cnpa/assets"
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

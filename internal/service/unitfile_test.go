package service

import (
	"slices"
	"testing"
)

// A unit cnpa wrote is cnpa's until edited; a learner's never is.
func TestCnpaWrote(t *testing.T) {
	u := Unit{Engine: "own", Lab: true, Argv: []string{"/bin/bash", "-c", "while true; do /root/cnpa-op/reconcile.sh; sleep 3; done"},
		Kubeconfig: "/etc/rancher/k3s/k3s.yaml", Path: "/usr/bin", ArchiveDir: "/root/cnpa-op/archive", Dir: "/root/cnpa-op"}
	data, err := u.Render()
	if err != nil {
		t.Fatal(err)
	}
	marked := Mark(data)
	if !CnpaWrote(marked) {
		t.Errorf("cnpa's own unit is not cnpa's:\n%s", marked)
	}
	edited := append(slices.Clone(marked), "# mine now\n"...)
	if CnpaWrote(edited) {
		t.Error("an edited unit is still cnpa's")
	}
	if CnpaWrote([]byte("[Service]\nExecStart=/bin/true\nRestart=always\n")) {
		t.Error("a learner's unit is cnpa's")
	}
	// What an earlier cnpa rendered, unmarked, is cnpa's.
	old, _ := Unit{Engine: "go", Argv: []string{"/usr/local/bin/cnpa", "controller"}, Kubeconfig: "/k", Path: "/usr/bin",
		ArchiveDir: "/root/cnpa-op/archive", Dir: "/root/cnpa-op"}.Render()
	if !CnpaWrote(old) {
		t.Error("an unmarked unit of an earlier cnpa is not cnpa's")
	}
}

// ParseUnit reads LAB.md step 4's unit as systemd does.
func TestParseUnit(t *testing.T) {
	u, err := ParseUnit([]byte(`[Unit]
Description=x
[Service]
Environment="KUBECONFIG=/etc/rancher/k3s/k3s.yaml" A=b
ExecStart=/bin/bash -c 'while true; do /root/cnpa-op/reconcile.sh; \
  sleep 3; done'
Restart=on-failure
Restart=always
; a comment
[Install]
WantedBy=multi-user.target
`))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/bin/bash", "-c", "while true; do /root/cnpa-op/reconcile.sh;  sleep 3; done"}
	if !slices.Equal(u.Argv, want) || u.Restart != "always" || u.WantedBy != "multi-user.target" ||
		!slices.Equal(u.Environment, []string{"KUBECONFIG=/etc/rancher/k3s/k3s.yaml", "A=b"}) {
		t.Errorf("ParseUnit: %+v", u)
	}
}

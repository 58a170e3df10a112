package tether

import (
	"os/exec"
	"syscall"
	"testing"
)

func TestStartSetsPdeathsig(t *testing.T) {
	cmd := exec.Command("true")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := Start(cmd, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if got := cmd.SysProcAttr; got.Pdeathsig != syscall.SIGKILL || !got.Setpgid {
		t.Errorf("SysProcAttr: got %+v, want Pdeathsig SIGKILL and Setpgid kept", got)
	}
}

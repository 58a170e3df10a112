package main

import (
	"os/exec"
	"syscall"

	"github.com/labhub/cnpa/internal/tether"
)

// startTied starts cmd in its own process group, killed with the harness: a
// killed harness (or `go test` timing out) leaves no controller running
// against a dead control plane.
func startTied(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	// Its own group: pausing or stopping the shell loop reaches the kubectl
	// and jq it is running, and only them.
	cmd.SysProcAttr.Setpgid = true
	return tether.Start(cmd, syscall.SIGKILL)
}

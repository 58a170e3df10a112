package main

import (
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/labhub/cnpa/test/kit/tether"
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
	evictFromPageCache(cmd.Path)
	return tether.Start(cmd, syscall.SIGKILL)
}

// evictFromPageCache drops a binary's pages from the page cache before it
// starts, so every contender's file-backed RSS is measured from the same
// cold start. Why: the kernel maps a large page-cache folio whole on one
// fault, so how the binary got into the cache (just linked, copied, read
// by an earlier run) moved the same binary's file-backed RSS by 5 MiB
// between runs. Best effort: a binary that cannot be opened is measured
// as it is.
func evictFromPageCache(path string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	_ = f.Sync()
	_ = unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}

package main

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// Pdeathsig fires when the *thread* that started the child exits, and the Go
// runtime may retire threads. Starting every contender from one goroutine
// locked to a thread that never exits ties the contenders to the harness
// process instead: a killed harness (or `go test` timing out) leaves no
// controller running against a dead control plane. internal/testcluster
// does the same for the control plane itself.
var (
	spawnOnce sync.Once
	spawnReq  chan spawnJob
)

type spawnJob struct {
	cmd *exec.Cmd
	err chan error
}

// startTied starts cmd in its own process group, killed with the harness.
func startTied(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	// Its own group: pausing or stopping the shell loop reaches the kubectl
	// and jq it is running, and only them.
	cmd.SysProcAttr.Setpgid = true
	spawnOnce.Do(func() {
		spawnReq = make(chan spawnJob)
		go func() {
			runtime.LockOSThread() // never unlocked: this thread lives as long as the process
			for j := range spawnReq {
				j.err <- j.cmd.Start()
			}
		}()
	})
	j := spawnJob{cmd: cmd, err: make(chan error, 1)}
	spawnReq <- j
	return <-j.err
}

// Package tether starts child processes that die with this process, even
// when it panics or is killed: the tests' control plane, containers and
// controllers must never outlive the test binary.
package tether

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// Pdeathsig fires when the *thread* that started the child exits, and the Go
// runtime may retire threads. Starting every child from one goroutine locked
// to a thread that never exits ties the children to the process instead.
var (
	once     sync.Once
	requests chan request
)

type request struct {
	cmd *exec.Cmd
	err chan error
}

// Start starts cmd so that the kernel sends it sig when this process dies.
// It sets cmd.SysProcAttr.Pdeathsig (keeping the rest of SysProcAttr).
func Start(cmd *exec.Cmd, sig syscall.Signal) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = sig
	once.Do(func() {
		requests = make(chan request)
		go func() {
			runtime.LockOSThread() // never unlocked: this thread lives as long as the process
			for r := range requests {
				r.err <- r.cmd.Start()
			}
		}()
	})
	r := request{cmd: cmd, err: make(chan error, 1)}
	requests <- r
	return <-r.err
}

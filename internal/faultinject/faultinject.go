//go:build faultinject

// Package faultinject kills the process at a named point of a crash-safety
// path when CNPA_FAULT names that point, as a power cut or the OOM killer
// would: no deferred function runs, nothing is flushed. It exists only in
// builds with `-tags faultinject`, which is how the fault tests build cnpa
// (test/faults); the cnpa binary that ships has none of it.
package faultinject

import (
	"os"
	"syscall"
)

// The points a fault test can name in CNPA_FAULT.
const (
	// DuringWrite dies inside atomicfile.WriteFile with half the data in
	// the temp file. The controller's only atomic write is the archive
	// record, so there it is a crash in the middle of archiving.
	DuringWrite = "during-write"
	// AfterArchive dies once the archive record is in place, before the
	// controller removes its finalizer.
	AfterArchive = "after-archive"
)

var armed = os.Getenv("CNPA_FAULT")

// Armed tells whether CNPA_FAULT names point.
func Armed(point string) bool { return armed == point }

// Die kills the process with SIGKILL. For SIGKILL to itself the kernel ends
// every thread before the call returns, so nothing after it runs.
func Die() {
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
}

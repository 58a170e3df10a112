//go:build !faultinject

package controller

// afterArchive is called between the archive write and the finalizer removal.
// The faultinject build (fault_faultinject.go) can die there, so that the
// fault tests prove a restart finishes the job.
func afterArchive() {}

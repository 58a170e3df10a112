// Package archive is the promise our finalizer makes (LAB.md step 6): a
// TeamSpace being deleted is first archived, its record written to the
// archive dir, and only then released, by removing our finalizer and no
// other. The controller keeps that promise on every deletion; `cnpa reset`
// keeps it for the controller it has just removed. Both go through
// ThenRelease, each with its Policy for a record that cannot be written.
//
// It is a leaf beside evidence and teamspace, so that reset can keep the
// promise without importing the controller (its informers, workqueue and
// metrics), and the controller without importing reset.
package archive

import (
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Policy says what becomes of our finalizer when the archive record cannot
// be written.
type Policy int

const (
	// KeepFinalizer is the controller's policy: deletion stays blocked
	// until the record is on disk, since the record is what the finalizer
	// is for; the caller returns the error and retries with backoff.
	KeepFinalizer Policy = iota
	// ReleaseAnyway is reset's policy: a lab starting over must not stay
	// blocked by a record that cannot be written (a name too long for a
	// file, say), so the TeamSpace is released without it and the caller
	// says so.
	ReleaseAnyway
)

// Outcome is what ThenRelease did.
type Outcome struct {
	// Ours is false when the TeamSpace did not hold our finalizer: then
	// nothing was written or released, since it is not ours to hold.
	Ours bool
	// Archived: the record was written.
	Archived bool
	// ArchiveErr is why the record could not be written (nil when it was).
	// Under KeepFinalizer it is also the error ThenRelease returns.
	ArchiveErr error
	// Released: our finalizer was removed.
	Released bool
}

// Record is the archive record of ts: what stays of it once it is gone.
func Record(ts *teamspace.TeamSpace) evidence.ArchiveRecord {
	return evidence.ArchiveRecord{Name: ts.Name, UID: string(ts.UID), Pods: ts.Spec.Pods}
}

// ThenRelease archives ts and then releases it. Phases:
//
//  1. if ts does not hold our finalizer, nothing: other finalizers belong
//     to others;
//  2. write ts's Record (write); the record is on disk before the
//     finalizer goes, so a crash in between repeats the (idempotent)
//     write instead of losing the record;
//  3. if the write failed, policy decides: KeepFinalizer returns its
//     error, ReleaseAnyway goes on;
//  4. release: write the finalizer list without ours, every other entry
//     kept in order (release is expected to guard the write with the
//     resourceVersion ts was read at, teamspace.SetFinalizers).
//
// The error is the write's (KeepFinalizer) or the release's, unwrapped:
// each caller words it and decides what a NotFound or a Conflict means.
func ThenRelease(ts *teamspace.TeamSpace, policy Policy, write func(evidence.ArchiveRecord) error, release func(finalizers []string) error) (Outcome, error) {
	var out Outcome
	if !teamspace.HasFinalizer(ts.Finalizers, teamspace.Finalizer) {
		return out, nil
	}
	out.Ours = true
	if err := write(Record(ts)); err != nil {
		out.ArchiveErr = err
		if policy == KeepFinalizer {
			return out, err
		}
	} else {
		out.Archived = true
	}
	if err := release(teamspace.WithoutFinalizer(ts.Finalizers, teamspace.Finalizer)); err != nil {
		return out, err
	}
	out.Released = true
	return out, nil
}

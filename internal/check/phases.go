package check

import (
	"context"
	"sync"
	"time"
)

// The probes of the running controller share its passes, in three phases
// every probe goes through together, so that a check costs about three
// passes of the learner's loop instead of eight (docs/check.md, "How the
// probes share passes"):
//
//  1. make: every probe makes its TeamSpaces at once and waits for them
//     to be served (converged, our finalizer added, the witness served);
//  2. drift: only quotas are deleted and edited, and no TeamSpace
//     changes, so that an edge-triggered loop, woken only by a
//     TeamSpace's events, is not woken by another probe's;
//  3. delete: every probe deletes its TeamSpaces and judges what the
//     controller does with them.
//
// No probe deletes anything before phase 3, and no probe's verdict reads
// another's objects but the drift probe's, which is given step 4's
// TeamSpace once it converged (as before, one TeamSpace fewer to serve).
// A probe moves on with Session.Phase; every probe starts in PhaseMake.
const (
	PhaseMake = iota + 1
	PhaseDrift
	PhaseDelete
)

// phases is the barrier the probes of one run meet at. A probe that ends
// early (its verdict is in, or it cannot run) leaves, and nobody waits
// for it any more.
type phases struct {
	mu sync.Mutex
	// at is each member's phase; a member that left is not in it.
	at map[int]int
}

func newPhases() *phases { return &phases{at: map[int]int{}} }

// join adds member id, in phase 1.
func (p *phases) join(id int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.at[id] = PhaseMake
}

// leave removes member id: the others no longer wait for it.
func (p *phases) leave(id int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.at, id)
}

// reach moves member id to phase n and waits until every member is there
// or further, or ctx ends. Probes wait seconds for a controller, so a
// short poll costs nothing measurable and needs no wake-up on ctx.
func (p *phases) reach(ctx context.Context, id, n int) {
	p.mu.Lock()
	if _, ok := p.at[id]; ok {
		p.at[id] = n
	}
	p.mu.Unlock()
	for ctx.Err() == nil && !p.all(n) {
		select {
		case <-ctx.Done():
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// all tells whether every member is in phase n or later.
func (p *phases) all(n int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, at := range p.at {
		if at < n {
			return false
		}
	}
	return true
}

// memberKey carries a probe's member id in its context.
type memberKey struct{}

// Phase moves the probe that runs under ctx to phase n (PhaseDrift,
// PhaseDelete) and waits until every probe running beside it is there or
// further, or ctx ends (phases.reach); a probe run alone (no phases) goes
// on at once. A probe calls it before it does what phase n allows: edit a
// quota, delete a TeamSpace.
func (r *Session) Phase(ctx context.Context, n int) {
	id, ok := ctx.Value(memberKey{}).(int)
	if r.phases == nil || !ok {
		return
	}
	r.phases.reach(ctx, id, n)
}

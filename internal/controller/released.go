package controller

import (
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
)

// releasedTTL is how long a released TeamSpace is remembered: far longer
// than an informer lags behind on any machine that still runs the lab.
const releasedTTL = 10 * time.Minute

// released remembers, by uid, the TeamSpaces this controller archived and
// released (or found already gone when it came to release them).
//
// Why: the informer can still hold a released TeamSpace, being deleted,
// until it delivers the deletion, and a sync then (an event, or the
// periodic pass every Interval) would archive it again: a record written
// after the TeamSpace is gone, after whoever deleted it may have removed
// the record (cnpa check does, for its temporary TeamSpaces). Not a memo
// in written: those live writtenTTL, 3 s, and on a loaded machine the
// deletion came later. A uid is never reused, so a TeamSpace released
// once needs nothing more.
type released struct {
	mu sync.Mutex
	at map[types.UID]time.Time
}

func newReleased() *released { return &released{at: map[types.UID]time.Time{}} }

// add remembers uid as released now.
func (r *released) add(uid types.UID) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.at) >= 1024 {
		for u, t := range r.at {
			if time.Since(t) > releasedTTL {
				delete(r.at, u)
			}
		}
	}
	r.at[uid] = time.Now()
}

// has tells whether uid was released within releasedTTL.
func (r *released) has(uid types.UID) bool {
	if r == nil {
		return false
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.at[uid]
	return ok && time.Since(t) <= releasedTTL
}

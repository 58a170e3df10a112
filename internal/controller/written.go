package controller

import (
	"sync"
	"time"
)

// writtenTTL bounds how long a write may stay unseen by the informers
// before the cache is trusted again. Watches deliver our own writes in
// milliseconds; the bound matters only when the awaited event never comes
// (a re-list that skipped it, or a write that changed nothing and so made
// no event), and then it is as long as a memo can hold back a sync.
const writtenTTL = 3 * time.Second

// written remembers the writes this controller made that its informers have
// not delivered yet, in the spirit of kube-controller-manager's
// "expectations".
//
// Why: a sync's own writes (finalizer, namespace, quota, status) each
// trigger an event, and the sync those events cause often runs before the
// last of them reached the cache. Trusting that cache would create the
// namespace again (AlreadyExists, then a GET), apply the quota again, patch
// status again and emit a second Synced event: four to five needless
// requests per new TeamSpace. With the memo, a sync that finds the cache
// behind a write it made itself, with the same intent, leaves it alone.
//
// A memo is cleared when the informer delivers the object at the
// resourceVersion our write returned, or its deletion; so anyone else's
// change after ours is always seen and acted on. The watch event can beat
// the write's own response, so a memo exists from before the request
// (begin) and remembers what was delivered while it was in flight.
type written struct {
	mu sync.Mutex
	m  map[string]*writtenEntry
}

type writtenEntry struct {
	intent string // what is written, e.g. the quota's hard limits
	rv     string // resourceVersion the write returned; "" while in flight
	at     time.Time
	// delivered while in flight: resourceVersions, "" for a deletion.
	delivered []string
	gone      chan struct{} // closed when the memo goes; see wait
}

func newWritten() *written { return &written{m: map[string]*writtenEntry{}} }

// begin records that key is about to be written with intent. The caller
// must call end with the outcome.
func (w *written) begin(key, intent string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.m) >= 4096 {
		// Entries whose event never came would otherwise stay forever.
		for k, e := range w.m {
			if time.Since(e.at) > writtenTTL {
				w.drop(k)
			}
		}
	}
	w.drop(key)
	w.m[key] = &writtenEntry{intent: intent, at: time.Now(), gone: make(chan struct{})}
}

// drop removes key's memo and wakes its waiters; w.mu must be held.
func (w *written) drop(key string) {
	if e, ok := w.m[key]; ok {
		close(e.gone)
		delete(w.m, key)
	}
}

// wait blocks until key's write has reached the cache (or failed, or its
// memo expired), for at most d. It returns at once without a memo.
func (w *written) wait(key string, d time.Duration) {
	if w == nil {
		return
	}
	w.mu.Lock()
	e, ok := w.m[key]
	w.mu.Unlock()
	if !ok {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-e.gone:
	case <-t.C:
	}
}

// end completes begin: rv is what the write returned, err its failure.
func (w *written) end(key, rv string, err error) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.m[key]
	if !ok {
		return
	}
	if err != nil || rv == "" {
		w.drop(key)
		return
	}
	for _, d := range e.delivered {
		if d == "" || d == rv {
			// Already in the cache, or something was deleted meanwhile:
			// nothing to wait for, the cache is the truth again.
			w.drop(key)
			return
		}
	}
	e.rv, e.delivered, e.at = rv, nil, time.Now()
}

// pending tells whether key was written with this same intent and the
// informer has not delivered that write yet.
func (w *written) pending(key, intent string) bool {
	if w == nil {
		return false
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.m[key]
	if !ok || e.rv == "" {
		return false
	}
	if time.Since(e.at) > writtenTTL {
		w.drop(key)
		return false
	}
	return e.intent == intent
}

// seen is called for every object an informer delivers under key: once it
// shows the resourceVersion of our write (or rv is empty: deleted), the
// cache has caught up and the memo goes.
func (w *written) seen(key, rv string) {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.m[key]
	switch {
	case !ok:
	case e.rv == "":
		e.delivered = append(e.delivered, rv)
	case rv == "" || rv == e.rv:
		w.drop(key)
	}
}

package controller

import (
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// TestWritten walks one memo through its life: noted, trusted while the
// cache lags, cleared by the event carrying our resourceVersion, and by a
// deletion, never by someone else's older or newer version.
func TestWritten(t *testing.T) {
	w := newWritten()
	w.begin("quota/team-a/team-quota", "a/5/1")
	if w.pending("quota/team-a/team-quota", "a/5/1") {
		t.Fatal("pending while the write is in flight: got true, want false")
	}
	w.end("quota/team-a/team-quota", "100", nil)

	if !w.pending("quota/team-a/team-quota", "a/5/1") {
		t.Fatal("pending right after note: got false, want true")
	}
	if w.pending("quota/team-a/team-quota", "a/6/1") {
		t.Error("pending with another intent (the spec moved on): got true, want false")
	}
	w.seen("quota/team-a/team-quota", "99") // an older version still arriving
	if !w.pending("quota/team-a/team-quota", "a/5/1") {
		t.Error("pending after an older version was seen: got false, want true")
	}
	w.seen("quota/team-a/team-quota", "100")
	if w.pending("quota/team-a/team-quota", "a/5/1") {
		t.Error("pending after our version was seen: got true, want false")
	}

	w.begin("namespace/team-b", "uid-b")
	w.end("namespace/team-b", "200", nil)
	w.seen("namespace/team-b", "") // deleted before its add event was handled
	if w.pending("namespace/team-b", "uid-b") {
		t.Error("pending after a deletion: got true, want false")
	}

	// The watch event beats the write's response: the memo must not wait
	// for an event that has already come.
	w.begin("status/c", "uid-c/2/team-c")
	w.seen("status/c", "300")
	w.end("status/c", "300", nil)
	if w.pending("status/c", "uid-c/2/team-c") {
		t.Error("pending after our version was delivered during the write: got true, want false")
	}
	w.begin("status/d", "uid-d/1/team-d")
	w.seen("status/d", "299") // someone else's, older
	w.end("status/d", "301", nil)
	if !w.pending("status/d", "uid-d/1/team-d") {
		t.Error("pending after only an older version was delivered during the write: got false, want true")
	}
	w.begin("status/e", "uid-e/1/team-e")
	w.end("status/e", "", errors.New("conflict"))
	if w.pending("status/e", "uid-e/1/team-e") {
		t.Error("pending after a failed write: got true, want false")
	}

	var none *written // Once has no informers and no memo
	none.begin("status/x", "i")
	none.end("status/x", "1", nil)
	if none.pending("status/x", "i") {
		t.Error("nil memo pending: got true, want false")
	}
}

// TestWrittenWait: wait returns when the awaited event arrives, at once
// without a memo, and after its bound when the event never comes.
func TestWrittenWait(t *testing.T) {
	w := newWritten()
	start := time.Now()
	w.wait("namespace/none", time.Second)
	if d := time.Since(start); d > 50*time.Millisecond {
		t.Errorf("wait without a memo took %s, want at once", d)
	}

	w.begin("namespace/team-a", "uid-a")
	w.end("namespace/team-a", "100", nil)
	// Ordered by events, not by the clock (a timer's 20 ms measured from
	// before wait began read 19.8 ms under load): wait may return only
	// after seen, and must return then, well before its minute.
	var delivered atomic.Bool
	time.AfterFunc(20*time.Millisecond, func() { delivered.Store(true); w.seen("namespace/team-a", "100") })
	returned := make(chan struct{})
	go func() { w.wait("namespace/team-a", time.Minute); close(returned) }()
	select {
	case <-returned:
		if !delivered.Load() {
			t.Error("wait for a write returned before its event was seen")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("wait for a delivered write did not return after the event was seen")
	}

	w.begin("namespace/team-b", "uid-b")
	w.end("namespace/team-b", "200", nil)
	start = time.Now()
	w.wait("namespace/team-b", 30*time.Millisecond)
	if d := time.Since(start); d < 30*time.Millisecond {
		t.Errorf("wait for a write never delivered returned after %s, want its 30 ms bound", d)
	}
}

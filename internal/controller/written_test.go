package controller

import "testing"

// TestWritten walks one memo through its life: noted, trusted while the
// cache lags, cleared by the event carrying our resourceVersion, and by a
// deletion, never by someone else's older or newer version.
func TestWritten(t *testing.T) {
	w := newWritten()
	w.note("quota/team-a/team-quota", "a/5/1", "100")

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

	w.note("namespace/team-b", "uid-b", "200")
	w.seen("namespace/team-b", "") // deleted before its add event was handled
	if w.pending("namespace/team-b", "uid-b") {
		t.Error("pending after a deletion: got true, want false")
	}

	var none *written // Once has no informers and no memo
	none.note("status/x", "i", "1")
	if none.pending("status/x", "i") {
		t.Error("nil memo pending: got true, want false")
	}
}

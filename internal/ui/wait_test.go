package ui

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestWaitOnTerminal(t *testing.T) {
	var buf bytes.Buffer
	p := &Printer{W: &buf, Terminal: true}
	w := p.wait("team-beta to be garbage-collected", "the garbage collector rescans on its own period", time.Now())
	w.Tick(1 * time.Second)
	w.Tick(2 * time.Second)
	w.end("team-beta gone", 2500*time.Millisecond)
	want := "  … waiting for team-beta to be garbage-collected\n" +
		"    why: the garbage collector rescans on its own period\n" +
		"\r    1s elapsed\033[K" +
		"\r    2s elapsed\033[K" +
		"\r    team-beta gone after 2.5s\033[K\n"
	if got := buf.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestWaitNotOnTerminal(t *testing.T) {
	var buf bytes.Buffer
	p := &Printer{W: &buf}
	w := p.wait("alpha to catch up", "", time.Now())
	for s := 1; s <= 25; s++ {
		w.Tick(time.Duration(s) * time.Second)
	}
	w.end("caught up", 25*time.Second)
	w.Tick(30 * time.Second) // after the end: nothing more
	want := "  … waiting for alpha to catch up\n" +
		"    … still waiting for alpha to catch up (10s)\n" +
		"    … still waiting for alpha to catch up (20s)\n" +
		"    caught up after 25s\n"
	got := buf.String()
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if strings.ContainsAny(got, "\r\033") {
		t.Errorf("control characters in plain output: %q", got)
	}
}

// Wait's own ticker and Done end cleanly, and Done is said once.
func TestWaitDone(t *testing.T) {
	var buf bytes.Buffer
	p := &Printer{W: &buf}
	w := p.Wait("nothing", "")
	w.Done("done")
	w.Done("again")
	if n := strings.Count(buf.String(), "after"); n != 1 {
		t.Errorf("got %d outcome lines, want 1: %q", n, buf.String())
	}
}

package ui

import (
	"fmt"
	"sync"
	"time"

	"github.com/labhub/cnpa/internal/i18n"
)

// Live waits. A step that waits says what it waits for and why before the
// wait starts, then shows that time passes: on a terminal one line with an
// elapsed counter, rewritten in place with \r; elsewhere (a log, a pipe, CI)
// a plain progress line every ProgressEvery, so that a captured run reads
// top to bottom without control characters.

// ProgressEvery is how often a wait not on a terminal prints a line.
const ProgressEvery = 10 * time.Second

// Wait is one live wait, begun by Printer.Wait and ended by Done.
type Wait struct {
	p        *Printer
	what     string
	start    time.Time
	mu       sync.Mutex
	ended    bool
	lastLine time.Duration // the elapsed time of the last plain progress line
	// stop ends the ticking goroutine, stopped says it has ended; both
	// nil when nothing ticks (tests call Tick themselves).
	stop, stopped chan struct{}
}

// Wait starts showing a wait for what (a phrase: "team-beta to be
// garbage-collected"), with why it takes the time it takes (empty when
// there is nothing to say). It ticks by itself once a second until Done.
func (p *Printer) Wait(what, why string) *Wait {
	w := p.wait(what, why, time.Now())
	w.stop, w.stopped = make(chan struct{}), make(chan struct{})
	go w.run(w.stop)
	return w
}

// wait is Wait without the ticking goroutine: tests drive Tick by hand.
func (p *Printer) wait(what, why string, start time.Time) *Wait {
	w := &Wait{p: p, what: what, start: start}
	fmt.Fprintln(p.W, Indent("  ", "    ", i18n.T("wait.waiting", i18n.Args{"What": what}), Cols))
	if why != "" {
		// the why's next lines line up under its first, within 80
		// columns in every language
		fmt.Fprintln(p.W, p.paint(faint, Hang("    "+i18n.T("wait.why"), why)))
	}
	return w
}

func (w *Wait) run(stop <-chan struct{}) {
	defer close(w.stopped)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-t.C:
			w.Tick(now.Sub(w.start))
		}
	}
}

// Tick shows that elapsed has passed: the counter line on a terminal, a
// progress line every ProgressEvery elsewhere.
func (w *Wait) Tick(elapsed time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended {
		return
	}
	if w.p.Terminal {
		fmt.Fprintf(w.p.W, "\r    %s\033[K", i18n.T("wait.elapsed", i18n.Args{"Elapsed": elapsed.Round(time.Second)}))
		return
	}
	if elapsed-w.lastLine >= ProgressEvery {
		w.lastLine = elapsed - elapsed%ProgressEvery
		fmt.Fprintf(w.p.W, "    %s\n", i18n.T("wait.still", i18n.Args{"What": w.what, "Elapsed": w.lastLine}))
	}
}

// Done ends the wait with its outcome ("gone", "gave up: …"), said with
// the time it took; on a terminal it replaces the counter line.
func (w *Wait) Done(outcome string) time.Duration {
	w.mu.Lock()
	stop := w.stop
	w.stop = nil
	w.mu.Unlock()
	if stop != nil {
		close(stop)
		<-w.stopped
	}
	return w.end(outcome, time.Since(w.start))
}

// Waited is the outcome of a wait for a span of time (step 7's 8 s), not
// for a condition: Done(Waited) prints "waited 8.117s".
const Waited = "waited"

func (w *Wait) end(outcome string, took time.Duration) time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ended {
		return took
	}
	w.ended = true
	line := "    " + i18n.T("wait.after", i18n.Args{"Outcome": outcome, "Took": took.Round(time.Millisecond)})
	if outcome == Waited {
		// A wait for time itself ends without an event to come "after".
		line = "    " + i18n.T("wait.waited", i18n.Args{"Took": took.Round(time.Millisecond)})
	}
	if w.p.Terminal {
		fmt.Fprintf(w.p.W, "\r%s\033[K\n", line)
		return took
	}
	fmt.Fprintln(w.p.W, line)
	return took
}

package check

import (
	"sync"
	"time"

	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/ui"
)

// Session is one grading's state, handed to each probe's hand. Its
// exported methods are what the hands in the step folders
// (course/stepN/probe*.go) may use of it: the lab's environment and the
// facts read once, the temporary TeamSpaces, the phases, and what step
// 4's, 5's and 6's probes hand on to each other while they run together.
type Session struct {
	env *labenv.Env
	// svc is the service as this run sees it: env's on the learner's
	// machine, the one the learner's run reported from another.
	svc   service.Manager
	facts *judge.Facts
	tmp   *temps
	opts  Options
	at    judge.Where
	// phases keeps the probes of the running controller in step while
	// they run together (phases.go).
	phases *phases

	// mu guards what step 4's probe tells the others, which run beside it.
	mu sync.Mutex
	// converged is how long step 4's probe took to converge; it did not
	// when convergeFailed.
	converged      time.Duration
	convergeFailed bool
	// blockedAt is the TeamSpace at which every pass stopped before step
	// 4's probe's, for step 5's mistake (ConvergeBlocked).
	blockedAt string
	// handedOn is step 4's probe's TeamSpace, converged and kept for the
	// drift probe, which deletes its quota: one TeamSpace fewer to make
	// and serve. Whoever takes it removes it, in phase 3.
	handedOn *teamspace.TeamSpace
	// lent is step 6's probe's TeamSpace, whose quota the drift probe
	// may edit in phase 2 while step 4's is deleted: step 6's probe
	// judges only its finalizers, and deletes it itself in phase 3.
	lent *teamspace.TeamSpace
}

// RemoveLater tells whether a probe may leave the TeamSpaces whose
// verdict is in to the run's last cleanup instead of removing them
// itself: the caller takes the verdicts before that cleanup
// (Options.Judged). A probe whose verdict judges the removal (step 6's)
// removes its own all the same.
func (r *Session) RemoveLater() bool { return r.opts.Judged != nil }

// Env is the lab's environment being graded: a probe's clients, its
// evidence dir and reconcile.sh.
func (r *Session) Env() *labenv.Env { return r.env }

// Facts are the facts read once before anything was judged: a probe's
// hint is worded for them (the engine, who wrote reconcile.sh).
func (r *Session) Facts() *judge.Facts { return r.facts }

// Temps are this run's temporary TeamSpaces: a probe makes its own
// through them, so that they are removed however the run ends.
func (r *Session) Temps() *Temps { return &Temps{t: r.tmp} }

// Timeout bounds each of a probe's waits on the controller (--timeout).
func (r *Session) Timeout() time.Duration { return r.opts.ProbeTimeout }

// Note tells the learner what a probe is about to do, indented under the
// check's progress (stderr), so that a wait of seconds says what it is.
func (r *Session) Note(what string) {
	r.opts.Progress.Note("%s", ui.Indent("", "  ", what, ui.Cols))
}

// The handing-on between the probes of steps 4, 5 and 6, which run
// together (docs/check.md, "How the probes share passes"): step 4's probe
// hands its converged TeamSpace on to the drift probe, which deletes its
// quota, and step 6's lends its own, whose quota the drift probe edits:
// two TeamSpaces fewer to make and serve. The drift probe's hand says
// that it takes them (Hand.TakesHandedOn); no probe names another but
// through these methods and the other's row (Session.Runs).

// DriftPods is spec.pods of the TeamSpaces whose quotas the drift probe
// deletes and edits: step 4's handed on, step 6's lent, its own. Every
// probe that hands one on or lends one makes it with DriftPods, so that
// the one expected value the drift verdict names holds for all of them.
const DriftPods = 2

// Lend records step 6's TeamSpace for the drift probe, which may edit its
// quota in phase 2; step 6's probe still deletes it itself, in phase 3.
func (r *Session) Lend(ts *teamspace.TeamSpace) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.lent = ts
}

// Borrowed is step 6's TeamSpace (Lend), nil when its probe lent none.
func (r *Session) Borrowed() *teamspace.TeamSpace {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.lent
}

// ConvergeDone records step 4's probe's outcome for the probes beside it:
// how long ts took to converge, and whether it did (ok). A converged ts
// is handed on when a hand that takes it (Hand.TakesHandedOn) runs here;
// ConvergeDone tells whether it was. When it was not, ts is still the
// caller's to delete, in phase 3.
func (r *Session) ConvergeDone(took time.Duration, ok bool, ts *teamspace.TeamSpace) (handedOn bool) {
	handedOn = ok && ts != nil && r.takerRuns()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.converged, r.convergeFailed, r.handedOn = took, !ok, nil
	if handedOn {
		r.handedOn = ts
	}
	return handedOn
}

// ConvergeBlocked records, before ConvergeDone, that step 4's TeamSpace
// was not served for another step's mistake: every pass of the
// controller ends at a TeamSpace listed before it, whose apply is refused
// for a field step 5's edit holds. Step 4 is then not judged, and the
// drift probe fails for that reason (BlockedAt) instead of being skipped.
// at is the TeamSpace where every pass ends.
func (r *Session) ConvergeBlocked(at string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.blockedAt = at
}

// BlockedAt is what ConvergeBlocked recorded, "" when nothing did.
func (r *Session) BlockedAt() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.blockedAt
}

// takerRuns tells whether a hand that takes step 4's TeamSpace runs in
// this run, here: step 4's probe keeps its TeamSpace for it, and it makes
// its own when step 4's does not run (Runs).
func (r *Session) takerRuns() bool {
	for _, h := range r.opts.Steps.Hands() {
		if h.TakesHandedOn && r.handRuns(h) {
			return true
		}
	}
	return false
}

// ConvergeOutcome is what step 4's probe recorded (ConvergeDone): how
// long it took, and whether it failed (false while it has not ended, or
// did not run). The drift probe is skipped after a failure; the
// foreign-namespace probe waits for its witness by how long it took.
func (r *Session) ConvergeOutcome() (took time.Duration, failed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.converged, r.convergeFailed
}

// TakeHandedOn returns step 4's converged TeamSpace, once: whoever takes
// it deletes it, in phase 3 (the hands' loop does when nobody did).
func (r *Session) TakeHandedOn() *teamspace.TeamSpace {
	r.mu.Lock()
	defer r.mu.Unlock()
	ts := r.handedOn
	r.handedOn = nil
	return ts
}

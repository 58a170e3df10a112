// Package watch is `cnpa watch`, the learner's loop: it follows the
// learner's files (fsnotify, files.go) and the cluster (informers,
// cluster.go), and on every change judges again the step the learner is
// on and the steps after it, with `cnpa check`'s own judgement of one
// step (check.Run with Options.Step): there is no second grader here. The
// model (model.go) is a plain value fed with keys, files and verdicts; the
// view (render.go) draws it as a screen on a terminal, as plain lines
// elsewhere, or as one JSON object a verdict (-o json). It never writes a
// learner's file; the step it is on is kept in <dir>/.cnpa/watch.json.
package watch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/service"
)

// Ask is what one judgement may do beyond reading the files and the
// facts.
type Ask struct {
	// Script: run the probes that run the learner's script (step 3's
	// reruns). They act as the controller, so watch asks for them only
	// when the learner saved the script or asked (a key), never on a
	// change of the cluster, while a `cnpa step` runs or while the lab has
	// the service stopped (Options.Held).
	Script bool
	// Live: run the step's probes of the running controller, which wait
	// on it.
	Live bool
	// Judged, when set, is given the report as soon as its verdicts are
	// in, before the probes' temporary TeamSpaces are removed
	// (check.Options.Judged); the Judger returns once they are.
	Judged func(*judge.Report)
}

// Judger judges step (0: every step) as `cnpa check --step N` does,
// with the probes ask allows.
type Judger func(ctx context.Context, step int, ask Ask) (*judge.Report, error)

// CheckJudger is `cnpa check --step N` as a Judger: check.Run for one
// step (or all), leaving out the probes ask does not allow, each probe
// waiting at most timeout for the controller.
func CheckJudger(steps check.Table, env *labenv.Env, timeout time.Duration) Judger {
	return func(ctx context.Context, step int, ask Ask) (*judge.Report, error) {
		leave := check.LeaveScript | check.LeaveController
		if ask.Script {
			leave &^= check.LeaveScript
		}
		if ask.Live {
			leave &^= check.LeaveController
		}
		rep, _, err := check.Run(ctx, env, check.Options{Steps: steps, Step: step, ProbeTimeout: timeout, Leave: leave, Judged: ask.Judged})
		return rep, err
	}
}

// Probes are the lab's probes as watch plans them: by check id, the step
// of each that runs the learner's script, and of each that waits on the
// running controller.
type Probes struct {
	Script, Live map[string]int
}

// ProbesOf are steps' probes, from their rows.
func ProbesOf(steps check.Table) Probes {
	p := Probes{Script: map[string]int{}, Live: map[string]int{}}
	for _, h := range steps.Hands() {
		for _, row := range h.Rows {
			switch {
			case row.Script:
				p.Script[row.ID] = row.Step
			case row.Controller:
				p.Live[row.ID] = row.Step
			}
		}
	}
	return p
}

// ids are the ids of kind among step n's.
func ids(kind map[string]int, n int) map[string]bool {
	out := map[string]bool{}
	for id, s := range kind {
		if s == n {
			out[id] = true
		}
	}
	return out
}

// Held is why the learner's script may not run now, "" when it may: a
// `cnpa step` runs, or the lab has the service stopped (installed and
// not running: step 7 measures what happens while nothing reconciles, and
// a rerun of the script would be the controller it stopped).
func Held(env *labenv.Env) func(ctx context.Context) string {
	return func(ctx context.Context) string {
		if r, ok := labenv.StepRunning(env.Dir); ok {
			return i18n.T("watch.held.step", i18n.Args{"N": r.Step, "Script": lab.ScriptName})
		}
		st, err := env.Service.Status(ctx)
		if err == nil && st.Installed && !st.Active {
			return i18n.T("watch.held.stopped", i18n.Args{"Script": lab.ScriptName, "Unit": service.Name})
		}
		return ""
	}
}

// Format is how verdicts are shown.
type Format int

const (
	// Screen redraws the whole screen on a terminal.
	Screen Format = iota
	// Plain prints lines: what each judgement found that fails or changed.
	Plain
	// JSON prints one JSON object a verdict, a line each (Verdict).
	JSON
)

// Options are what one Run needs; the sources are channels so that tests
// feed them by hand.
type Options struct {
	// Steps is the lab's steps (course.Steps).
	Steps  lab.Table
	Dir    string
	View   *View
	Format Format
	// Out gets the screen, the lines or the JSON; Err the notices under
	// JSON (stdout stays machine-readable).
	Out, Err io.Writer
	Judge    Judger
	// Probes are the lab's probes (ProbesOf): which run the script, which
	// wait on the controller.
	Probes Probes
	// Held says why the learner's script may not run now (Held); nil: it
	// always may.
	Held func(ctx context.Context) string
	// Keys, Files, Changed and Down are the sources: key presses, the
	// learner's files after each burst of saves, the cluster's changes
	// and its watches failing. A nil one never sends.
	Keys  <-chan rune
	Files <-chan []Change
	// Notes are the file watcher's own problems (a dir it cannot watch).
	Notes   <-chan string
	Changed <-chan struct{}
	Down    <-chan error
	// UnitPath is the unit's path, for the notice that a changed unit
	// needs a restart.
	UnitPath string
	// Retry is the wait before asking a cluster that went away again
	// (default 3 s).
	Retry time.Duration
	// Poll is how often watch looks for a running `cnpa step` and for a
	// reset (its position gone) (default 250 ms).
	Poll time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// What a result is.
type kind int

const (
	// quickKind: every step's files and facts, no probe.
	quickKind kind = iota
	// scriptKind: every step with the script's probes, agreed on.
	scriptKind
	// liveKind: one step with its probes of the running controller.
	liveKind
	// startKind: step is about to be judged with probes.
	startKind
	// heldKind: the script may not run now (why).
	heldKind
	// doneKind: the plan ended.
	doneKind
)

// result is one judgement's outcome, or a plan's progress.
type result struct {
	kind kind
	gen  int
	step int
	rep  *judge.Report
	err  error
	at   time.Time
	why  string
	// started is when the judgement began: what it says of the files and
	// the facts is of that moment.
	started time.Time
}

// plan is what a judgement with probes does, after the quick look at
// every step: the script's probes (script), then each step's probes of
// the running controller (live, in order: the current step first).
type plan struct {
	script bool
	live   []int
	// lead: live[0] is the current step, judged before the script's
	// probes, which are another step's.
	lead bool
}

func (p plan) empty() bool { return !p.script && len(p.live) == 0 }

// merge is p and q together: a plan superseded by q keeps what it had
// still to do; q's order first.
func (p plan) merge(q plan) plan {
	out := plan{script: p.script || q.script} // lead is set when it runs
	seen := map[int]bool{}
	for _, n := range append(append([]int{}, q.live...), p.live...) {
		if !seen[n] {
			seen[n] = true
			out.live = append(out.live, n)
		}
	}
	return out
}

// without is p with step n's live judgement done.
func (p plan) without(n int) plan {
	out := plan{script: p.script}
	for _, m := range p.live {
		if m != n {
			out.live = append(out.live, m)
		}
	}
	return out
}

// The loop's timings.
const (
	// clusterQuiet gathers a burst of the cluster's changes (a pass of
	// the controller writes several objects) into one judgement.
	clusterQuiet = 250 * time.Millisecond
	// liveAgain is the least time between two judgements of the current
	// step's live probes that a change of the cluster asks for: a
	// controller that writes on every pass would otherwise keep them
	// running.
	liveAgain = 5 * time.Second
	// maxScriptRuns bounds the judgements of the script's probes one save
	// makes while they do not agree (a first rerun that cleans up what
	// the previous version wrote is a write; the next is not).
	maxScriptRuns = 3
	// heldEvery is how often a held script is asked after again.
	heldEvery = 2 * time.Second
)

type loop struct {
	o   Options
	ctx context.Context
	m   *Model
	// factsAt is when the judgement whose files and facts are shown
	// began: an older one that ends later (a controller's probes take
	// seconds, and a saved file is looked at in a fraction of one) gives
	// only its probes' verdicts, never its older look at the files.
	factsAt time.Time
	// wg is every judgement running: watch ends once they have, so that
	// the probes' temporary TeamSpaces are removed (check.Run removes
	// them on every path, a cancelled one too) before the process goes.
	wg sync.WaitGroup
	// results gets every judgement's outcome; gen tells a cancelled one.
	results chan result
	// The quick look at every step: one at a time, a newer one cancels
	// the older, and again asks for one more after it.
	quickGen  int
	quickStop context.CancelFunc
	quickBusy bool
	again     bool
	// The plan running (planBusy), what it has still to do (pending), and
	// what waits for a `cnpa step` to end (waiting).
	planGen  int
	planStop context.CancelFunc
	planBusy bool
	pending  plan
	waiting  plan
	// last is what a judgement the cluster did not answer had left,
	// judged again when it comes back.
	last plan
	// liveDone is when the last plan ended.
	liveDone time.Time
	// held: a saved script waits for the lab to let it run.
	held     bool
	heldAt   time.Time
	cluster  *time.Timer
	liveWait *time.Timer
	retry    *time.Timer
	// kept: watch saved its position, whose disappearance says the lab
	// was reset; follow: since then the learner is where the evidence says.
	kept   bool
	follow bool
}

// Run is watch until ctx ends or the learner quits. Phases:
//  1. the position: where watch last left the learner, else the first
//     step whose evidence is not written (FirstUndone);
//  2. a quick look at every step (its files and the facts, no probe),
//     then the current step's probes;
//  3. on each event: a key (Model.Key: a step, the current one again, or
//     all of them, with the script's probes); a burst of saved files (the
//     quick look at once; a saved reconcile.sh runs the script's probes
//     and then the controller's of every step; a file cut short mid-write
//     is only said, and waits for the next save); a change in the cluster
//     (the quick look, and the current step's live probes at most every
//     liveAgain; never the script); a cluster gone (said, asked again
//     every Retry until it answers). A new plan cancels the one running
//     and does what it had left; nothing is judged while a `cnpa step`
//     runs, and everything is when it ends.
func Run(ctx context.Context, o Options) error {
	if o.Retry <= 0 {
		o.Retry = 3 * time.Second
	}
	if o.Poll <= 0 {
		o.Poll = 250 * time.Millisecond
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Held == nil {
		o.Held = func(context.Context) string { return "" }
	}
	l := &loop{o: o, ctx: ctx, results: make(chan result), quickStop: func() {}, planStop: func() {}}
	start := LoadPosition(o.Steps, o.Dir)
	resumed := start != 0
	if !resumed {
		start = FirstUndone(o.Steps, o.Dir)
	}
	l.m = NewModel(o.Steps, start)
	if resumed {
		l.notice("", i18n.T("watch.resumed", i18n.Args{"N": start}))
	}
	l.keep()
	l.retry, l.cluster, l.liveWait = stopped(), stopped(), stopped()
	poll := time.NewTicker(o.Poll)
	defer poll.Stop()
	defer func() {
		l.quickStop()
		l.planStop()
		if l.planBusy {
			// A quit right after a verdict: its probes' TeamSpaces may
			// still be on their way out (check.Options.Judged).
			if l.o.Format == Screen { // the screen is drawn no more
				for _, line := range fit("! ", i18n.T("watch.cleaning_up"), Columns, "  ") {
					fmt.Fprint(l.o.Out, line+"\r\n")
				}
			} else {
				l.notice("", i18n.T("watch.cleaning_up"))
			}
		}
		l.wg.Wait()
	}()
	l.poll()
	l.judge(l.current(true))
	l.draw()
	for {
		select {
		case <-ctx.Done():
			return nil
		case k := <-o.Keys:
			switch l.m.Key(k) {
			case Quit:
				if o.Format == Screen {
					fmt.Fprint(o.Out, "\r\n")
				}
				return nil
			case JudgeCurrent:
				l.follow = false
				l.keep()
				l.judge(l.current(true))
			case CheckAll:
				l.judge(plan{script: true, live: l.liveSteps()})
			}
		case cs := <-o.Files:
			l.files(cs)
		case <-o.Changed:
			// A pass of the controller writes several objects: judged once.
			l.cluster.Reset(clusterQuiet)
		case <-l.cluster.C:
			l.changed()
		case <-l.liveWait.C:
			l.changed()
		case s := <-o.Notes:
			l.notice("", s)
		case err := <-o.Down:
			if l.m.Down == "" {
				l.down(err)
				l.retry.Reset(o.Retry)
			}
		case <-l.retry.C:
			l.judge(l.last)
		case <-poll.C:
			l.poll()
		case r := <-l.results:
			l.result(r)
		}
		l.draw()
	}
}

// stopped is a timer that has not started.
func stopped() *time.Timer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}

// current is the plan that judges the current step with its probes; with
// script, the script's too when the step has them.
func (l *loop) current(script bool) plan {
	n := l.m.Current
	p := plan{script: script && len(ids(l.o.Probes.Script, n)) > 0}
	if len(ids(l.o.Probes.Live, n)) > 0 {
		p.live = []int{n}
	}
	return p
}

// liveSteps are the steps with probes of the running controller, the
// current one first.
func (l *loop) liveSteps() []int {
	out := l.current(false).live
	for _, s := range l.o.Steps {
		if s.Number != l.m.Current && len(ids(l.o.Probes.Live, s.Number)) > 0 {
			out = append(out, s.Number)
		}
	}
	return out
}

// files takes a burst of saved files: each is said when it cannot be
// judged (and the notice goes once it can), then judged. A saved script
// runs the script's probes and every step's controller probes (the
// service runs the file afresh each pass); the unit, the controller's
// probes from its step on; an evidence file, its step's only when they
// were never judged. Every step's files are looked at at once.
func (l *loop) files(cs []Change) {
	var p plan
	judgeable := false
	for _, c := range cs {
		switch {
		case c.Problem != "":
			l.notice(c.Path, c.Problem)
		case l.o.Format != Screen:
			l.notice(c.Path, i18n.T("watch.file.changed", i18n.Args{"File": filepath.Base(c.Path)}))
		default:
			l.m.Clear(c.Path)
		}
		if c.Path == l.o.UnitPath && c.Problem == "" && !l.stepRunning() {
			// The learner's edit: the running service goes on with the
			// unit it was started with. A `cnpa step` that writes the unit
			// (step 4) starts the service with it itself.
			l.notice(c.Path, i18n.T("watch.unit_changed", i18n.Args{"File": filepath.Base(c.Path), "Cmd": l.restartCommand()}))
		}
		if c.Incomplete {
			continue
		}
		judgeable = true
		switch {
		case len(ids(l.o.Probes.Script, c.Step)) > 0 && filepath.Base(c.Path) == lab.ScriptName:
			// What the script's probes said was of the script before.
			l.m.Forget(c.Step, ids(l.o.Probes.Script, c.Step))
			p = p.merge(plan{script: true})
			for _, n := range l.liveSteps() {
				if n >= c.Step {
					p = p.merge(plan{live: []int{n}})
				}
			}
		case c.Path == l.o.UnitPath:
			for _, n := range l.liveSteps() {
				if n >= c.Step {
					p = p.merge(plan{live: []int{n}})
				}
			}
		case c.Step == l.m.Current && !l.m.Has(c.Step, ids(l.o.Probes.Live, c.Step)):
			p = p.merge(l.current(false))
		}
	}
	if judgeable {
		l.judge(p)
	}
}

// order puts the current step first in p's live steps, the others in lab
// order after it.
func (l *loop) order(p plan) plan {
	in := map[int]bool{}
	for _, n := range p.live {
		in[n] = true
	}
	out := plan{script: p.script}
	if in[l.m.Current] {
		out.live = append(out.live, l.m.Current)
	}
	for _, s := range l.o.Steps {
		if in[s.Number] && s.Number != l.m.Current {
			out.live = append(out.live, s.Number)
		}
	}
	return out
}

// changed is a change of the cluster, gathered: the quick look, and the
// current step's live probes, at most every liveAgain and never in the
// middle of the script's probes.
func (l *loop) changed() {
	if l.m.Running != 0 || l.m.Down != "" {
		return
	}
	l.quick()
	cur := l.current(false)
	if l.planBusy || cur.empty() {
		return // a plan's live probes come after its script's
	}
	if wait := liveAgain - l.o.Now().Sub(l.liveDone); wait > 0 {
		l.liveWait.Reset(wait)
		return
	}
	l.judge(cur)
}

// judge looks at every step at once, then runs p (merged with what the
// plan running had left, which it cancels). While a `cnpa step` runs,
// p waits for it to end.
func (l *loop) judge(p plan) {
	l.retry.Stop()
	if l.m.Running != 0 {
		l.waiting = l.waiting.merge(p)
		return
	}
	l.quick()
	if p.empty() {
		return // the quick look is all
	}
	if l.planBusy {
		p = l.pending.merge(p)
	}
	p = l.order(p)
	p.lead = p.script && len(p.live) > 0 && p.live[0] == l.m.Current && len(ids(l.o.Probes.Script, l.m.Current)) == 0
	l.planStop()
	l.planGen++
	l.pending, l.planBusy = p, true
	ctx, cancel := context.WithCancel(l.ctx)
	l.planStop = cancel
	gen := l.planGen
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		l.run(ctx, gen, p)
	}()
}

// quick starts the look at every step's files and facts, with no probe;
// one running is cancelled.
func (l *loop) quick() {
	if l.m.Running != 0 {
		return
	}
	l.quickStop()
	l.quickGen++
	gen := l.quickGen
	ctx, cancel := context.WithCancel(l.ctx)
	l.quickStop, l.quickBusy = cancel, true
	started := l.o.Now()
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		rep, err := l.o.Judge(ctx, 0, Ask{})
		if ctx.Err() != nil {
			return
		}
		l.send(ctx, result{kind: quickKind, gen: gen, rep: rep, err: err, at: l.o.Now(), started: started})
	}()
}

// send hands r to the loop, unless ctx ends first.
func (l *loop) send(ctx context.Context, r result) bool {
	select {
	case l.results <- r:
		return true
	case <-ctx.Done():
		return false
	}
}

// run is plan p: the script's probes until two judgements agree (or
// maxScriptRuns), unless held; then each step's live probes. The current
// step's live probes go first when the script's are another step's.
func (l *loop) run(ctx context.Context, gen int, p plan) {
	send := func(r result) bool { r.gen = gen; return l.send(ctx, r) }
	defer send(result{kind: doneKind})
	live := func(n int) bool {
		if !send(result{kind: startKind, step: n}) {
			return false
		}
		// The verdicts are shown as soon as they are in; the plan goes
		// on once the probes' TeamSpaces are gone, so that no judgement
		// or step meets them.
		shown, started := false, l.o.Now()
		judged := func(rep *judge.Report) {
			shown = send(result{kind: liveKind, step: n, rep: rep, at: l.o.Now(), started: started})
		}
		rep, err := l.o.Judge(ctx, n, Ask{Live: true, Judged: judged})
		if ctx.Err() != nil {
			return false
		}
		if shown && err == nil {
			return true
		}
		return send(result{kind: liveKind, step: n, rep: rep, err: err, at: l.o.Now(), started: started}) && err == nil
	}
	rest := p.live
	if p.lead {
		if !live(rest[0]) {
			return
		}
		rest = rest[1:]
	}
	if p.script && !l.script(ctx, send) {
		return
	}
	for _, n := range rest {
		if !live(n) {
			return
		}
	}
}

// script judges with the script's probes until two judgements agree (or
// maxScriptRuns), unless they are held; false when the plan must end.
func (l *loop) script(ctx context.Context, send func(result) bool) bool {
	first := 0
	for _, n := range l.o.Probes.Script {
		if first == 0 || n < first {
			first = n
		}
	}
	if !send(result{kind: startKind, step: first}) {
		return false
	}
	if why := l.o.Held(ctx); why != "" {
		return send(result{kind: heldKind, step: first, why: why})
	}
	var prev *judge.Report
	var started time.Time
	for i := 0; i < maxScriptRuns; i++ {
		started = l.o.Now()
		rep, err := l.o.Judge(ctx, 0, Ask{Script: true})
		if ctx.Err() != nil {
			return false
		}
		if err != nil {
			send(result{kind: scriptKind, step: first, err: err})
			return false
		}
		done := agreed(l.o.Probes.Script, prev, rep)
		prev = rep
		if done {
			break
		}
	}
	return send(result{kind: scriptKind, step: first, rep: prev, at: l.o.Now(), started: started})
}

// agreed tells whether the script's probes in rep need no further
// judgement: they all pass the first time (prev nil), or say what they
// said in prev.
func agreed(script map[string]int, prev, rep *judge.Report) bool {
	got := map[string]judge.Status{}
	for _, c := range rep.Checks {
		if _, ok := script[c.ID]; ok {
			got[c.ID] = c.Status
		}
	}
	if prev == nil {
		for _, s := range got {
			if s == judge.Fail {
				return false
			}
		}
		return true
	}
	for _, c := range prev.Checks {
		if _, ok := script[c.ID]; ok && got[c.ID] != c.Status {
			return false
		}
	}
	return true
}

// result takes a judgement's outcome into the model and shows it.
func (l *loop) result(r result) {
	if r.kind == quickKind {
		if r.gen != l.quickGen {
			return // a look cancelled by a newer one
		}
		l.quickBusy = false
		l.took(0, r)
		return
	}
	if r.gen != l.planGen {
		return // a plan cancelled by a newer one
	}
	switch r.kind {
	case startKind:
		l.m.Judging = r.step
	case heldKind:
		l.held, l.heldAt = true, l.o.Now()
		l.notice("held", r.why)
		l.pending.script = false
	case scriptKind:
		if l.took(0, r) {
			l.pending.script = false
		}
		if r.err == nil && l.held {
			l.held = false
			l.m.Clear("held")
		}
		// The script may have changed what the facts say.
		l.quick()
	case liveKind:
		if l.took(r.step, r) {
			l.pending = l.pending.without(r.step)
		}
	case doneKind:
		l.m.Judging, l.planBusy, l.pending = 0, false, plan{}
		l.liveDone = l.o.Now()
	}
}

// took records report r of step (0: every step): the cluster gone, an
// error, or the verdicts, each step's shown when they are news. It tells
// whether r was judged (the cluster answered).
func (l *loop) took(step int, r result) bool {
	var ue *check.UnreachableError
	switch {
	case errors.As(r.err, &ue):
		if l.m.Down == "" {
			l.down(ue.Err)
		}
		// Asked again: the look, and what the plan had left.
		l.last = plan{}
		if r.kind != quickKind {
			l.last = l.pending
		}
		l.retry.Reset(l.o.Retry)
		return false
	case r.err != nil:
		l.notice("error", i18n.T("watch.error", i18n.Args{"N": max(step, l.m.Current), "Err": oneLine(r.err.Error())}))
		return true
	case r.rep == nil:
		return true
	}
	l.m.Clear("error")
	if r.started.Before(l.factsAt) {
		r.rep = l.probesOnly(r.rep)
	} else {
		l.factsAt = r.started
	}
	if l.m.Down != "" {
		l.m.Down = ""
		l.notice("down", i18n.T("watch.back"))
	}
	if step == 0 {
		l.m.Evidence(Written(l.o.Steps, l.o.Dir))
		if l.follow {
			l.m.Current = FirstUndone(l.o.Steps, l.o.Dir)
		}
	}
	for _, s := range l.o.Steps {
		if step != 0 && s.Number != step {
			continue
		}
		l.show(s.Number, r)
	}
	return true
}

// show records step n's checks of r and prints them where they are news:
// a step judged with its probes, or whose status or a check's changed.
func (l *loop) show(n int, r result) {
	before := l.m.Status(n)
	var lines []string
	if l.o.Format == Plain {
		lines = l.o.View.PlainLines(l.m, n, r.rep)
	}
	changed := l.m.Checks(n) == nil
	for _, c := range r.rep.Checks {
		if c.Step == n && l.m.Previous(n, c.ID) != c.Status {
			changed = true
		}
	}
	probed := r.kind == liveKind || (r.kind == scriptKind && len(ids(l.o.Probes.Script, n)) > 0)
	vs := l.m.Judged(n, r.rep, r.at)
	if !probed && !changed && l.m.Status(n) == before {
		return
	}
	switch l.o.Format {
	case Plain:
		for _, line := range lines {
			fmt.Fprintln(l.o.Out, line)
		}
	case JSON:
		if err := WriteJSON(l.o.Out, vs); err != nil {
			l.notice("", err.Error())
		}
	}
}

// poll looks for a running `cnpa step` (nothing is judged until it ends,
// then everything is), for a reset (watch's position gone: the learner
// starts over where the evidence says), and after a held script.
func (l *loop) poll() {
	if r, ok := labenv.StepRunning(l.o.Dir); ok {
		if l.m.Running == 0 {
			// Whatever runs stops: the step must meet the lab as the
			// learner left it.
			l.quickStop()
			l.planStop()
			if l.planBusy {
				l.waiting = l.waiting.merge(l.pending)
			}
			l.planGen++
			l.quickGen++
			l.planBusy, l.quickBusy, l.pending, l.m.Judging = false, false, plan{}, 0
		}
		l.m.Running = r.Step
		return
	}
	if l.m.Running != 0 {
		l.m.Running = 0
		w := l.waiting.merge(l.current(false))
		l.waiting = plan{}
		l.judge(w)
	}
	if l.kept {
		if _, err := os.Stat(PositionPath(l.o.Dir)); errors.Is(err, fs.ErrNotExist) {
			// Reset (or .cnpa removed by hand): start over.
			l.kept, l.follow = false, true
			l.m.StartOver(FirstUndone(l.o.Steps, l.o.Dir))
			l.judge(l.current(false))
		}
	}
	if l.held && !l.planBusy && l.o.Now().Sub(l.heldAt) >= heldEvery {
		l.heldAt = l.o.Now()
		l.judge(plan{script: true})
	}
}

// down records that the cluster cannot be reached: the screen shows it
// until it answers; plain and JSON output say it once.
func (l *loop) down(err error) {
	l.m.Down = oneLine(err.Error())
	if l.o.Format != Screen {
		l.notice("", i18n.T("watch.down", i18n.Args{"Err": l.m.Down}))
	}
}

// notice says s about key: on the screen's notice lines, in place of
// what was said about key before, or as a line of its own.
func (l *loop) notice(key, s string) {
	switch {
	case l.o.Format == JSON:
		fmt.Fprintln(l.o.Err, "! "+s)
	case l.o.Format == Plain:
		for _, line := range fit("! ", s, Columns, "  ") {
			fmt.Fprintln(l.o.Out, line)
		}
	case l.m != nil:
		l.m.NoticeFor(key, s)
	}
}

// keep saves the position; failing to costs only the resume, so it is said.
func (l *loop) keep() {
	if err := SavePosition(l.o.Dir, l.m.Current); err != nil {
		l.notice("keep", i18n.T("watch.not_kept", i18n.Args{"Path": PositionPath(l.o.Dir), "Err": err.Error()}))
		return
	}
	l.kept = true
}

// draw redraws the screen; plain and JSON output print as they go.
func (l *loop) draw() {
	if l.o.Format != Screen {
		return
	}
	// Raw mode: a line feed does not return the carriage.
	fmt.Fprint(l.o.Out, "\x1b[H\x1b[2J"+strings.Join(l.o.View.Screen(l.m), "\r\n")+"\r\n")
}

// probesOnly is rep's probes' checks alone: what an older judgement
// still says that a newer look at the files and facts does not.
func (l *loop) probesOnly(rep *judge.Report) *judge.Report {
	out := *rep
	out.Checks = nil
	for _, c := range rep.Checks {
		_, script := l.o.Probes.Script[c.ID]
		_, live := l.o.Probes.Live[c.ID]
		if script || live {
			out.Checks = append(out.Checks, c)
		}
	}
	return &out
}

// stepRunning tells whether a `cnpa step` runs now, as its mark says
// (the model's Running follows the mark at the next poll).
func (l *loop) stepRunning() bool {
	if l.m.Running != 0 {
		return true
	}
	_, ok := labenv.StepRunning(l.o.Dir)
	return ok
}

// restartCommand is how the learner restarts the service to use a changed
// unit, with their service manager.
func (l *loop) restartCommand() string {
	if l.o.View != nil && l.o.View.Where.ServiceManager == "process" {
		return restartCommands["process"]
	}
	return restartCommands["systemd"]
}

// restartCommands restart the service with a changed unit, by service
// manager: commands, said as they are.
var restartCommands = map[string]string{
	"process": "cnpa service restart",
	"systemd": "systemctl daemon-reload && systemctl restart cnpa-op",
}

// oneLine is an error's first line: a screen line, not a dump.
func oneLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

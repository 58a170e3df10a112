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
	"path/filepath"
	"strings"
	"time"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
)

// Judger judges one step: its evidence against the rules and the facts,
// and its probes.
type Judger func(ctx context.Context, step int) (*judge.Report, error)

// CheckJudger is `cnpa check --step N` as a Judger: check.Run for one
// step, each probe waiting at most timeout for the controller.
func CheckJudger(steps check.Table, env *labenv.Env, timeout time.Duration) Judger {
	return func(ctx context.Context, step int) (*judge.Report, error) {
		rep, _, err := check.Run(ctx, env, check.Options{Steps: steps, Step: step, ProbeTimeout: timeout})
		return rep, err
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
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// result is one step judged, or the end of a judgement (done).
type result struct {
	gen  int
	step int
	// starting: step is about to be judged.
	starting bool
	done     bool
	rep      *judge.Report
	err      error
	at       time.Time
}

type loop struct {
	o       Options
	ctx     context.Context
	m       *Model
	gen     int
	stop    context.CancelFunc
	results chan result
	// last is the last judgement's plan, judged again when the cluster
	// comes back.
	lastFrom int
	lastAll  bool
	idleAt   time.Time
	retry    *time.Timer
}

// Run is watch until ctx ends or the learner quits. Phases:
//  1. the position: where watch last left the learner, else the first
//     step whose evidence is not written (FirstUndone);
//  2. judge that step and the ones after it, up to the first that fails;
//  3. on each event: a key (Model.Key); a burst of saved files (judge
//     again from the earliest of their steps and the current one; a file
//     cut short mid-write is only said, and waits for the next save); a
//     change in the cluster while no judgement runs (the current step
//     again); a cluster gone (said, asked again every Retry until it
//     answers). A new judgement cancels the one running.
func Run(ctx context.Context, o Options) error {
	if o.Retry <= 0 {
		o.Retry = 3 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	l := &loop{o: o, ctx: ctx, results: make(chan result), stop: func() {}}
	start := LoadPosition(o.Steps, o.Dir)
	resumed := start != 0
	if !resumed {
		start = FirstUndone(o.Steps, o.Dir)
	}
	l.m = NewModel(o.Steps, start)
	if resumed {
		l.notice(i18n.T("watch.resumed", i18n.Args{"N": start}))
	}
	l.keep()
	l.retry = time.NewTimer(time.Hour)
	l.retry.Stop()
	defer func() { l.stop() }()
	l.judge(l.m.Current, false)
	l.draw()
	for {
		select {
		case <-ctx.Done():
			return nil
		case k := <-o.Keys:
			switch l.m.Key(k) {
			case Quit:
				l.stop()
				if o.Format == Screen {
					fmt.Fprint(o.Out, "\r\n")
				}
				return nil
			case JudgeCurrent:
				l.keep()
				l.judge(l.m.Current, false)
			case CheckAll:
				l.judge(l.o.Steps[0].Number, true)
			}
		case cs := <-o.Files:
			from, judgeable := l.m.Current, false
			for _, c := range cs {
				if c.Problem != "" {
					l.notice(c.Problem)
				} else if o.Format != Screen {
					l.notice(i18n.T("watch.file.changed", i18n.Args{"File": filepath.Base(c.Path)}))
				}
				if c.Path == o.UnitPath && c.Problem == "" {
					l.notice(i18n.T("watch.unit_changed", i18n.Args{"File": filepath.Base(c.Path), "Cmd": l.restartCommand()}))
				}
				if c.Incomplete {
					continue
				}
				judgeable = true
				from = min(from, c.Step)
			}
			if judgeable {
				l.judge(from, false)
			}
		case <-o.Changed:
			// The probes' own objects echo back for a moment after a
			// judgement; a judgement that runs sees the cluster anyway.
			if l.m.Judging == 0 && o.Now().Sub(l.idleAt) >= quietAfterJudging && l.m.Down == "" {
				l.judge(l.m.Current, false)
			}
		case s := <-o.Notes:
			l.notice(s)
		case err := <-o.Down:
			if l.m.Down == "" {
				l.down(err)
				l.retry.Reset(o.Retry)
			}
		case <-l.retry.C:
			l.judge(l.lastFrom, l.lastAll)
		case r := <-l.results:
			if r.gen != l.gen {
				continue // a judgement cancelled by a newer one
			}
			l.result(r)
		}
		l.draw()
	}
}

// judge starts judging from step from: every step to the last when all,
// else up to the first that fails. It cancels the judgement running.
func (l *loop) judge(from int, all bool) {
	l.stop()
	l.retry.Stop()
	l.gen++
	l.lastFrom, l.lastAll = from, all
	ctx, cancel := context.WithCancel(l.ctx)
	l.stop = cancel
	gen := l.gen
	send := func(r result) bool {
		r.gen = gen
		select {
		case l.results <- r:
			return true
		case <-ctx.Done():
			return false
		}
	}
	go func() {
		defer send(result{done: true})
		for _, s := range l.o.Steps {
			if s.Number < from {
				continue
			}
			if !send(result{step: s.Number, starting: true}) {
				return
			}
			rep, err := l.o.Judge(ctx, s.Number)
			if ctx.Err() != nil {
				return
			}
			if !send(result{step: s.Number, rep: rep, err: err, at: l.o.Now()}) || err != nil {
				return
			}
			if !all && !rep.OK() {
				return
			}
		}
	}()
}

// result takes one step's judgement into the model and shows it.
func (l *loop) result(r result) {
	var ue *check.UnreachableError
	switch {
	case r.done:
		l.m.Judging = 0
		l.idleAt = l.o.Now()
	case r.starting:
		l.m.Judging = r.step
	case errors.As(r.err, &ue):
		if l.m.Down == "" {
			l.down(ue.Err)
		}
		l.retry.Reset(l.o.Retry)
	case r.err != nil:
		l.notice(i18n.T("watch.error", i18n.Args{"N": r.step, "Err": oneLine(r.err.Error())}))
	default:
		if l.m.Down != "" {
			l.m.Down = ""
			l.notice(i18n.T("watch.back"))
		}
		if l.o.Format == Plain {
			for _, line := range l.o.View.PlainLines(l.m, r.step, r.rep) {
				fmt.Fprintln(l.o.Out, line)
			}
		}
		vs := l.m.Judged(r.step, r.rep, r.at)
		if l.o.Format == JSON {
			if err := WriteJSON(l.o.Out, vs); err != nil {
				l.notice(err.Error())
			}
		}
	}
}

// down records that the cluster cannot be reached: the screen shows it
// until it answers; plain and JSON output say it once.
func (l *loop) down(err error) {
	l.m.Down = oneLine(err.Error())
	if l.o.Format != Screen {
		l.notice(i18n.T("watch.down", i18n.Args{"Err": l.m.Down}))
	}
}

// notice says s: on the screen's notice lines, or as a line of its own.
func (l *loop) notice(s string) {
	switch {
	case l.o.Format == JSON:
		fmt.Fprintln(l.o.Err, "! "+s)
	case l.o.Format == Plain:
		for _, line := range fit("! ", s, Columns, "  ") {
			fmt.Fprintln(l.o.Out, line)
		}
	case l.m != nil:
		l.m.Notice(s)
	}
}

// keep saves the position; failing to costs only the resume, so it is said.
func (l *loop) keep() {
	if err := SavePosition(l.o.Dir, l.m.Current); err != nil {
		l.notice(i18n.T("watch.not_kept", i18n.Args{"Path": PositionPath(l.o.Dir), "Err": err.Error()}))
	}
}

// draw redraws the screen; plain and JSON output print as they go.
func (l *loop) draw() {
	if l.o.Format != Screen {
		return
	}
	// Raw mode: a line feed does not return the carriage.
	fmt.Fprint(l.o.Out, "\x1b[H\x1b[2J"+strings.Join(l.o.View.Screen(l.m), "\r\n")+"\r\n")
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

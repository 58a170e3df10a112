// Package report makes `cnpa report --html`: one self-contained HTML page
// of a lab run, to open offline or mail to an instructor. It shows the
// lab's steps, every evidence value against what a correct run holds (as
// package lab judges it), the timelines of the steps that record one drawn as
// charts (package timeline), and the last `cnpa check` (judge.LoadLast).
//
// It only reads: the evidence dir, and the live alpha when a cluster is
// there to ask. Nothing on the page refers to anything outside it.
package report

import (
	"os"
	"path/filepath"
	"time"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/timeline"
)

// Options say where the evidence is and what is known of the cluster.
type Options struct {
	// Steps is the lab's steps (course.Steps): the page's sections.
	Steps lab.Table
	Dir   string
	// Alpha is the live TeamSpace alpha (nil when it does not exist);
	// AlphaUnknown says why it could not be read, and then the values
	// compared with it are shown as not compared.
	Alpha        *teamspace.TeamSpace
	AlphaUnknown string
	// Now is when the page is made; Version is cnpa's.
	Now     time.Time
	Version string
	// Engine is the lab's engine as its state remembers it ("" unknown);
	// StateProblem why the state could not be read, shown on the page.
	// The caller reads the state (package labenv): the page only shows.
	Engine, StateProblem string
	// StressPoints is each stress fault's points when the instructor's
	// policy counts stress (0: it does not); PolicyProblem why the
	// policy could not be read.
	StressPoints  float64
	PolicyProblem string
}

// Status is a value's, a step's or a check's outcome as the page colours it.
type Status string

// The outcomes.
const (
	OK      Status = "ok"
	Bad     Status = "bad"
	Skipped Status = "skip"
	// Missing: the step has not written its file yet.
	Missing Status = "missing"
)

// Page is everything the page shows.
type Page struct {
	Dir, Version, Engine string
	// IDPrefix starts every id on the page, so that a page embedding
	// several reports (`cnpa class grade --html`) keeps them apart.
	IDPrefix  string
	Generated time.Time
	// Problems are facts about the inputs a reader must see first (a state
	// file that does not parse, an unreadable check report).
	Problems []string
	Steps    []*Step
	// ValuesOK and ValuesTotal count the evidence values as judged.
	ValuesOK, ValuesBad, ValuesTotal int
	Check                            *Check
	// Stress is the last `cnpa stress`, nil when it never ran: shown
	// apart, never in the lab's totals; StressPoints its points a fault
	// when the instructor's policy counts it.
	Stress       *judge.StressReport
	StressPoints float64
}

// Step is one lab step on the page.
type Step struct {
	Number         int
	Title, Teaches string
	Status         Status
	// File is the evidence file; FileProblem why its values cannot be
	// shown (missing, malformed).
	File, FileProblem string
	// NotWritten: the file does not exist yet (the step has not run).
	NotWritten bool
	Values     []Value
	// Timeline is the step's chart, nil when it has none; TimelineNote
	// says why there is none, or what the chart is relative to.
	Timeline     *Timeline
	TimelineNote string
	// Checks are the last `cnpa check`'s checks of this step; Open are
	// those that did not pass (shown first, open), Passed the others
	// (folded: most repeat the values above).
	Checks, Open, Passed []judge.Check
}

// Value is one evidence key against its expectation.
type Value struct {
	Key, Title string
	// Got is the value in the file (JSON); Want what a correct run holds.
	Got, Want string
	Status    Status
	// Why is the rule's own wording of a failure, or why it could not
	// decide.
	Why string
}

// Timeline is one step's chart and the table of its entries.
type Timeline struct {
	Action, Engine string
	Start          time.Time
	Chart          *Chart
	Rows           []Row
}

// Check is the last `cnpa check` as the page tells it.
type Check struct {
	// Missing says how to get one when there is none.
	Missing string
	At      time.Time
	Server  string
	// Stale names the evidence written after the check; Partial the one
	// step it was limited to.
	Stale                   string
	Partial                 int
	Passed, Failed, Skipped int
}

// Build gathers the page from the evidence dir. Phases:
//  1. the lab's state (engine) and the last check report;
//  2. for each step, its evidence judged by the lab's rules, its timeline
//     laid out as a chart, its checks;
//  3. the totals and each step's status.
//
// A missing or broken input is shown on the page, never an error: the page
// of a half-done lab is still worth reading.
func Build(o Options) *Page {
	p := &Page{Dir: o.Dir, Version: o.Version, Generated: o.Now, Engine: o.Engine}
	if o.StateProblem != "" {
		p.Problems = append(p.Problems, o.StateProblem)
	}
	last, err := judge.LoadLast(o.Dir)
	if err != nil {
		p.Problems = append(p.Problems, err.Error())
	}
	p.Check = summarizeCheck(o.Steps, o.Dir, last)
	if p.Stress, err = judge.LoadStress(o.Dir); err != nil {
		p.Problems = append(p.Problems, err.Error())
	}
	if o.PolicyProblem != "" {
		p.Problems = append(p.Problems, o.PolicyProblem)
	}
	p.StressPoints = o.StressPoints

	ev := o.Steps.Read(o.Dir)
	in := ev.Inputs(o.Alpha)
	in.AlphaUnknown = o.AlphaUnknown
	for _, s := range o.Steps {
		st := &Step{Number: s.Number, Title: s.Heading(), Teaches: s.Teaching(), File: s.File}
		if s.File != "" {
			judgeFile(o.Steps, st, ev.Records[s.File], in)
		}
		if s.Timeline {
			addTimeline(st, o.Dir)
		}
		if last != nil {
			for _, c := range last.Report.Checks {
				if c.Step != s.Number {
					continue
				}
				st.Checks = append(st.Checks, c)
				// A note is not open work: LAB.md does not ask for it.
				if c.Status == judge.Pass || c.Status == judge.Note {
					st.Passed = append(st.Passed, c)
				} else {
					st.Open = append(st.Open, c)
				}
			}
		}
		st.Status = stepStatus(st)
		for _, v := range st.Values {
			p.ValuesTotal++
			switch v.Status {
			case OK:
				p.ValuesOK++
			case Bad:
				p.ValuesBad++
			}
		}
		p.Steps = append(p.Steps, st)
	}
	return p
}

// judgeFile judges the step's evidence, read strictly, key by key by the
// lab's rules; an unreadable file lists the keys with what is expected.
func judgeFile(steps lab.Table, st *Step, rec *lab.Record, in *lab.Inputs) {
	values, err := rec.Strict()
	if err != nil {
		st.FileProblem = err.Error()
		if rec.Missing() {
			st.FileProblem = i18n.T("report.not_written", i18n.Args{"File": st.File, "N": st.Number})
			st.NotWritten = true
		}
		for _, r := range steps.For(st.File) {
			st.Values = append(st.Values, Value{Key: r.Key, Title: judge.RuleTitle(r), Got: "—", Want: judge.RuleExpected(r), Status: Missing})
		}
		return
	}
	for _, j := range steps.Judge(st.File, values, in) {
		// Want is said already: the verdict's own, or the rule's (lab.Rule.Apply).
		v := Value{Key: j.Key, Title: judge.RuleTitle(j.Rule), Got: j.Value, Want: j.Want}
		switch {
		case j.Skip != "":
			v.Status, v.Want, v.Why = Skipped, judge.RuleExpected(j.Rule), i18n.T("report.not_compared", i18n.Args{"Why": j.Skip})
		case j.OK:
			v.Status = OK
		default:
			v.Status = Bad
			if j.Got != j.Value {
				v.Why = j.Got // the rule's words, e.g. "TeamSpace alpha does not exist"
			}
		}
		if v.Want == "" {
			v.Want = judge.RuleExpected(j.Rule)
		}
		st.Values = append(st.Values, v)
	}
}

// addTimeline lays out the step's timeline file, or says why there is none.
func addTimeline(st *Step, dir string) {
	tl, err := timeline.Load(dir, st.Number)
	switch {
	case err != nil:
		st.TimelineNote = err.Error()
	case tl == nil:
		st.TimelineNote = i18n.T("report.no_timeline", i18n.Args{"N": st.Number, "Path": relPath(dir, timeline.Path(dir, st.Number))})
	case len(tl.Entries) == 0:
		st.TimelineNote = i18n.T("report.timeline_empty")
	default:
		tl.Sorted()
		chart, rows := layout(tl)
		st.Timeline = &Timeline{Action: tl.Action, Engine: tl.Engine, Start: tl.Start, Chart: chart, Rows: rows}
	}
}

// stepStatus is bad when any value or check of the step failed, missing
// when its file is not written, ok otherwise.
func stepStatus(st *Step) Status {
	for _, v := range st.Values {
		if v.Status == Bad {
			return Bad
		}
	}
	for _, c := range st.Checks {
		if c.Status == judge.Fail {
			return Bad
		}
	}
	switch {
	case st.NotWritten:
		return Missing
	case st.FileProblem != "":
		return Bad // there, but malformed
	}
	if st.File == "" && len(st.Checks) == 0 && st.Timeline == nil {
		return Missing // step 4 with nothing to show for it
	}
	return OK
}

// summarizeCheck tells the last check's counts, and whether evidence was
// written after it (then its verdicts may no longer hold).
func summarizeCheck(steps lab.Table, dir string, last *judge.Last) *Check {
	if last == nil {
		return &Check{Missing: i18n.T("report.check_missing")}
	}
	r := last.Report
	c := &Check{At: last.At, Server: r.Server, Partial: r.Step, Passed: r.Passed, Failed: r.Failed, Skipped: r.Skipped}
	if name, at := newestEvidence(steps, dir); at.After(last.At) {
		c.Stale = i18n.T("report.check_stale", i18n.Args{"File": name, "At": at.UTC().Format("2006-01-02 15:04:05 UTC")})
	}
	return c
}

// newestEvidence is the evidence file (or archive record) written last.
func newestEvidence(steps lab.Table, dir string) (string, time.Time) {
	var (
		name  string
		newst time.Time
	)
	candidates := append([]string{}, steps.Files()...)
	candidates = append(candidates, lab.BetaArchive)
	for _, f := range candidates {
		if fi, err := os.Stat(filepath.Join(dir, f)); err == nil && fi.ModTime().After(newst) {
			name, newst = f, fi.ModTime()
		}
	}
	return name, newst
}

func relPath(dir, p string) string {
	if r, err := filepath.Rel(dir, p); err == nil {
		return r
	}
	return p
}

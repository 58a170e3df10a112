// Package class grades a whole class: every learner's submission (package
// submission) judged again by the lab's rules, offline or live against the
// learner's own cluster, with the flags an instructor needs (a record that
// disagrees with its evidence, evidence copied from another learner, two
// learners on one cluster, a learner who sent nothing), in one gradebook:
// text, JSON, CSV, JUnit and a self-contained HTML page.
package class

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	coursepkg "github.com/labhub/cnpa/internal/course"
	"github.com/labhub/cnpa/internal/gradebook"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/submission"
)

// course is the lab's steps. The class's grading is above the steps
// (package course): it grades whatever lab the binary was built with, so
// it reads the table itself rather than being handed it by each command.
var course = coursepkg.Steps

// Steps is how many steps the lab has: a score is steps passed of Steps.
var Steps = len(course.Lab())

// How a learner was graded: the gradebook's graded column.
const (
	GradedLive        = "live"
	GradedOffline     = "offline"
	GradedUnreachable = "unreachable"
	GradedMissing     = "missing"
	// GradedUnreadable: a file that is not a submission cnpa can read; its
	// row is named after the file.
	GradedUnreadable = "unreadable"
)

// The flags a learner's row may carry.
const (
	// FlagTampered: the results recorded in the submission disagree with
	// its evidence judged again.
	FlagTampered = "tampered"
	// FlagEdited: the content no longer has the SHA-256 it carries.
	FlagEdited = "edited"
	// FlagCopiedFrom: the evidence holds uids of objects live grading
	// found on another learner's cluster. FlagCopiedBy: another learner
	// holds this one's. FlagSharesUIDs: two learners hold one uid, and no
	// live grading showed whose object it was (offline, the facts that
	// would say are each learner's own word).
	FlagCopiedFrom = "copied-from"
	FlagCopiedBy   = "copied-by"
	FlagSharesUIDs = "shares-uids-with"
	// FlagSameCluster: another learner's submission is of the same cluster.
	FlagSameCluster = "same-cluster-as"
	// FlagVersion: the submission was made by another cnpa version.
	FlagVersion = "cnpa-version"
	// FlagNoSubmission: on the roster, but no submission.
	FlagNoSubmission = "no-submission"
	// FlagNotOnRoster: a submission from a learner the roster does not name.
	FlagNotOnRoster = "not-on-roster"
	// FlagDuplicate: another file is a submission of the same learner
	// (the name is self-declared): neither is trusted over the other.
	FlagDuplicate = "duplicate"
	// FlagUnreadable: the file is not a submission cnpa can read, or its
	// evidence cannot be unpacked; the row is graded 0.
	FlagUnreadable = "unreadable"
	// FlagUnverified: the learner was to be graded live and was not (their
	// cluster unreachable, timed out, refused, or two files claim them):
	// the row is graded 0, never the submission's own claim.
	FlagUnverified = "unverified"
)

// Flag is one thing the instructor must look at.
type Flag struct {
	Kind string `json:"kind"`
	// With is the other learner(s) or the value, when there is one.
	With string `json:"with,omitempty"`
	// Detail says what was found, in words.
	Detail string `json:"detail"`
}

// String is the flag as the CSV and the text show it: kind, or kind:with.
func (f Flag) String() string {
	if f.With == "" {
		return f.Kind
	}
	return f.Kind + ":" + f.With
}

// Learner is one row of the gradebook.
type Learner struct {
	Name string `json:"learner"`
	// Graded is GradedLive, GradedOffline, GradedUnreachable or
	// GradedMissing; GradedDetail says why, for the last two.
	Graded       string `json:"graded"`
	GradedDetail string `json:"graded_detail,omitempty"`
	StepsPassed  int    `json:"steps_passed"`
	ChecksPassed int    `json:"checks_passed"`
	ChecksTotal  int    `json:"checks_total"`
	// FirstFailingStep is 0 when every step passes.
	FirstFailingStep int `json:"first_failing_step,omitempty"`
	// StepPassed is, per lab step in order, whether all its checks pass.
	StepPassed  []bool        `json:"step_passed"`
	Diagnosis   string        `json:"diagnosis,omitempty"`
	Flags       []Flag        `json:"flags"`
	Checks      []judge.Check `json:"checks"`
	CnpaVersion string        `json:"cnpa_version,omitempty"`
	SubmittedAt string        `json:"submitted_at,omitempty"`
	Cluster     string        `json:"cluster,omitempty"`
	File        string        `json:"file,omitempty"`
	// Exam: the submission was taken in exam mode.
	Exam bool `json:"exam,omitempty"`
	// Controller is the learner's reconcile.sh as submitted, for the
	// instructor to read (no rule grades it); nil in a submission without
	// one (an earlier cnpa's, format 1).
	Controller *submission.Source `json:"controller,omitempty"`
	// Engine is the engine behind that reconcile.sh: own (theirs), or
	// go or shell (cnpa's, rendered).
	Engine string `json:"engine,omitempty"`

	sub *submission.Submission
	// diagnosis is a file lab's row's diagnosis, judged by its engine.
	diagnosis string
	// live is what live grading read of the learner's cluster, nil when
	// it was not graded live: what a copy flag may name a source from.
	live *judge.Facts
}

// Gradebook is the whole class.
type Gradebook struct {
	GradedAt    time.Time  `json:"graded_at"`
	CnpaVersion string     `json:"cnpa_version"`
	Learners    []*Learner `json:"learners"`
	// StepPassRate is, per lab step in order, the share of learners with a
	// submission who pass it (unverified rows aside).
	StepPassRate []float64 `json:"step_pass_rate"`
	// Diagnoses counts the learners per diagnosis, most first.
	Diagnoses []DiagnosisCount `json:"diagnoses"`
	// Lab is the lab kept as a file the class was graded with, nil for
	// the TeamSpace lab.
	Lab *submission.LabRef `json:"lab,omitempty"`

	// steps is how many steps the lab has, stepTitles their headings
	// (nil for the TeamSpace lab's, which Results words itself) and
	// stepIDs the CSV's step columns (nil: step1 … step8).
	steps               int
	stepTitles, stepIDs []string
	// said words a file lab's diagnoses for the reader (SayDiagnosis).
	said map[string]string
}

// SayDiagnosis is a diagnosis as the gradebook keeps it, in the reader's
// language: a file lab's in its own words, the TeamSpace lab's by
// lab.SayMistake.
func (gb *Gradebook) SayDiagnosis(d string) string {
	if s, ok := gb.said[d]; ok && s != "" {
		return s
	}
	return lab.SayMistake(d)
}

// Steps is how many steps the lab the class was graded with has.
func (gb *Gradebook) Steps() int {
	if gb.steps == 0 {
		return Steps
	}
	return gb.steps
}

// DiagnosisCount is one bar of the histogram of diagnoses.
type DiagnosisCount struct {
	Diagnosis string   `json:"diagnosis"`
	Learners  []string `json:"learners"`
}

// Options tune Grade.
type Options struct {
	// Roster is the learners expected, nil for none.
	Roster []string
	// Version is this cnpa's version: another one is flagged.
	Version string
	// Now is when the class is graded.
	Now time.Time
	// Live, when set, grades the named learners live (see live.go); a
	// learner it has no result for is graded offline.
	Live map[string]*LiveResult
	// Unreadable are the files Load could not read as submissions: each
	// gets its row, named after the file, and FlagUnreadable.
	Unreadable []*submission.Error
	// Exam: the instructor's policy is in exam mode; a submission not
	// taken in exam mode is flagged FlagNotExam.
	Exam bool
	// Lab is the lab kept as a file the class is graded with, nil for the
	// TeamSpace lab. Its submissions are judged again by its engine,
	// offline only (Live must be nil); Admit refuses those of another lab.
	Lab *FileLab
}

// Offline judges one submission again, offline: the evidence against the
// facts it recorded, every check that can be judged so; the probes' are
// the recorded ones, as reported. It returns the learner's checks and the
// ids whose recorded status disagrees.
func Offline(s *submission.Submission) (checks []judge.Check, disagree []string, err error) {
	dir, err := os.MkdirTemp("", "cnpa-class-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(dir)
	if err := s.Materialize(course.Lab(), dir, filepath.Join(dir, lab.OwnDir)); err != nil {
		return nil, nil, fmt.Errorf("%s: %s: %w", s.Path, i18n.T("class.unpack"), err)
	}
	again := rejudge(dir, s.Facts)
	return merge(s, again, func(string) bool { return false })
}

// merge is the learner's checks: judged for every id judged holds, the
// recorded one as reported for the rest (asReported also forces ids to
// the record); disagree lists the ids whose recorded status differs from
// the judged one, or that the record lacks.
func merge(s *submission.Submission, judged *judge.Report, asReported func(id string) bool) (checks []judge.Check, disagree []string, err error) {
	recorded := map[string]judge.Check{}
	for _, c := range s.Checks {
		recorded[c.ID] = c
	}
	seen := map[string]bool{}
	for _, j := range judged.Checks {
		seen[j.ID] = true
		r, ok := recorded[j.ID]
		if asReported(j.ID) && ok {
			continue
		}
		// Diagnosed against the facts the learner's run recorded, as the
		// record was.
		c := judge.Rediagnose(j, s.Facts)
		if c.Status == judge.Fail && ok && r.Status == judge.Fail && c.Diagnosis.IsZero() && r.Actual != c.Actual {
			// Seen from here the failure may not say why (the service's
			// log is on the VM); the learner's own run may have, and its
			// diagnosis with it.
			c.Actual += i18n.T("class.as_run_saw", i18n.Args{"Actual": r.Actual})
			c.Diagnosis = judge.Diagnose(r, s.Facts)
		}
		switch {
		case !ok:
			disagree = append(disagree, i18n.T("class.not_recorded", i18n.Args{"ID": j.ID}))
		case r.Status != j.Status:
			c.Recorded = r.Status
			disagree = append(disagree, i18n.T("class.recorded_differs", i18n.Args{"ID": j.ID, "Recorded": r.Status, "Status": j.Status}))
		}
		checks = append(checks, c)
	}
	taken := map[string]bool{}
	for _, r := range s.Checks {
		if seen[r.ID] && !asReported(r.ID) {
			continue
		}
		// Only a check the lab defines, and that only the learner's run
		// could make, is taken as reported, once, at the step its id
		// names: an invented id (300 passing "extra.N") or a step moved
		// is the learner grading themselves.
		step, ok := reportable(r.ID)
		switch {
		case !ok:
			disagree = append(disagree, i18n.T("class.not_a_check", i18n.Args{"ID": strconv.QuoteToASCII(r.ID)}))
			continue
		case taken[r.ID]:
			disagree = append(disagree, i18n.T("class.recorded_twice", i18n.Args{"ID": r.ID}))
			continue
		}
		taken[r.ID] = true
		if r.Step != step {
			disagree = append(disagree, i18n.T("class.wrong_step", i18n.Args{"ID": r.ID, "At": r.Step, "Step": step}))
			r.Step = step
		}
		r = judge.Rediagnose(r, s.Facts)
		r.AsReported = true
		checks = append(checks, r)
	}
	sort.SliceStable(checks, func(i, j int) bool { return checks[i].Step < checks[j].Step })
	return checks, disagree, nil
}

// reportable tells whether id is a check the grader may take as the
// learner's run reported it (a live probe's, or one only the VM sees),
// and its step, from the id (stepN.name), never from the file.
func reportable(id string) (step int, ok bool) {
	if !slices.Contains(course.Grader().ProbeIDs(), id) && !slices.Contains(course.Grader().VMIDs(), id) {
		return 0, false
	}
	rest, found := strings.CutPrefix(id, "step")
	if !found || len(rest) < 2 || rest[0] < '1' || rest[0] > '9' || rest[1] != '.' {
		return 0, false
	}
	return int(rest[0] - '0'), true
}

// seenOnlyPartly are live checks that judge only part of what the
// learner's own run judged: the archive record of step6.delete_archives is
// written on the VM. When the learner's run failed one, that failure
// stands, as reported.
var seenOnlyPartly = []string{"step6.delete_archives"}

func reportedFailed(s *submission.Submission, id string) bool {
	if !slices.Contains(seenOnlyPartly, id) {
		return false
	}
	for _, c := range s.Checks {
		if c.ID == id {
			return c.Status == judge.Fail
		}
	}
	return false
}

// score fills the learner's score from its checks, for the TeamSpace lab.
func (l *Learner) score() { l.scoreOf(Steps, nil) }

// scoreOf fills the learner's score from its checks, of a lab of steps
// steps; a file lab (fl not nil) says its own diagnosis.
func (l *Learner) scoreOf(steps int, fl *FileLab) {
	l.StepPassed = make([]bool, steps)
	has := make([]bool, steps)
	for i := range l.StepPassed {
		l.StepPassed[i] = true
	}
	l.ChecksPassed, l.ChecksTotal = 0, len(l.Checks)
	for _, c := range l.Checks {
		ok := c.Status == judge.Pass || c.Status == judge.Note
		if ok {
			l.ChecksPassed++
		}
		if c.Step >= 1 && c.Step <= steps {
			has[c.Step-1] = true
			l.StepPassed[c.Step-1] = l.StepPassed[c.Step-1] && ok
		}
	}
	l.StepsPassed, l.FirstFailingStep = 0, 0
	for i := range l.StepPassed {
		l.StepPassed[i] = l.StepPassed[i] && has[i]
		if l.StepPassed[i] {
			l.StepsPassed++
		} else if l.FirstFailingStep == 0 {
			l.FirstFailingStep = i + 1
		}
	}
	if fl != nil {
		l.Diagnosis = l.diagnosis
		return
	}
	var facts *judge.Facts
	if l.sub != nil {
		facts = l.sub.Facts
	}
	l.Diagnosis = judge.LabDiagnosis(l.Checks, facts)
}

// unverify grades 0 a learner who was to be graded live and was not: an
// unreachable cluster is the learner's to make (a server that fails on
// purpose), so the submission's own score, which anyone can write and
// re-hash, is never credited. The checks and the diagnosis stay, for the
// instructor; the score columns an LMS imports say 0, and the flag why.
func (l *Learner) unverify() {
	claim := i18n.T("class.unverified_claim", i18n.Args{"Steps": l.StepsPassed, "StepsTotal": Steps, "Checks": l.ChecksPassed, "ChecksTotal": l.ChecksTotal})
	l.StepsPassed, l.ChecksPassed, l.FirstFailingStep = 0, 0, 1
	for i := range l.StepPassed {
		l.StepPassed[i] = false
	}
	addFlag(l, Flag{Kind: FlagUnverified,
		Detail: i18n.T("class.unverified", i18n.Args{"Graded": l.Graded, "Claim": claim})})
}

// Verified tells whether the row's score is one cnpa judged: false for a
// learner who was to be graded live and was not (FlagUnverified).
func (l *Learner) Verified() bool {
	for _, f := range l.Flags {
		if f.Kind == FlagUnverified {
			return false
		}
	}
	return true
}

// Grade makes the gradebook of subs (one per learner; see Load). Phases:
//  1. each submission judged again offline, or taken from opts.Live;
//  2. the flags between submissions: copies, shared clusters;
//  3. the roster: who is missing, who is not on it;
//  4. the class's pass rate per step and histogram of diagnoses.
func Grade(subs []*submission.Submission, opts Options) (*Gradebook, error) {
	gb := &Gradebook{GradedAt: opts.Now.UTC(), CnpaVersion: opts.Version, steps: Steps, said: map[string]string{}}
	fl := opts.Lab
	if fl != nil {
		gb.Lab = &submission.LabRef{Name: fl.Lab.Metadata.Name, SHA256: fl.Hash}
		gb.steps, gb.stepTitles = len(fl.Lab.Steps), fl.stepTitles()
		for _, s := range fl.Lab.Steps {
			gb.stepIDs = append(gb.stepIDs, s.ID)
		}
	}
	score := func(l *Learner) { l.scoreOf(gb.steps, fl) }
	for _, s := range subs {
		l := &Learner{Name: s.Learner, sub: s, CnpaVersion: s.CnpaVersion, File: s.Path,
			SubmittedAt: s.SubmittedAt.UTC().Format(time.RFC3339), Cluster: s.Cluster.KubeSystemUID, Exam: s.Exam,
			Controller: s.Controller}
		if s.Facts != nil && s.Controller != nil {
			l.Engine = s.Facts.Engine
		}
		var checks []judge.Check
		var disagree []string
		var err error
		if fl != nil {
			var said string
			checks, disagree, l.diagnosis, said, err = fl.offline(s)
			if l.diagnosis != "" {
				gb.said[l.diagnosis] = said
			}
		} else {
			checks, disagree, err = Offline(s)
		}
		if err != nil {
			// One submission that cannot be unpacked never stops the class.
			l.Graded, l.GradedDetail = GradedUnreadable, err.Error()
			l.Flags = append(l.Flags, Flag{Kind: FlagUnreadable, Detail: err.Error()})
			score(l)
			gb.Learners = append(gb.Learners, l)
			continue
		}
		l.Checks, l.Graded = checks, GradedOffline
		if bad := s.BadTimelines(); len(bad) > 0 {
			disagree = append(disagree, i18n.T("class.bad_timelines", i18n.Args{"Names": strings.Join(bad, ", ")}))
		}
		disagree = append(disagree, stressDisagree(s)...)
		lr := opts.Live[s.Learner]
		if lr != nil {
			l.Graded, l.GradedDetail = lr.Graded, lr.Detail
			if lr.Report != nil {
				l.Checks, _, _ = merge(s, lr.Report, func(id string) bool { return slices.Contains(course.Grader().VMIDs(), id) || reportedFailed(s, id) })
				l.live = lr.Facts
			}
		}
		if len(disagree) > 0 {
			l.Flags = append(l.Flags, Flag{Kind: FlagTampered, Detail: i18n.T("class.tampered", i18n.Args{"What": strings.Join(disagree, "; ")})})
		}
		if opts.Exam && !s.Exam {
			l.Flags = append(l.Flags, Flag{Kind: FlagNotExam, Detail: i18n.T("class.exam_missing", i18n.Args{"Policy": gradebook.PolicyName})})
		}
		if !s.HashOK {
			l.Flags = append(l.Flags, Flag{Kind: FlagEdited, Detail: i18n.T("class.edited")})
		}
		if opts.Version != "" && s.CnpaVersion != opts.Version {
			l.Flags = append(l.Flags, Flag{Kind: FlagVersion, With: s.CnpaVersion,
				Detail: i18n.T("class.version", i18n.Args{"Made": s.CnpaVersion, "Graded": opts.Version})})
		}
		score(l)
		if lr != nil && l.Graded != GradedLive {
			l.unverify()
		}
		gb.Learners = append(gb.Learners, l)
	}
	for _, u := range opts.Unreadable {
		l := &Learner{Name: filepath.Base(u.Path), Graded: GradedUnreadable, GradedDetail: u.Problem, File: u.Path,
			Flags: []Flag{{Kind: FlagUnreadable, Detail: u.Error()}}}
		score(l)
		gb.Learners = append(gb.Learners, l)
	}
	flagDuplicates(gb.Learners)
	flagCopies(gb.Learners)
	flagSameCluster(gb.Learners)
	if opts.Roster != nil {
		on := map[string]bool{}
		for _, n := range opts.Roster {
			on[n] = true
		}
		have := map[string]bool{}
		for _, l := range gb.Learners {
			have[l.Name] = true
			if !on[l.Name] {
				l.Flags = append(l.Flags, Flag{Kind: FlagNotOnRoster, Detail: i18n.T("class.not_on_roster", i18n.Args{"Name": l.Name})})
			}
		}
		for _, n := range opts.Roster {
			if !have[n] {
				l := &Learner{Name: n, Graded: GradedMissing, GradedDetail: i18n.T("class.no_submission"),
					Flags: []Flag{{Kind: FlagNoSubmission, Detail: i18n.T("class.no_submission_roster")}}}
				score(l)
				l.FirstFailingStep = 1
				gb.Learners = append(gb.Learners, l)
			}
		}
	}
	sort.SliceStable(gb.Learners, func(i, j int) bool { return gb.Learners[i].Name < gb.Learners[j].Name })
	gb.summarize()
	return gb, nil
}

// flagDuplicates flags every submission of a learner another file also
// claims to be: the name is the learner's own claim, so neither is kept
// over the other, and live grading skips them.
func flagDuplicates(ls []*Learner) {
	by := map[string][]*Learner{}
	for _, l := range ls {
		if l.sub != nil {
			by[l.Name] = append(by[l.Name], l)
		}
	}
	for name, group := range by {
		if len(group) < 2 {
			continue
		}
		var files []string
		for _, l := range group {
			files = append(files, l.File)
		}
		for _, l := range group {
			for _, o := range group {
				if o != l {
					addFlag(l, Flag{Kind: FlagDuplicate, With: filepath.Base(o.File),
						Detail: i18n.T("class.duplicate", i18n.Args{"Files": strings.Join(files, ", "), "Name": name})})
				}
			}
		}
	}
}

// flagCopies flags every uid two learners' evidence share. A source is
// named only from live grading: the one holder on whose cluster live
// grading found the object. Offline, the facts that would say whose
// cluster held it are each learner's own word (mallory can put gina's
// uid in hers and re-hash), so every holder shares-uids-with the others.
func flagCopies(ls []*Learner) {
	type holder struct {
		l      *Learner
		object string
	}
	byUID := map[string][]holder{}
	for _, l := range ls {
		if l.sub == nil {
			continue
		}
		for uid, obj := range objectUIDs(&l.sub.Content) {
			byUID[uid] = append(byUID[uid], holder{l, obj})
		}
	}
	type pair struct{ from, to *Learner }
	objects := map[pair][]string{}
	var order []pair
	add := func(p pair, obj string) {
		if _, ok := objects[p]; !ok {
			order = append(order, p)
		}
		if !slices.Contains(objects[p], obj) {
			objects[p] = append(objects[p], obj)
		}
	}
	uids := make([]string, 0, len(byUID))
	for uid := range byUID {
		uids = append(uids, uid)
	}
	sort.Strings(uids)
	for _, uid := range uids {
		hs := byUID[uid]
		if len(hs) < 2 {
			continue
		}
		// The source is the one holder whose cluster, read live, holds
		// the object. Two that do are one cluster reached twice, and
		// prove nothing of who made it: no source.
		var source *Learner
		found := 0
		for _, h := range hs {
			if h.l.live != nil && ownUIDs(h.l.live)[uid] {
				source = h.l
				found++
			}
		}
		if found > 1 {
			source = nil
		}
		for _, h := range hs {
			for _, o := range hs {
				if h.l == o.l {
					continue
				}
				switch {
				case source == o.l:
					add(pair{o.l, h.l}, h.object) // h copied from o
				case source == nil && h.l.Name < o.l.Name:
					add(pair{nil, h.l}, h.object+"\x00"+o.l.Name)
				}
			}
		}
	}
	copied := map[[2]string]bool{}
	for _, p := range order {
		if p.from != nil {
			copied[[2]string{p.from.Name, p.to.Name}], copied[[2]string{p.to.Name, p.from.Name}] = true, true
		}
	}
	for _, p := range order {
		objs := objects[p]
		if p.from == nil {
			for _, o := range objs {
				obj, other, _ := strings.Cut(o, "\x00")
				if copied[[2]string{p.to.Name, other}] {
					continue // the copy is flagged with its source
				}
				detail := i18n.T("class.same_uid", i18n.Args{"A": p.to.Name, "B": other, "Object": obj})
				addFlag(p.to, Flag{Kind: FlagSharesUIDs, With: other, Detail: detail})
				for _, l := range ls {
					if l.Name == other {
						addFlag(l, Flag{Kind: FlagSharesUIDs, With: p.to.Name, Detail: detail})
					}
				}
			}
			continue
		}
		what := strings.Join(objs, ", ")
		addFlag(p.to, Flag{Kind: FlagCopiedFrom, With: p.from.Name,
			Detail: i18n.T("class.copied_from", i18n.Args{"From": p.from.Name, "What": what})})
		addFlag(p.from, Flag{Kind: FlagCopiedBy, With: p.to.Name,
			Detail: i18n.T("class.copied_by", i18n.Args{"To": p.to.Name, "What": what})})
	}
}

// addFlag adds f unless the learner has it already.
func addFlag(l *Learner, f Flag) {
	for _, g := range l.Flags {
		if g.Kind == f.Kind && g.With == f.With {
			return
		}
	}
	l.Flags = append(l.Flags, f)
}

// flagSameCluster flags learners whose submissions name one cluster.
func flagSameCluster(ls []*Learner) {
	by := map[string][]*Learner{}
	for _, l := range ls {
		if l.sub == nil {
			continue
		}
		if uid := l.sub.Cluster.KubeSystemUID; uid != "" {
			by[uid] = append(by[uid], l)
		}
	}
	for uid, group := range by {
		if len(group) < 2 {
			continue
		}
		for _, l := range group {
			for _, o := range group {
				if o != l {
					addFlag(l, Flag{Kind: FlagSameCluster, With: o.Name,
						Detail: i18n.T("class.same_cluster", i18n.Args{"Name": o.Name, "UID": uid})})
				}
			}
		}
	}
}

// summarize computes the pass rate per step and the histogram.
func (gb *Gradebook) summarize() {
	gb.StepPassRate = make([]float64, gb.Steps())
	n := 0
	hist := map[string][]string{}
	for _, l := range gb.Learners {
		if l.Graded == GradedMissing {
			continue
		}
		// An unverified row's score is no one's: it counts neither as a
		// pass nor as a failure; its diagnosis is still the evidence's.
		if l.Verified() {
			n++
			for i, ok := range l.StepPassed {
				if ok {
					gb.StepPassRate[i]++
				}
			}
		}
		if l.Diagnosis != "" {
			hist[l.Diagnosis] = append(hist[l.Diagnosis], l.Name)
		}
	}
	for i := range gb.StepPassRate {
		if n > 0 {
			gb.StepPassRate[i] /= float64(n)
		}
	}
	gb.Diagnoses = gb.Diagnoses[:0]
	for d, names := range hist {
		gb.Diagnoses = append(gb.Diagnoses, DiagnosisCount{Diagnosis: d, Learners: names})
	}
	sort.Slice(gb.Diagnoses, func(i, j int) bool {
		a, b := gb.Diagnoses[i], gb.Diagnoses[j]
		if len(a.Learners) != len(b.Learners) {
			return len(a.Learners) > len(b.Learners)
		}
		return a.Diagnosis < b.Diagnosis
	})
}

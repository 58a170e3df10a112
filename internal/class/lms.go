package class

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/labhub/cnpa/internal/gradebook"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/safefs"
	"github.com/labhub/cnpa/internal/submission"
)

// FlagNotExam: the policy is in exam mode, and the submission was not
// taken in exam mode.
const FlagNotExam = "not-in-exam-mode"

// Results are the gradebook's rows as package gradebook's writers read
// them: the result model, without the machinery.
func Results(gb *Gradebook) []*gradebook.Result {
	titles := gb.stepTitles
	if titles == nil {
		for _, s := range course.Lab() {
			titles = append(titles, i18n.T("explain.heading", i18n.Args{"N": s.Number, "Title": s.Heading()}))
		}
	}
	out := make([]*gradebook.Result, 0, len(gb.Learners))
	for _, l := range gb.Learners {
		r := &gradebook.Result{Learner: l.Name, Graded: l.Graded, Detail: l.GradedDetail, Verified: l.Verified(), StepPassed: l.StepPassed,
			StepTitles: titles, Exam: l.Exam}
		if l.sub != nil {
			r.SubmittedAt = l.sub.SubmittedAt
		}
		for _, c := range l.Checks {
			r.Checks = append(r.Checks, gradebook.Check{ID: c.ID, Step: c.Step, Title: c.Title, Status: string(c.Status),
				Expected: c.Expected, Actual: c.Actual, Hint: c.Hint, AsReported: c.AsReported})
		}
		for _, f := range l.Flags {
			r.Flags = append(r.Flags, f.String())
		}
		r.Stress = stressChecks(l.sub)
		out = append(out, r)
	}
	return out
}

// stressChecks are the submission's `cnpa stress` faults as checks, every
// fault there (judge.StressFaults), so that every row has the same
// maximum: one the learner's run did not judge (never run, or not in its
// --faults) failed, saying how to run it. As the learner's own run
// reported them, never judged again here: stress takes minutes a
// learner. The submission's hash proves nothing here, since the learner
// makes it over whatever .cnpa/stress.json holds: a fault that passed
// implausibly (stressImplausible) fails, and Grade flags the row
// tampered.
func stressChecks(sub *submission.Submission) []gradebook.Check {
	var rep *judge.StressReport
	if sub != nil {
		rep = sub.Stress
	}
	implausible := stressImplausible(sub)
	var out []gradebook.Check
	for _, name := range judge.StressFaults {
		c := gradebook.Check{ID: judge.StressID(name), Title: judge.StressTitle(name), Status: gradebook.StatusFail,
			Expected: i18n.T("stress.why." + name), Actual: i18n.T("stress.not_submitted"), AsReported: true}
		var f *judge.StressFault
		if rep != nil {
			f = rep.Fault(name)
		}
		switch {
		case f == nil:
		case implausible[name] != "":
			c.Actual = i18n.T("class.stress.implausible", i18n.Args{"Why": implausible[name]})
		case f.Status == judge.Skip:
			c.Status, c.Actual = gradebook.StatusSkip, f.Why
		default:
			c.Status, c.Actual, c.Hint = string(f.Status), stressFound(f), f.Hint
		}
		out = append(out, c)
	}
	return out
}

// stressKind is the kind of fault the proxy counts for fault name
// (StressFault.Injected's keys): kill for kill9, else the name.
func stressKind(name string) string {
	if name == "kill9" {
		return "kill"
	}
	return name
}

// stressImplausible is, by fault name, why a fault the submission says
// passed cannot have: no fault of its kind was injected, or the run is
// dated after the submission. What it cannot catch is a forgery that
// keeps to these (stress results stay the learner's word).
func stressImplausible(sub *submission.Submission) map[string]string {
	out := map[string]string{}
	if sub == nil || sub.Stress == nil {
		return out
	}
	late := ""
	if at := sub.Stress.At; !at.IsZero() && !sub.SubmittedAt.IsZero() && at.After(sub.SubmittedAt) {
		late = i18n.T("class.stress.after_submit", i18n.Args{"At": at.UTC().Format(time.RFC3339), "Submitted": sub.SubmittedAt.UTC().Format(time.RFC3339)})
	}
	for _, f := range sub.Stress.Faults {
		if f.Status != judge.Pass {
			continue
		}
		switch {
		case late != "":
			out[f.Name] = late
		case f.Injected[stressKind(f.Name)] <= 0:
			out[f.Name] = i18n.T("class.stress.no_injection", i18n.Args{"Fault": f.Name, "Kind": stressKind(f.Name)})
		}
	}
	return out
}

// stressDisagree is what Grade adds to a submission's disagreements
// (FlagTampered) for its implausible stress results, in fault order.
func stressDisagree(sub *submission.Submission) []string {
	why := stressImplausible(sub)
	var out []string
	for _, name := range judge.StressFaults {
		if w := why[name]; w != "" && !slices.Contains(out, i18n.T("class.stress.tampered", i18n.Args{"Why": w})) {
			out = append(out, i18n.T("class.stress.tampered", i18n.Args{"Why": w}))
		}
	}
	return out
}

// stressFound is what a fault found: each property that did not hold, or
// what the proxy injected when all held.
func stressFound(f *judge.StressFault) string {
	var lines []string
	for _, x := range f.Findings {
		lines = append(lines, x.Property+": "+x.Found)
	}
	if len(lines) == 0 {
		return judge.StressInjected(f.Injected)
	}
	return strings.Join(lines, "; ")
}

// CheckIDs are every check id the lab grades: those judged from the
// evidence, the probes', the VM's and the stress faults'. A policy may
// name only these.
func CheckIDs() []string {
	ids := slices.Clone(course.Grader().ProbeIDs())
	ids = append(ids, course.Grader().VMIDs()...)
	for _, name := range judge.StressFaults {
		ids = append(ids, judge.StressID(name))
	}
	// Judged of no evidence at all, every rule still reports its check
	// (failed or skipped): the ids are the rules', not the evidence's.
	for _, c := range course.Grader().Judge(course.Lab().Read(os.DevNull), &judge.Facts{}).Checks {
		ids = append(ids, c.ID)
	}
	sort.Strings(ids)
	return slices.Compact(ids)
}

// ReadPolicy reads the instructor's grading policy (package gradebook)
// against the lab's steps and checks.
func ReadPolicy(path string) (*gradebook.Policy, error) {
	return gradebook.ReadPolicy(path, Steps, CheckIDs())
}

// ReadRosterFile reads a roster: one name a line (ReadRoster), or a CSV
// whose header names the column learner (the name each learner gives
// `cnpa submit --learner`) and any identity columns an LMS matches rows
// by (gradebook.IdentityColumns, Canvas's own export's names). A roster
// of names has no columns and no identities.
func ReadRosterFile(path string) ([]string, *gradebook.Roster, error) {
	data, err := safefs.ReadFile(path, MaxRoster)
	if err != nil {
		return nil, nil, fmt.Errorf("--roster %s: %w", path, err)
	}
	if !isCSV(data) {
		names, err := ReadRoster(path)
		if err != nil {
			return nil, nil, err
		}
		// A roster of names has no identity columns: the LMS formats
		// that need them say so, naming the file.
		return names, &gradebook.Roster{Path: path, Identity: map[string]map[string]string{}}, nil
	}
	return readRosterCSV(path, data)
}

// isCSV tells a CSV roster from a roster of names: its first line that
// is not blank or a comment has a comma (a name never has one: names are
// checked by submission.CheckName, and a roster of names had none).
func isCSV(data []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		return strings.Contains(l, ",")
	}
	return false
}

func readRosterCSV(path string, data []byte) ([]string, *gradebook.Roster, error) {
	cr := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
	cr.Comment = '#'
	cr.FieldsPerRecord = 0
	head, err := cr.Read()
	if err != nil {
		return nil, nil, i18n.NewError("class.load.roster_csv", i18n.Args{"Path": path, "Line": 1, "Err": err.Error()})
	}
	canon := map[string]string{"learner": "learner"}
	for _, c := range gradebook.IdentityColumns {
		canon[strings.ToLower(c)] = c
	}
	roster := &gradebook.Roster{Path: path, Identity: map[string]map[string]string{}}
	cols := make([]string, len(head))
	learnerAt := -1
	seen := map[string]bool{}
	for i, h := range head {
		c, ok := canon[strings.ToLower(strings.TrimSpace(h))]
		switch {
		case !ok:
			return nil, nil, i18n.NewError("class.load.roster_unknown_column", i18n.Args{"Path": path, "Column": strconv.Quote(h),
				"Known": strings.Join(gradebook.IdentityColumns, ", ")})
		case seen[c]:
			return nil, nil, i18n.NewError("class.load.roster_column_twice", i18n.Args{"Path": path, "Column": strconv.Quote(c)})
		}
		seen[c], cols[i] = true, c
		if c == "learner" {
			learnerAt = i
		} else {
			roster.Columns = append(roster.Columns, c)
		}
	}
	if learnerAt < 0 {
		return nil, nil, i18n.NewError("class.load.roster_no_learner", i18n.Args{"Path": path})
	}
	var names []string
	first := map[string]int{}
	var errs []error
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return nil, nil, i18n.NewError("class.load.roster_csv", i18n.Args{"Path": path, "Line": line, "Err": err.Error()})
		}
		name := strings.TrimSpace(rec[learnerAt])
		if name == "" {
			continue
		}
		if err := submission.CheckName(name); err != nil {
			errs = append(errs, i18n.NewError("class.load.roster_bad_name", i18n.Args{"Path": path, "Line": line, "Err": fmt.Sprint(err)}))
			continue
		}
		if at, dup := first[name]; dup {
			errs = append(errs, i18n.NewError("class.load.roster_twice", i18n.Args{"Path": path, "Name": strconv.Quote(name), "At": at, "Line": line}))
			continue
		}
		first[name] = line
		names = append(names, name)
		id := map[string]string{}
		for i, v := range rec {
			if i != learnerAt {
				id[cols[i]] = strings.TrimSpace(v)
			}
		}
		roster.Identity[name] = id
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	if len(names) == 0 {
		return nil, nil, i18n.NewError("class.load.roster_empty", i18n.Args{"Path": path})
	}
	return names, roster, nil
}

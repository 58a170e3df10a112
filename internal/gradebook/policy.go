package gradebook

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/safefs"
	"github.com/labhub/cnpa/internal/ui"
)

// PolicyName is the policy's file name where the learner's side looks
// for it: in the evidence dir, where the instructor (or the VM's image)
// puts the same file the class is graded with.
const PolicyName = "policy.toml"

// MaxPolicy is the largest policy file read.
const MaxPolicy = 1 << 20

// A check's visibility to the learner, before or after the due date.
const (
	Visible = "visible"
	Hidden  = "hidden"
)

// Gradescope's visibility values (its results.json spec).
const (
	gsVisible      = "visible"
	gsHidden       = "hidden"
	gsAfterDueDate = "after_due_date"
)

// Seen is a check's visibility before and after the due date.
type Seen struct {
	BeforeDue string `toml:"before_due"`
	AfterDue  string `toml:"after_due"`
}

// Visibility is the policy's [visibility] table: the default for every
// check, and per check id.
type Visibility struct {
	Seen
	Checks map[string]Seen `toml:"checks"`
}

// Late is the policy's [late] table.
type Late struct {
	// PercentPerDay is taken off the score per day late, or part of one.
	PercentPerDay float64 `toml:"percent_per_day"`
	// MaxDays: a submission later than this scores 0 (0 for no limit).
	MaxDays int `toml:"max_days"`
}

// Stress is the policy's [stress] table: `cnpa stress` is no part of the
// lab's grade unless the instructor gives its faults points.
type Stress struct {
	// PointsPerFault is each fault's points when it passed (0: stress
	// is not counted).
	PointsPerFault float64 `toml:"points_per_fault"`
	// SelfReported is the instructor's word that stress results, which
	// are the learner's own report and which cnpa cannot verify, may
	// count: points_per_fault needs it.
	SelfReported bool `toml:"self_reported"`
}

// Policy is the instructor's grading policy. The zero Policy (no file)
// grades as cnpa always has: a point per step passed whole, every check
// visible, no due date.
type Policy struct {
	// Assignment is the assignment's column in the Canvas and Moodle CSV.
	Assignment string `toml:"assignment"`
	// Due is the due date; zero for none.
	Due time.Time `toml:"due"`
	// Exam marks the lab as taken in exam mode: on the learner's VM,
	// scaffold, explain's commands and the step driver refuse.
	Exam bool `toml:"exam"`
	// StepPoints is each step's points when passed whole (default 1).
	StepPoints *float64 `toml:"step_points"`
	// Steps are a step's points instead of StepPoints, by number.
	Steps map[string]float64 `toml:"steps"`
	// Checks are a check's points, on top of its step's, by id.
	Checks     map[string]float64 `toml:"checks"`
	Visibility Visibility         `toml:"visibility"`
	Late       Late               `toml:"late"`
	Stress     Stress             `toml:"stress"`

	path string
	// steps is how many steps the lab has, as the policy was read for.
	steps int
}

// DefaultAssignment is the assignment column's name when the policy
// names none.
const DefaultAssignment = "cnpa lab"

// AssignmentName is the assignment's column name.
func (p *Policy) AssignmentName() string {
	if p == nil || p.Assignment == "" {
		return DefaultAssignment
	}
	return p.Assignment
}

// ReadPolicy reads a policy file strictly: an unknown key, a step or
// check that does not exist (steps is how many steps the lab has;
// checkIDs every check id), a negative number, or a visibility that is
// neither visible nor hidden is an error naming the key and the fix;
// all of them are reported at once.
func ReadPolicy(path string, steps int, checkIDs []string) (*Policy, error) {
	data, err := safefs.ReadFile(path, MaxPolicy)
	if err != nil {
		return nil, fmt.Errorf("--policy %s: %w", path, err)
	}
	return ParsePolicy(path, data, steps, checkIDs)
}

// MaxPoints is the most points a policy gives one step, check or fault:
// more is a typo, not a grade.
const MaxPoints = 1e6

// MaxNesting is how deeply a policy may nest tables, arrays and dotted
// keys (its own deepest is 3: visibility.checks."id"). The TOML decoder
// takes memory of the square of the depth: 2,000 levels are 0.5 GB.
const MaxNesting = 16

// maxUnknown is how many unknown keys are named, one line each.
const maxUnknown = 20

// ParsePolicy is ReadPolicy of data, read from path.
func ParsePolicy(path string, data []byte, steps int, checkIDs []string) (*Policy, error) {
	if n := nesting(data); n > MaxNesting {
		return nil, i18n.NewError("gradebook.policy.too_deep", i18n.Args{"Path": path, "Max": MaxNesting})
	}
	p := &Policy{path: path, steps: steps}
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(p)
	if err != nil {
		return nil, i18n.NewError("gradebook.policy.bad_toml", i18n.Args{"Path": path, "Err": err.Error()})
	}
	var errs []error
	bad := func(key, fix string) {
		errs = append(errs, i18n.NewError("gradebook.policy.bad_key", i18n.Args{"Path": path, "Key": key, "Fix": fix}))
	}
	unknown := md.Undecoded()
	for i, k := range unknown {
		if i == maxUnknown {
			errs = append(errs, i18n.NewError("gradebook.policy.more_unknown", i18n.Args{"Path": path, "N": len(unknown) - maxUnknown}))
			break
		}
		bad(k.String(), i18n.T("gradebook.policy.fix_unknown"))
	}
	known := map[string]bool{}
	for _, id := range checkIDs {
		known[id] = true
	}
	// points is every number of points: a finite number from 0 to
	// MaxPoints (NaN passes every comparison, so each is asked for).
	points := func(key string, v float64) bool {
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0) || v > MaxPoints:
			bad(key, i18n.T("gradebook.policy.fix_points", i18n.Args{"Max": fmtPoints(MaxPoints)}))
		case v < 0:
			bad(key, i18n.T("gradebook.policy.fix_negative"))
		default:
			return true
		}
		return false
	}
	if a := p.Assignment; a != "" && (strings.ContainsRune("=+-@", rune(a[0])) || ui.Clean(a) != a) {
		bad("assignment", i18n.T("gradebook.policy.fix_assignment"))
	}
	if p.StepPoints != nil {
		points("step_points", *p.StepPoints)
	}
	for _, k := range sortedKeys(p.Steps) {
		n, err := strconv.Atoi(k)
		switch {
		case err != nil || n < 1 || n > steps:
			bad("steps."+k, i18n.T("gradebook.policy.fix_step", i18n.Args{"Steps": steps}))
		default:
			points("steps."+k, p.Steps[k])
		}
	}
	for _, k := range sortedKeys(p.Checks) {
		switch {
		case strings.HasPrefix(k, "stress.") && known[k]:
			// Stress faults have their own points, and their own
			// warning: they are the learner's report.
			bad("checks."+strconv.Quote(k), i18n.T("gradebook.policy.fix_stress_check"))
		case !known[k]:
			bad("checks."+strconv.Quote(k), i18n.T("gradebook.policy.fix_check"))
		default:
			points("checks."+strconv.Quote(k), p.Checks[k])
		}
	}
	checkSeen := func(key string, s Seen) {
		for _, v := range []struct{ k, v string }{{"before_due", s.BeforeDue}, {"after_due", s.AfterDue}} {
			if v.v != "" && v.v != Visible && v.v != Hidden {
				bad(key+v.k, i18n.T("gradebook.policy.fix_visibility"))
			}
		}
	}
	checkSeen("visibility.", p.Visibility.Seen)
	unseen := func(key, id string) {
		if s := p.seen(id); s.BeforeDue == Visible && s.AfterDue == Hidden {
			bad(key+"after_due", i18n.T("gradebook.policy.fix_unseen"))
		}
	}
	unseen("visibility.", "")
	checkIDsSorted := make([]string, 0, len(p.Visibility.Checks))
	for k := range p.Visibility.Checks {
		checkIDsSorted = append(checkIDsSorted, k)
	}
	sort.Strings(checkIDsSorted)
	for _, k := range checkIDsSorted {
		if !known[k] {
			bad("visibility.checks."+strconv.Quote(k), i18n.T("gradebook.policy.fix_check"))
			continue
		}
		checkSeen("visibility.checks."+strconv.Quote(k)+".", p.Visibility.Checks[k])
		unseen("visibility.checks."+strconv.Quote(k)+".", k)
	}
	if v := p.Late.PercentPerDay; !(v >= 0 && v <= 100) {
		bad("late.percent_per_day", i18n.T("gradebook.policy.fix_percent"))
	}
	if points("stress.points_per_fault", p.Stress.PointsPerFault) && p.Stress.PointsPerFault > 0 && !p.Stress.SelfReported {
		bad("stress.points_per_fault", i18n.T("gradebook.policy.fix_self_reported"))
	}
	switch {
	case p.Late.MaxDays < 0:
		bad("late.max_days", i18n.T("gradebook.policy.fix_negative"))
	case p.Late.MaxDays > MaxLateDays:
		bad("late.max_days", i18n.T("gradebook.policy.fix_days", i18n.Args{"Max": MaxLateDays}))
	}
	if (p.Late.PercentPerDay > 0 || p.Late.MaxDays > 0) && p.Due.IsZero() {
		bad("late", i18n.T("gradebook.policy.fix_due"))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return p, nil
}

// MaxLateDays is the longest late.max_days: ten years is a typo.
const MaxLateDays = 3650

// nesting is how deeply data nests, read as TOML before the decoder
// does: the most inline tables and arrays open at one point plus the
// dots of the key or table header there, outside strings and comments.
func nesting(data []byte) int {
	depth, dots, most := 0, 0, 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; c {
		case '#':
			for i < len(data) && data[i] != '\n' {
				i++
			}
			dots = 0
		case '"', '\'':
			i = skipString(data, i)
		case '{', '[':
			depth++
		case '}', ']':
			if depth > 0 {
				depth--
			}
		case '.':
			dots++
		case '\n', '=', ',':
			dots = 0
		}
		most = max(most, depth+dots)
	}
	return most
}

// skipString is the index of the last byte of the TOML string that
// starts at data[i]: basic ("…", with \ escapes) or literal ('…'), one
// line or three quotes for many.
func skipString(data []byte, i int) int {
	q := data[i]
	delim := []byte{q}
	if i+2 < len(data) && data[i+1] == q && data[i+2] == q {
		delim = []byte{q, q, q}
	}
	for j := i + len(delim); j < len(data); j++ {
		switch {
		case q == '"' && data[j] == '\\':
			j++
		case bytes.HasPrefix(data[j:], delim):
			return j + len(delim) - 1
		case len(delim) == 1 && data[j] == '\n':
			return j
		}
	}
	return len(data)
}

func sortedKeys(m map[string]float64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// StressPoints is each stress fault's points, 0 when stress is not
// counted.
func (p *Policy) StressPoints() float64 {
	if p == nil {
		return 0
	}
	return p.Stress.PointsPerFault
}

// stepPoints is step n's points (1-based).
func (p *Policy) stepPoints(n int) float64 {
	if p == nil {
		return 1
	}
	if v, ok := p.Steps[strconv.Itoa(n)]; ok {
		return v
	}
	if p.StepPoints != nil {
		return *p.StepPoints
	}
	return 1
}

// checkPoints is check id's points on top of its step's.
func (p *Policy) checkPoints(id string) float64 {
	if p == nil {
		return 0
	}
	return p.Checks[id]
}

// seen is check id's visibility, before and after the due date, with
// the defaults filled in.
func (p *Policy) seen(id string) Seen {
	s := Seen{BeforeDue: Visible, AfterDue: Visible}
	if p == nil {
		return s
	}
	over := func(o Seen) {
		if o.BeforeDue != "" {
			s.BeforeDue = o.BeforeDue
		}
		if o.AfterDue != "" {
			s.AfterDue = o.AfterDue
		}
	}
	over(p.Visibility.Seen)
	if o, ok := p.Visibility.Checks[id]; ok {
		over(o)
	}
	return s
}

// gradescopeVisibility is check id's visibility in Gradescope's words:
// Gradescope knows the due date and applies it.
func (p *Policy) gradescopeVisibility(id string) string {
	s := p.seen(id)
	switch {
	case s.BeforeDue == Visible:
		return gsVisible
	case s.AfterDue == Visible:
		return gsAfterDueDate
	}
	return gsHidden
}

// shown tells whether check id is shown to the learner at now, for the
// formats that have no visibility of their own (Classroom).
func (p *Policy) shown(id string, now time.Time) bool {
	s := p.seen(id)
	if p == nil || p.Due.IsZero() || now.Before(p.Due) {
		return s.BeforeDue == Visible
	}
	return s.AfterDue == Visible
}

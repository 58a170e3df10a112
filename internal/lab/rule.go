package lab

// The lab's expected answers as data: for every key of every evidence
// file, the check id that owns it, what must hold in LAB.md's words, the
// value or rule a correct run meets, and which hint helps when it does
// not. The steps' ✓/✗ lines, `cnpa check` and the tests' assertions all
// judge evidence through this one table (Rules), and report.json has its
// one computation here (ComputeReport).
//
// The keys and JSON types of each file are its step's Shape; the rules add
// the values, and TestRulesCoverShapes holds the two to the same keys.

import (
	"encoding/json"
	"fmt"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Hint says which advice fits a failed rule; the grader words it, since the
// words depend on which files exist (see check's redo and stale).
type Hint int

const (
	// Redo: the step must write its file again.
	Redo Hint = iota
	// Stale: the value disagrees with the cluster or another file; it was
	// edited or is left from an earlier run.
	Stale
	// StartOver: what the value is compared with is gone; only a new run
	// of the whole lab helps.
	StartOver
)

// Verdict is what a rule, a fact row or a probe decides: the one verdict
// type of the grader, the steps' ✓/✗ lines and `cnpa report`.
type Verdict struct {
	OK bool
	// Want and Got are both sides, as JSON values or in words. A rule's
	// judge leaves Want empty for "what the rule expects" (HoldsExpected).
	Want, Got string
	// Skip is non-empty when it could not decide, and says why: what it
	// compares with is missing or broken and fails its own check.
	Skip string
	// Hint overrides the rule's kind of advice for this outcome (rules).
	Hint *Hint
	// Advice overrides the check's advice, in words, for this outcome
	// (fact rows and probes, whose advice is not a kind).
	Advice string
	// Note is what cnpa's engines add beyond the lab text, or what a check
	// of something the lab text does not ask found (judge.Check.Note).
	Note string
	// Optional: the lab text does not ask for what this checks, so when it
	// does not hold the check is a note, not a failure.
	Optional bool
	// Mistake is the classic mistake this outcome shows, when it shows one
	// the check's row does not name by itself.
	Mistake Mistake
}

// Inputs is what a rule may compare a value with besides the value itself.
type Inputs struct {
	// Alpha is the live TeamSpace alpha, nil when it does not exist.
	Alpha *teamspace.TeamSpace
	// AlphaUnknown, when non-empty, says why the live alpha could not be
	// read at all (no cluster: `cnpa report` works offline); rules that
	// compare with it then skip instead of calling alpha gone.
	AlphaUnknown string
	// Value returns key of another evidence file, or why it cannot be used.
	Value func(file, key string) (any, string)
	// QuotaRead: the live team-alpha/team-quota was read (by `cnpa check`,
	// or recorded in a submission), and QuotaUID is its uid, "" when it
	// does not exist. Without it (a step's own lines) a rule that would
	// compare with it judges the file alone.
	QuotaRead bool
	QuotaUID  string
	// ArchiveUID is the uid in archive/beta.json; ArchiveProblem says why
	// it cannot be used when it is non-empty.
	ArchiveUID, ArchiveProblem string
	// Report is report.json as computed from the other files (ComputeReport),
	// keyed like the file; ReportProblem says why it could not be computed.
	Report        map[string]any
	ReportProblem string
}

// Rule is one key of one evidence file as LAB.md asks for it.
type Rule struct {
	File, Key string
	// Step is the step whose property the key shows.
	Step int
	// ID is the check id, stable across releases: scripts and graders
	// depend on it.
	ID string
	// Expected is the JSON value every correct file has ("false", "6",
	// `"8"`, "null"); empty when no one value is: the rule's words say it
	// (check.rule.<ID>.expected, ExpectedSaid). What must hold is said in
	// words by check.rule.<ID>.title (TitleSaid).
	Expected string
	// Hint is the advice when the rule fails (a Verdict may override it).
	Hint Hint
	// Mistake is the classic mistake its failure points to, when the
	// verdict names none.
	Mistake Mistake
	// Judge decides; v is the decoded value (string, int64, bool, or
	// json.RawMessage for a null-or-object key). A verdict that wants what
	// the rule says leaves Want empty (HoldsExpected); Apply puts the
	// rule's expected value in its place.
	Judge func(v any, in *Inputs) Verdict
	// Why is the message id (lab.why.*) of one sentence saying why the
	// expected value is the right one, for the lab's point rather than its
	// letter: said before the hint when the rule fails, so that a hint
	// nudges before it gives the answer.
	Why string
}

// Values decodes a record the way the rules read it: strings as string,
// integers as int64, booleans as bool, null-or-object keys as
// json.RawMessage. v is a record struct of package evidence.
func (t Table) Values(file string, v any) (map[string]any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	out := map[string]any{}
	for _, k := range t.ShapeOf(file) {
		val, err := Decode(k.Kind, raw[k.Name])
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", file, k.Name, err)
		}
		out[k.Name] = val
	}
	return out, nil
}

// Decode turns one raw JSON value of the given kind into what rules read.
func Decode(kind evidence.Kind, raw json.RawMessage) (any, error) {
	switch kind {
	case evidence.String:
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case evidence.Integer:
		var n int64
		err := json.Unmarshal(raw, &n)
		return n, err
	case evidence.Bool:
		var b bool
		err := json.Unmarshal(raw, &b)
		return b, err
	case evidence.IntegerOrString:
		var n int64
		if json.Unmarshal(raw, &n) == nil {
			return n, nil
		}
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	return raw, nil
}

// Show renders a value as JSON: strings quoted, null as null.
func Show(v any) string {
	if raw, ok := v.(json.RawMessage); ok {
		return string(raw)
	}
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}

// Same compares two values by their JSON form, so 6 and int64(6) are equal
// and "6" and 6 are not, as the lab's types demand.
func Same(want, got any) Verdict {
	w, g := Show(want), Show(got)
	return Verdict{OK: w == g, Want: w, Got: g}
}

// Holds reports a condition with its own wording for both sides.
func Holds(ok bool, want, got string) Verdict { return Verdict{OK: ok, Want: want, Got: got} }

// HoldsExpected reports a condition whose wanted side is the rule's own
// expected value (Rule.Expected, or its words): Want stays empty until
// Rule.Apply says it.
func HoldsExpected(ok bool, got string) Verdict { return Verdict{OK: ok, Got: got} }

// Skipped is the verdict of a rule that could not decide.
func Skipped(why string) Verdict { return Verdict{Skip: why} }

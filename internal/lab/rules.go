package lab

import "github.com/labhub/cnpa/internal/i18n"

// Rules is every key of every evidence file, in lab order: LAB.md's
// expected values, one row each, from each step's Rules (step5_drift.go)
// with the step's file and number filled in.
var Rules = allRules()

func allRules() []Rule {
	var out []Rule
	for _, s := range Steps {
		for _, r := range s.Rules {
			r.File, r.Step = s.File, s.Number
			out = append(out, r)
		}
	}
	return out
}

// reportRules are step 8's: every key of report.json is what the other
// files give (ComputeReport).
func reportRules() []Rule {
	var out []Rule
	for _, k := range reportShape {
		out = append(out, Rule{Key: k.Name, ID: "step8." + k.Name,
			Title: "report.json " + k.Name + " is what the other files give", Expected: "the value computed from the other files",
			Judge: computed(k.Name)})
	}
	return out
}

// is is the rule "exactly this value".
func is(want any) func(any, *Inputs) Verdict {
	return func(v any, _ *Inputs) Verdict { return Same(want, v) }
}

// alphaUID is the rule "the live alpha's uid". Without alpha nothing can
// match it, and only a new run helps; when alpha could not be asked for at
// all, the rule cannot decide.
func alphaUID(v any, in *Inputs) Verdict {
	if in.AlphaUnknown != "" {
		return Skipped(in.AlphaUnknown)
	}
	if in.Alpha == nil {
		h := StartOver
		return Verdict{Want: "the live alpha's uid", Got: i18n.T("check.alpha_missing"), Hint: &h}
	}
	r := Same(string(in.Alpha.UID), v)
	h := Stale
	r.Hint = &h
	return r
}

// reportConstants are report.json's keys whose value does not depend on
// the other files: they can be judged even when those cannot be read.
var reportConstants = map[string]any{"finalizer": reportFinalizer, "trigger": reportTrigger}

// computed is the rule "what ComputeReport gives for key".
func computed(key string) func(any, *Inputs) Verdict {
	return func(v any, in *Inputs) Verdict {
		if in.ReportProblem != "" {
			w, ok := reportConstants[key]
			if !ok {
				return Skipped(in.ReportProblem)
			}
			return Same(w, v)
		}
		return Same(in.Report[key], v)
	}
}

package step8

import "github.com/labhub/cnpa/internal/lab"

// rules are step 8's: every key of report.json is what the other files
// give (lab.ComputeReport). They share their words, the key in the title
// (check.rule.step8.title, .expected).
func rules() []lab.Rule {
	var out []lab.Rule
	for _, k := range shape {
		r := lab.Rule{Key: k.Name, ID: "step8." + k.Name, Judge: computed(k.Name)}
		if k.Name == "trigger" {
			// "level" is the answer; what it means is the lesson.
			r.Why = "lab.why.trigger"
		}
		out = append(out, r)
	}
	return out
}

// constants are report.json's keys whose value does not depend on the
// other files: they can be judged even when those cannot be read.
var constants = map[string]any{"finalizer": lab.ReportFinalizer, "trigger": lab.ReportTrigger}

// computed is the rule "what lab.ComputeReport gives for key".
func computed(key string) func(any, *lab.Inputs) lab.Verdict {
	return func(v any, in *lab.Inputs) lab.Verdict {
		if in.ReportProblem != "" {
			w, ok := constants[key]
			if !ok {
				return lab.Skipped(in.ReportProblem)
			}
			return lab.Same(w, v)
		}
		return lab.Same(in.Report[key], v)
	}
}

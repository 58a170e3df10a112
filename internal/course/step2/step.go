// Package step2 is the lab's step 2, what bumps metadata.generation: all of
// it in one folder, the step (step.go), its grading (grade.go), its probes
// (probe*.go) and its run (run*.go); package course lists it in the one
// table.
package step2

import (
	"bytes"
	"encoding/json"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/lab"
)

// Step is step 2 of the lab: the file it writes and that file's shape, the
// rule for every key, and the commands of its explanation. Its words, and
// its rules', are the catalog's (step2.*, check.rule.step2.*).
var Step = &lab.Step{Number: 2, File: lab.GenerationFile, OnceOnly: true,
	// Its keys as LAB.md names them, in its order, and their JSON types.
	Shape: []evidence.Key{
		{Name: "uid", Kind: evidence.String},
		{Name: "gen_initial", Kind: evidence.Integer},
		{Name: "gen_after_label", Kind: evidence.Integer},
		{Name: "gen_after_spec", Kind: evidence.Integer},
		{Name: "status_via_main", Kind: evidence.NullOrObject},
	},
	Explanation: lab.Explanation{
		Commands: []string{
			"kubectl get teamspace alpha -o jsonpath='{.metadata.generation}'   #",
			"kubectl label teamspace alpha owner=platform",
			"kubectl patch teamspace alpha --type=merge -p '{\"status\":{\"observedGeneration\":7}}'",
			"kubectl get teamspace alpha -o jsonpath='{.status}'                #",
			"kubectl patch teamspace alpha --type=merge -p '{\"spec\":{\"pods\":6}}'",
			"kubectl get teamspace alpha -o jsonpath='{.metadata.generation}'   #",
		},
	},
	Rules: []lab.Rule{
		{Key: "uid", ID: "step2.uid", Mistake: lab.MistakeStale, Judge: lab.AlphaUID},
		{Key: "gen_initial", ID: "step2.gen_initial", Expected: "1", Judge: lab.Is(1)},
		{Key: "gen_after_label", ID: "step2.gen_after_label", Expected: "1", Judge: lab.Is(1)},
		{Key: "gen_after_spec", ID: "step2.gen_after_spec", Expected: "2", Judge: lab.Is(2)},
		{Key: "status_via_main", ID: "step2.status_via_main", Expected: "null",
			Judge: func(v any, _ *lab.Inputs) lab.Verdict {
				var b bytes.Buffer
				if err := json.Compact(&b, v.(json.RawMessage)); err != nil {
					return lab.Holds(false, "null", string(v.(json.RawMessage)))
				}
				return lab.Same(json.RawMessage("null"), json.RawMessage(b.String()))
			}},
	},
}

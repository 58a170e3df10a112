// Package step2 is step 2 of the lab, generation: everything of it in one
// place (see package course).
package step2

import (
	"bytes"
	"encoding/json"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/lab"
)

// Step is step 2 of the lab: what it teaches, the file it writes and that
// file's shape, the rule for every key, and its explanation.
var Step = &lab.Step{Number: 2, Title: "What bumps metadata.generation", File: lab.GenerationFile, OnceOnly: true,
	Teaches: "Only a spec change bumps generation; a label moves resourceVersion only. With\n" +
		"the status subresource on, status sent to the main endpoint is dropped without\n" +
		"an error.",
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
			"kubectl get teamspace alpha -o jsonpath='{.metadata.generation}'   # 1",
			"kubectl label teamspace alpha owner=platform",
			"kubectl patch teamspace alpha --type=merge -p '{\"status\":{\"observedGeneration\":7}}'",
			"kubectl get teamspace alpha -o jsonpath='{.status}'                # empty",
			"kubectl patch teamspace alpha --type=merge -p '{\"spec\":{\"pods\":6}}'",
			"kubectl get teamspace alpha -o jsonpath='{.metadata.generation}'   # 2",
		},
		LookAt: "The status patch answers `teamspace.platform.labhub.io/alpha patched (no change)`:\n" +
			"with the status subresource on, the main endpoint drops .status. Only the spec\n" +
			"patch moves metadata.generation; every write moves metadata.resourceVersion.",
	},
	Rules: []lab.Rule{
		{Key: "uid", ID: "step2.uid", Mistake: lab.MistakeStale,
			Title: "generation.json uid is the live alpha's uid", Expected: "the live alpha's uid", Judge: lab.AlphaUID},
		{Key: "gen_initial", ID: "step2.gen_initial",
			Title: "generation.json gen_initial is 1", Expected: "1", Judge: lab.Is(1)},
		{Key: "gen_after_label", ID: "step2.gen_after_label",
			Title: "generation.json gen_after_label is 1: a label does not bump generation", Expected: "1", Judge: lab.Is(1)},
		{Key: "gen_after_spec", ID: "step2.gen_after_spec",
			Title: "generation.json gen_after_spec is 2: a spec change does", Expected: "2", Judge: lab.Is(2)},
		{Key: "status_via_main", ID: "step2.status_via_main",
			Title: "generation.json status_via_main is null: status sent to the main endpoint is dropped", Expected: "null",
			Judge: func(v any, _ *lab.Inputs) lab.Verdict {
				var b bytes.Buffer
				if err := json.Compact(&b, v.(json.RawMessage)); err != nil {
					return lab.Holds(false, "null", string(v.(json.RawMessage)))
				}
				return lab.Same(json.RawMessage("null"), json.RawMessage(b.String()))
			}},
	},
}

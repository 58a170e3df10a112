// Package step8 is step 8 of the lab, report: everything of it in one
// place (see package course).
package step8

import (
	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/lab"
)

// shape is report.json's keys as LAB.md names them, in its order,
// and their JSON types: a variable of its own, since step 8's rules are
// made from it.
var shape = []evidence.Key{
	{Name: "crd_alone_created_namespace", Kind: evidence.Bool},
	{Name: "status_bumps_generation", Kind: evidence.Bool},
	{Name: "restore_seconds", Kind: evidence.Integer},
	{Name: "finalizer", Kind: evidence.String},
	{Name: "archived", Kind: evidence.String},
	{Name: "generations_behind_while_stopped", Kind: evidence.Integer},
	{Name: "trigger", Kind: evidence.String},
}

// Step is step 8 of the lab: what it teaches, the file it writes and that
// file's shape, the rule for every key, and its explanation.
var Step = &lab.Step{Number: 8, Title: "Leave what the controller did as values", File: lab.ReportFile, Computed: true,
	Teaches: "report.json condenses the lab into values computed from the files above: the\n" +
		"controller is level-triggered, so it converges from the current state whatever\n" +
		"happened in between.",
	Shape: shape,
	Explanation: lab.Explanation{
		Commands: []string{
			"jq -n --slurpfile b /root/cnpa-op/before.json --slurpfile c /root/cnpa-op/catchup.json \\\n" +
				"   '{crd_alone_created_namespace: $b[0].namespace_exists, generations_behind_while_stopped: ($c[0].generation - $c[0].observed_while_stopped)}'",
			"cnpa check",
		},
		LookAt: "Every value of report.json comes from the files of steps 1-7 and archive/beta.json;\n" +
			"`cnpa check` recomputes it and grades every file against the live cluster.",
	},
	// Every key of report.json is what the other files give.
	Rules: rules(),
}

// Package step8 is the lab's step 8, the report: all of it in one folder,
// the step (step.go), its grading (grade.go), its probes (probe*.go) and its
// run (run*.go); package course lists it in the one table.
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

// Step is step 8 of the lab: the file it writes and that file's shape, the
// rule for every key, and the commands of its explanation. Its words, and
// its rules', are the catalog's (step8.*, check.rule.step8.*).
var Step = &lab.Step{Number: 8, File: lab.ReportFile, Computed: true,
	Shape: shape,
	Explanation: lab.Explanation{
		Commands: []string{
			"jq -n --slurpfile b /root/cnpa-op/before.json --slurpfile c /root/cnpa-op/catchup.json \\\n" +
				"   '{crd_alone_created_namespace: $b[0].namespace_exists, generations_behind_while_stopped: ($c[0].generation - $c[0].observed_while_stopped)}'",
			"cnpa check",
		},
	},
	// Every key of report.json is what the other files give.
	Rules: rules(),
}

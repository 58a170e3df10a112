// Package step4 is the lab's step 4, the service: all of it in one folder,
// the step (step.go), its grading (grade.go), its probes (probe*.go) and its
// run (run*.go); package course lists it in the one table.
package step4

import (
	"github.com/labhub/cnpa/internal/lab"
)

// Step is step 4 of the lab: the file it writes and that file's shape, the
// rule for every key, and the commands of its explanation. Its words, and
// its rules', are the catalog's (step4.*, check.rule.step4.*).
var Step = &lab.Step{Number: 4, Timeline: true, InstallsService: true,
	Explanation: lab.Explanation{
		Commands: []string{
			"$EDITOR /etc/systemd/system/cnpa-op.service       #",
			"systemctl daemon-reload && systemctl enable --now cnpa-op",
			"systemctl status cnpa-op",
			"kubectl apply -f - <<<'{\"apiVersion\":\"platform.labhub.io/v1alpha1\",\"kind\":\"TeamSpace\",\"metadata\":{\"name\":\"probe\"},\"spec\":{\"pods\":1}}'",
			"kubectl get namespace team-probe -w                #",
			"kubectl delete teamspace probe",
		},
	},
}

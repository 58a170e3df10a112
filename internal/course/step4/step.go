// Package step4 is step 4 of the lab, service: everything of it in one
// place (see package course).
package step4

import (
	"github.com/labhub/cnpa/internal/lab"
)

// Step is step 4 of the lab: what it teaches, the file it writes and that
// file's shape, the rule for every key, and its explanation.
var Step = &lab.Step{Number: 4, Title: "Not once, but continuously", Timeline: true, InstallsService: true,
	Teaches: "cnpa-op.service runs the reconcile loop forever (Restart=always). A new\n" +
		"TeamSpace gets its namespace and quota within seconds with nobody acting, as the\n" +
		"lab's grader checks.",
	Explanation: lab.Explanation{
		Commands: []string{
			"$EDITOR /etc/systemd/system/cnpa-op.service       # ExecStart=/bin/bash -c 'while true; do /root/cnpa-op/reconcile.sh; sleep 3; done'",
			"systemctl daemon-reload && systemctl enable --now cnpa-op",
			"systemctl status cnpa-op",
			"kubectl apply -f - <<<'{\"apiVersion\":\"platform.labhub.io/v1alpha1\",\"kind\":\"TeamSpace\",\"metadata\":{\"name\":\"probe\"},\"spec\":{\"pods\":1}}'",
			"kubectl get namespace team-probe -w                # appears within seconds",
			"kubectl delete teamspace probe",
		},
		LookAt: "`Restart=always` in the unit: the loop comes back after any exit. `journalctl -u\n" +
			"cnpa-op -f` shows each pass.",
		Beyond: "The lab text's unit runs as root with your kubeconfig (`--service-identity admin`). By default\n" +
			"cnpa first gives the service an identity of its own and shows each command: the\n" +
			"ServiceAccount kube-system/cnpa-controller with only the verbs a controller uses and an\n" +
			"admission policy that keeps its writes to team-* namespaces (kubectl apply), the wait\n" +
			"for its token, the kubeconfig that carries it (kubectl config view | jq), under systemd\n" +
			"the user cnpa-op, and the proof: as that identity, a label on kube-system is refused.",
	},
}

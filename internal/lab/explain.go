package lab

import (
	"fmt"
	"strings"
)

// Explanation is a step's teaching text for reading before or without a
// cluster: why the step exists, the commands a learner types to do it by
// hand, and what to look at in their output.
type Explanation struct {
	Commands []string
	LookAt   string
	// Beyond is what cnpa does in the step beyond LAB.md's commands, and
	// why; empty when nothing.
	Beyond string
	// Produces is what the learner's work must leave, as LAB.md asks it;
	// empty when the commands say it all.
	Produces []string
}

// The paths the explanations are written with, as on the lab's VM; Explain
// puts the learner's own in their place.
const (
	labDir     = "/root/cnpa-op"
	labUnitDir = "/etc/systemd/system"
)

// explanations hold, per step, what `cnpa explain N` adds to the step's
// Teaches text. The commands are LAB.md's, written as a learner on the k3s
// VM types them (evidence dir /root/cnpa-op).
var explanations = map[int]Explanation{
	1: {
		Commands: []string{
			"kubectl apply -f /root/cnpa-op/crd.yaml",
			"kubectl wait --for condition=Established crd/teamspaces.platform.labhub.io",
			"kubectl apply -f /root/cnpa-op/alpha.yaml        # TeamSpace alpha, spec.pods: 4",
			"kubectl get teamspace alpha -o jsonpath='{.metadata.uid}'",
			"kubectl get namespace team-alpha                  # exit code 1: NotFound",
		},
		LookAt: "`kubectl get teamspaces` lists alpha with its Pods and CPU columns, but Namespace and\n" +
			"Observed stay empty: the API server stores the object and does nothing else.",
	},
	2: {
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
	3: {
		Commands: []string{
			"$EDITOR /root/cnpa-op/reconcile.sh && chmod +x /root/cnpa-op/reconcile.sh",
			"/root/cnpa-op/reconcile.sh",
			"kubectl get namespace team-alpha -o yaml          # label and ownerReference",
			"kubectl get resourcequota team-quota -n team-alpha -o jsonpath='{.metadata.resourceVersion}'",
			"/root/cnpa-op/reconcile.sh                         # a second pass",
			"kubectl get resourcequota team-quota -n team-alpha -o jsonpath='{.metadata.resourceVersion}'",
		},
		Produces: []string{
			"namespace team-<name> with label platform.labhub.io/teamspace: <name> and an ownerReference to the TeamSpace",
			"ResourceQuota team-quota in it: hard.pods = spec.pods, hard.requests.cpu = spec.cpu",
			"the TeamSpace's status, through the status subresource: observedGeneration = metadata.generation,\n" +
				"namespace = team-<name>",
			"a second pass that finds all of it in place writes nothing at all (the grader runs it twice more)",
		},
		LookAt: "The two resourceVersions are equal: a pass that finds desired = actual writes\n" +
			"nothing. Status goes through the subresource: `kubectl patch teamspace alpha\n" +
			"--subresource=status --type=merge -p ...`. (`cnpa scaffold reconcile.sh` writes a\n" +
			"reference script when you want one to read.)",
	},
	4: {
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
		Beyond: "LAB.md's unit runs as root with your kubeconfig (`--service-identity admin`). By default\n" +
			"cnpa first gives the service an identity of its own and shows each command: the\n" +
			"ServiceAccount kube-system/cnpa-controller with only the verbs a controller uses and an\n" +
			"admission policy that keeps its writes to team-* namespaces (kubectl apply), the wait\n" +
			"for its token, the kubeconfig that carries it (kubectl config view | jq), under systemd\n" +
			"the user cnpa-op, and the proof: as that identity, a label on kube-system is refused.",
	},
	5: {
		Commands: []string{
			"kubectl get resourcequota team-quota -n team-alpha -o jsonpath='{.metadata.uid}'",
			"kubectl delete resourcequota team-quota -n team-alpha",
			"kubectl get resourcequota team-quota -n team-alpha -w   # back, with a new uid",
			"kubectl patch resourcequota team-quota -n team-alpha --type=merge -p '{\"spec\":{\"hard\":{\"pods\":\"99\"}}}'",
			"kubectl get resourcequota team-quota -n team-alpha -o jsonpath='{.spec.hard.pods}' # 6 again",
		},
		LookAt: "Nobody tells the controller the quota was deleted or edited; its next pass compares\n" +
			"and finds a difference. `kubectl describe teamspace alpha` shows the controller's\n" +
			"Events, and the quota's managedFields show who wrote each field.",
	},
	6: {
		Commands: []string{
			"# reconcile.sh: add platform.labhub.io/cleanup (keeping other finalizers); on deletion\n" +
				"#   write /root/cnpa-op/archive/<name>.json, then remove only that finalizer",
			"kubectl apply -f /root/cnpa-op/beta.yaml           # pods: 2, cpu: \"500m\"",
			"kubectl get namespace team-beta",
			"kubectl delete teamspace beta --wait=false",
			"kubectl get teamspace beta -o jsonpath='{.metadata.deletionTimestamp} {.metadata.finalizers}'",
			"cat /root/cnpa-op/archive/beta.json",
			"kubectl get namespace team-beta -w                 # Terminating, then gone",
		},
		LookAt: "Right after the delete, beta is still there with a deletionTimestamp: the finalizer\n" +
			"holds it until the archive record is written. team-beta then goes by garbage\n" +
			"collection, which rescans on its own period: it can take up to a minute.",
	},
	7: {
		Commands: []string{
			"systemctl stop cnpa-op",
			"kubectl patch teamspace alpha --type=merge -p '{\"spec\":{\"pods\":8}}'",
			"sleep 8",
			"kubectl get teamspace alpha -o jsonpath='{.metadata.generation} {.status.observedGeneration}'   # 3 2",
			"kubectl get resourcequota team-quota -n team-alpha -o jsonpath='{.spec.hard.pods}'             # 6",
			"systemctl start cnpa-op",
			"kubectl get teamspace alpha -o jsonpath='{.metadata.generation} {.status.observedGeneration}'   # 3 3",
		},
		LookAt: "observedGeneration < generation is the standard signal \"this spec is not acted on\n" +
			"yet\". Leave the service running: the graders of steps 4-7 need it.",
	},
	8: {
		Commands: []string{
			"jq -n --slurpfile b /root/cnpa-op/before.json --slurpfile c /root/cnpa-op/catchup.json \\\n" +
				"   '{crd_alone_created_namespace: $b[0].namespace_exists, generations_behind_while_stopped: ($c[0].generation - $c[0].observed_while_stopped)}'",
			"cnpa check",
		},
		LookAt: "Every value of report.json comes from the files of steps 1-7 and archive/beta.json;\n" +
			"`cnpa check` recomputes it and grades every file against the live cluster.",
	},
}

// Explain renders step n's teaching text: its title, why, the commands,
// what one pass must produce and what to look at, with the learner's
// evidence dir and unit dir in the paths. It needs no cluster.
func Explain(n int, dir, unitDir string) (string, error) {
	s, err := Get(n)
	if err != nil {
		return "", err
	}
	e := explanations[n]
	var b strings.Builder
	fmt.Fprintf(&b, "Step %d — %s\n\n", s.Number, s.Title)
	fmt.Fprintf(&b, "Why\n%s\n\n", indent(s.Teaches))
	paths := strings.NewReplacer(labDir, dir, labUnitDir, unitDir)
	if len(e.Produces) > 0 {
		b.WriteString("What one pass must produce, for every TeamSpace <name> (LAB.md)\n")
		for _, p := range e.Produces {
			fmt.Fprintf(&b, "  - %s\n", strings.ReplaceAll(p, "\n", "\n    "))
		}
		b.WriteString("\n")
	}
	b.WriteString("By hand\n")
	for _, c := range e.Commands {
		c = paths.Replace(c)
		if strings.HasPrefix(c, "#") {
			fmt.Fprintf(&b, "%s\n", indent(c))
			continue
		}
		fmt.Fprintf(&b, "  $ %s\n", strings.ReplaceAll(c, "\n", "\n    "))
	}
	fmt.Fprintf(&b, "\nWhat to look at\n%s\n", indent(paths.Replace(e.LookAt)))
	var cnpa []string
	if e.Beyond != "" {
		cnpa = append(cnpa, e.Beyond)
	}
	if s.Timeline {
		// The reaction is what these steps teach; the timeline shows it.
		cnpa = append(cnpa, fmt.Sprintf("The step ends with a timeline of the controller's reaction: who acted, what they did,\n"+
			"and how long after your action (kept in <dir>/.cnpa/timeline-step%d.json;\n"+
			"`cnpa report --html FILE` draws it as a chart).", s.Number))
	}
	if len(cnpa) > 0 {
		fmt.Fprintf(&b, "\nWhen cnpa runs it\n%s\n", indent(strings.Join(cnpa, "\n\n")))
	}
	return b.String(), nil
}

// indent indents each line of s by two spaces; empty lines stay empty.
func indent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "\n")
}

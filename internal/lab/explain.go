package lab

import (
	"fmt"
	"strings"
)

// Explanation is a step's teaching text (Step.Explanation) for reading before or without a
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

// Explain renders step n's teaching text: its title, why, the commands,
// what one pass must produce and what to look at, with the learner's
// evidence dir and unit dir in the paths. It needs no cluster. The
// service commands are systemd's, as on the lab's VM; ExplainFor gives
// those of the learner's service manager.
func Explain(n int, dir, unitDir string) (string, error) {
	return ExplainFor(n, Where{Dir: dir, UnitDir: unitDir})
}

// Where is the learner's machine as the teaching text shows it: their
// evidence dir, unit dir and service manager (systemd, or process: cnpa
// runs the loop as a detached process where systemd does not run).
type Where struct {
	Dir, UnitDir, ServiceManager string
}

// processCommands are the lab's systemd commands as a machine without
// systemd types them: `cnpa service` drives the loop there, and a
// systemctl would only answer "System has not been booted with systemd".
var processCommands = strings.NewReplacer(
	"systemctl daemon-reload && systemctl enable --now cnpa-op", "cnpa service start",
	"systemctl status cnpa-op", "cnpa service status",
	"systemctl stop cnpa-op", "cnpa service stop",
	"systemctl start cnpa-op", "cnpa service start",
	"journalctl -u\ncnpa-op -f", "cnpa service\nlogs",
	"journalctl -u cnpa-op -f", "cnpa service logs",
)

// ExplainFor is Explain with the learner's service manager: in process
// mode every systemctl and journalctl is the `cnpa service` command that
// does the same there, and the unit file step 4 writes is cnpa's to
// write (`cnpa step 4`).
func ExplainFor(n int, w Where) (string, error) {
	dir, unitDir := w.Dir, w.UnitDir
	process := w.ServiceManager == "process"
	s, err := Get(n)
	if err != nil {
		return "", err
	}
	e := s.Explanation
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
	if process && s == Service {
		b.WriteString("  # no systemd on this machine: cnpa runs the loop as a detached process (--service-manager process)\n")
	}
	for _, c := range e.Commands {
		if process {
			if strings.Contains(c, labUnitDir+"/") {
				// No unit to edit: the loop is cnpa's process.
				continue
			}
			c = processCommands.Replace(c)
		}
		c = paths.Replace(c)
		if strings.HasPrefix(c, "#") {
			fmt.Fprintf(&b, "%s\n", indent(c))
			continue
		}
		fmt.Fprintf(&b, "  $ %s\n", strings.ReplaceAll(c, "\n", "\n    "))
	}
	lookAt := e.LookAt
	if process {
		lookAt = processCommands.Replace(lookAt)
	}
	fmt.Fprintf(&b, "\nWhat to look at\n%s\n", indent(paths.Replace(lookAt)))
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

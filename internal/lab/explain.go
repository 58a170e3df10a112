package lab

import (
	"fmt"
	"strings"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/ui"
)

// Explanation is a step's teaching text (Step.Explanation) for reading before or without a
// cluster: why the step exists, the commands a learner types to do it by
// hand, and what to look at in their output.
type Explanation struct {
	Commands []string
	LookAt   string
	// Beyond is what cnpa does in the step beyond the lab text's commands, and
	// why; empty when nothing.
	Beyond string
	// Produces is what the learner's work must leave, as the lab text asks it;
	// empty when the commands say it all.
	Produces []string
}

// The paths the explanations are written with, as on the lab's VM; Explain
// puts the learner's own in their place.
const (
	labDir     = "/root/cnpa-op"
	labUnitDir = "/etc/systemd/system"
)

// Explain renders step n's teaching text in the chosen language (package
// i18n): its title, why, the commands, what one pass must produce and what
// to look at, with the learner's evidence dir and unit dir in the paths.
// It needs no cluster. The commands are the same in every language; their
// comments are translated. The service commands are systemd's, as on the
// lab's VM; ExplainFor gives those of the learner's service manager.
func (t Table) Explain(n int, dir, unitDir string) (string, error) {
	return t.ExplainFor(n, Where{Dir: dir, UnitDir: unitDir})
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
func (t Table) ExplainFor(n int, w Where) (string, error) {
	dir, unitDir := w.Dir, w.UnitDir
	process := w.ServiceManager == "process"
	s, err := t.Get(n)
	if err != nil {
		return "", err
	}
	e := s.Explanation
	// English keeps the breaks its text is written with; the other
	// languages are written as paragraphs and wrapped to 80 columns.
	wrap := func(t string) string { return t }
	if i18n.Current() != i18n.English {
		wrap = func(t string) string { return ui.Wrap(t, ProseColumns) }
	}
	var b strings.Builder
	b.WriteString(i18n.T("explain.heading", i18n.Args{"N": s.Number, "Title": s.Heading()}) + "\n\n")
	fmt.Fprintf(&b, "%s\n%s\n\n", i18n.T("explain.why"), wrap(indent(s.Text("teaches", s.Teaches))))
	paths := strings.NewReplacer(labDir, dir, labUnitDir, unitDir)
	if len(e.Produces) > 0 {
		b.WriteString(i18n.T("explain.produces") + "\n")
		for i, p := range e.Produces {
			p = s.Text(fmt.Sprintf("produces.%d", i+1), p)
			b.WriteString(wrap(fmt.Sprintf("  - %s", strings.ReplaceAll(p, "\n", "\n    "))) + "\n")
		}
		b.WriteString("\n")
	}
	b.WriteString(i18n.T("explain.by_hand") + "\n")
	if process && s.InstallsService {
		b.WriteString(indent("# "+i18n.T("explain.no_systemd")) + "\n")
	}
	for i, c := range e.Commands {
		c = s.command(i+1, c)
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
	lookAt := s.Text("look_at", e.LookAt)
	if process {
		lookAt = processCommands.Replace(lookAt)
	}
	fmt.Fprintf(&b, "\n%s\n%s\n", i18n.T("explain.look_at"), wrap(indent(paths.Replace(lookAt))))
	var cnpa []string
	if e.Beyond != "" {
		cnpa = append(cnpa, s.Text("beyond", e.Beyond))
	}
	if s.Timeline {
		// The reaction is what these steps teach; the timeline shows it.
		cnpa = append(cnpa, i18n.T("explain.timeline", i18n.Args{"N": s.Number}))
	}
	if len(cnpa) > 0 {
		fmt.Fprintf(&b, "\n%s\n%s\n", i18n.T("explain.when_cnpa"), wrap(indent(strings.Join(cnpa, "\n\n"))))
	}
	return b.String(), nil
}

// ProseColumns is the widest a line of prose may be (TestExplainWidth).
const ProseColumns = 80

// Heading is the step's title in the chosen language: in Japanese, the
// lab text's own heading for the step.
func (s *Step) Heading() string { return s.Text("title", s.Title) }

// Heading is step n's heading in the chosen language, from the catalog
// alone (message stepN.title); ok is false for a number the lab has no
// step for.
func Heading(n int) (heading string, ok bool) {
	id := fmt.Sprintf("step%d.title", n)
	if !i18n.Current().Has(id) && !i18n.English.Has(id) {
		return "", false
	}
	return i18n.T(id), true
}

// Text is the step's text called part ("title", "teaches", "look_at",
// "beyond", "produces.N", "cmd.N") in the chosen language: message
// "stepN.part" of the catalog. In English it is english, the text as the
// step's file has it (TestCatalogMatchesSteps holds the English catalog to
// the same words).
func (s *Step) Text(part, english string) string {
	if i18n.Current() == i18n.English {
		return english
	}
	return i18n.T(fmt.Sprintf("step%d.%s", s.Number, part))
}

// command is the i-th command (from 1) of the step's explanation with its
// comment in the chosen language: a command line's comment after "#", or
// a line that is a comment only.
func (s *Step) command(i int, c string) string {
	if i18n.Current() == i18n.English {
		return c
	}
	if strings.HasPrefix(c, "#") {
		return s.Text(fmt.Sprintf("cmd.%d", i), c)
	}
	cmd, _, ok := CommandComment(c)
	if !ok {
		return c
	}
	return cmd + "# " + s.Text(fmt.Sprintf("cmd.%d", i), "")
}

// CommandComment splits a shown command at its comment: cmd keeps the
// spaces before "#", comment is what follows "# ". ok is false for a
// command without one; a "#" inside single quotes is not a comment.
func CommandComment(c string) (cmd, comment string, ok bool) {
	i := strings.LastIndex(c, " # ")
	if i < 0 || strings.Count(c[:i], "'")%2 != 0 {
		return c, "", false
	}
	return c[:i+1], c[i+3:], true
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

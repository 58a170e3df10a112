package lab

import (
	"fmt"
	"strings"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/ui"
)

// Explanation is a step's teaching text (Step.Explanation) for reading before or without a
// cluster: why the step exists, the commands a learner types to do it by
// hand, and what to look at in their output. Its words are the catalog's,
// in every language: stepN.look_at (what to look at), stepN.beyond (what
// cnpa does beyond the lab text's commands, and why; absent when
// nothing), stepN.produces.1, .2, … (what the learner's work must leave,
// as the lab text asks it; absent when the commands say it all) and
// stepN.cmd.M (the comment of the M-th command).
type Explanation struct {
	// Commands are the commands to type, as they are in every language. A
	// command's comment is the catalog's stepN.cmd.M, M counting from 1:
	// a command ending in " #" has it after the "#" (the spaces before
	// align it), and a command that is "#" alone is a comment line, its
	// lines' "#" in the message.
	Commands []string
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
	fmt.Fprintf(&b, "%s\n%s\n\n", i18n.T("explain.why"), wrap(indent(s.Teaching())))
	paths := strings.NewReplacer(labDir, dir, labUnitDir, unitDir)
	if produces := s.produces(); produces > 0 {
		b.WriteString(i18n.T("explain.produces") + "\n")
		for i := 1; i <= produces; i++ {
			p := s.text(fmt.Sprintf("produces.%d", i))
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
	lookAt := s.text("look_at")
	if process {
		lookAt = processCommands.Replace(lookAt)
	}
	fmt.Fprintf(&b, "\n%s\n%s\n", i18n.T("explain.look_at"), wrap(indent(paths.Replace(lookAt))))
	var cnpa []string
	if s.has("beyond") {
		cnpa = append(cnpa, s.text("beyond"))
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

// Heading is the step's title in the chosen language (stepN.title): in
// Japanese, the lab text's own heading for the step.
func (s *Step) Heading() string { return s.text("title") }

// Teaching is what the step teaches, in the chosen language
// (stepN.teaches).
func (s *Step) Teaching() string { return s.text("teaches") }

// EnglishTitle is the step's title in English whatever the language, as
// records keep it for programs: a step's result in -o json, a timeline.
func (s *Step) EnglishTitle() string { return i18n.English.T(s.id("title")) }

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

// Messages are the catalog messages that are the step's words, by id, in
// the order Explain says them: stepN.title, .teaches, .produces.M,
// .cmd.M (for each command with a comment), .look_at and .beyond. Every
// catalog has each, and no other message of the step (TestStepWords).
func (s *Step) Messages() []string {
	out := []string{s.id("title"), s.id("teaches")}
	for i := 1; i <= s.produces(); i++ {
		out = append(out, s.id(fmt.Sprintf("produces.%d", i)))
	}
	for i, c := range s.Explanation.Commands {
		if _, commented := SplitCommand(c); commented {
			out = append(out, s.id(fmt.Sprintf("cmd.%d", i+1)))
		}
	}
	out = append(out, s.id("look_at"))
	if s.has("beyond") {
		out = append(out, s.id("beyond"))
	}
	return out
}

// id is the catalog id of the step's part ("title", "cmd.2"): stepN.part.
func (s *Step) id(part string) string { return fmt.Sprintf("step%d.%s", s.Number, part) }

// text is the step's part in the chosen language.
func (s *Step) text(part string) string { return i18n.T(s.id(part)) }

// has tells whether the step has the optional part (beyond, produces.M):
// whether English, which every other catalog follows, says it.
func (s *Step) has(part string) bool { return i18n.English.Has(s.id(part)) }

// produces is how many things the step's work must leave: the M of
// stepN.produces.M, counted from 1 while the catalog has them.
func (s *Step) produces() int {
	n := 0
	for s.has(fmt.Sprintf("produces.%d", n+1)) {
		n++
	}
	return n
}

// command is the i-th command (from 1) of the step's explanation as
// shown, with its comment (stepN.cmd.M) in the chosen language: after
// the command's "#", or a comment line of its own.
func (s *Step) command(i int, c string) string {
	cmd, commented := SplitCommand(c)
	if !commented {
		return c
	}
	comment := s.text(fmt.Sprintf("cmd.%d", i))
	if cmd == "" {
		return comment
	}
	return cmd + "# " + comment
}

// SplitCommand reads one of Explanation.Commands: cmd is the command as
// typed, with the spaces before its "#" that align the comment; commented
// tells whether the catalog has a comment for it (stepN.cmd.M). A comment
// line of its own ("#") has no command.
func SplitCommand(c string) (cmd string, commented bool) {
	if c == "#" {
		return "", true
	}
	if cmd, ok := strings.CutSuffix(c, " #"); ok {
		return cmd + " ", true
	}
	return c, false
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

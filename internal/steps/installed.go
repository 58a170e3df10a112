package steps

// What steps 3, 4 and 6 install, shown: the reconcile script (whole for the
// Go engine, its kubectl lines for cnpa's shell script, the first lines of
// the learner's own), the API requests a Go pass made, and the unit file
// with the lines that matter to the lab marked.

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/service"
)

// defaultDir is the evidence dir LAB.md names; other dirs are spelled out
// in the commands shown.
const defaultDir = "/root/cnpa-op"

// cnpaCmd is a cnpa command line as typed, with --dir when the evidence
// dir is not LAB.md's and --context when one was named (the scripts cnpa
// writes carry it on).
func cnpaCmd(env *Lab, args ...string) string {
	if env.Target.ContextGiven {
		args = append([]string{"--context", env.Target.Context}, args...)
	}
	if env.Dir != defaultDir {
		args = append([]string{"--dir", env.Dir}, args...)
	}
	return "cnpa " + words(args...)
}

// showScript shows how reconcile.sh came to be and what it is. cnpa's
// engines write it as `cnpa scaffold` does, with the step's finalizer
// switch; the own engine's is the learner's, never written.
func showScript(sh shell, env *Lab) {
	path := env.ScriptPath()
	data, err := os.ReadFile(path)
	if err != nil {
		sh.comment("%s", say("steps.show.unreadable", "Path", path, "Err", err))
		return
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	switch env.Engine {
	case labenv.EngineOwn:
		sh.comment("%s", say("steps.show.own_script", "Path", path))
		shown := lines[:min(len(lines), 12)]
		sh.block(say("steps.show.first_lines", "Path", path, "N", len(shown), "Of", len(lines)), shown, nil)
	case labenv.EngineGo:
		sh.comment("%s", say("steps.show.script_go"))
		sh.cmd(cnpaCmd(env, "scaffold", labenv.ScriptName, "--engine", env.Engine, fmt.Sprintf("--finalizer=%t", env.State.Finalizer), "--force"))
		sh.block(path+":", lines, markGoScript(lines))
	default:
		sh.comment("%s", say("steps.show.script_shell"))
		sh.cmd(cnpaCmd(env, "scaffold", labenv.ScriptName, "--engine", env.Engine, fmt.Sprintf("--finalizer=%t", env.State.Finalizer), "--force"))
		var key []string
		for i, l := range lines {
			t := strings.TrimSpace(l)
			if strings.Contains(t, "kubectl ") && !strings.HasPrefix(t, "#") {
				key = append(key, fmt.Sprintf("%4d  %s", i+1, t))
			}
		}
		sh.block(say("steps.show.api_lines", "Path", path, "N", len(lines)), key, nil)
	}
}

// markGoScript marks the line that does the work in the Go engine's script.
func markGoScript(lines []string) map[int]string {
	marks := map[int]string{}
	for i, l := range lines {
		if strings.HasPrefix(l, "exec ") {
			marks[i] = say("steps.mark.go_exec")
		}
	}
	return marks
}

// showPass shows what the first pass printed; for the Go engine its API
// requests apart, as the lesson of a script that cannot be read.
func showPass(sh shell, env *Lab, out string) {
	var requests, rest []string
	for _, l := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if r, ok := strings.CutPrefix(l, kube.RequestLogPrefix); ok {
			requests = append(requests, r)
		} else if l != "" {
			rest = append(rest, l)
		}
	}
	showOutput(sh, strings.Join(rest, "\n"))
	if env.Engine == labenv.EngineGo {
		sh.block(say("steps.show.requests", "N", len(requests)), requests, nil)
	}
}

// showOutput shows the last lines a command printed.
func showOutput(sh shell, out string) {
	out = strings.TrimRight(out, "\n")
	if out == "" {
		return
	}
	lines := strings.Split(out, "\n")
	if len(lines) > 8 {
		sh.answer("%s", say("steps.show.lines_before", "N", len(lines)-8))
		lines = lines[len(lines)-8:]
	}
	for _, l := range lines {
		sh.answer("%s", l)
	}
}

// unitMarks say why the lines of cnpa-op.service that the lab depends on
// are there, keyed by the start of the line.
var unitMarks = []struct{ prefix, why string }{
	{"ExecStart=", "steps.mark.exec_start"},
	{"Restart=always", "steps.mark.restart"},
	{"RestartSec=", "steps.mark.restart_sec"},
	{`Environment="KUBECONFIG=`, "steps.mark.kubeconfig"},
	{"User=", "steps.mark.user"},
	{"LoadCredential=", "steps.mark.credential"},
	{"ReadWritePaths=", "steps.mark.rw_paths"},
	{"WantedBy=multi-user.target", "steps.mark.wanted_by"},
}

// lineEdit replaces the one line of a file that starts with key.
type lineEdit struct{ key, line string }

// sed is the edit as `sed -i` (a | delimiter; the replacement's \, & and |
// escaped for sed, then the whole expression quoted for bash).
func (e lineEdit) sed(path string) string {
	repl := strings.NewReplacer(`\`, `\\`, `&`, `\&`, `|`, `\|`).Replace(e.line)
	return words("sed", "-i", "s|^"+e.key+".*$|"+repl+"|", path)
}

// stampKey starts the line by which cnpa knows a unit as its own
// (service.CnpaWrote); no character of it is special to sed.
const stampKey = "# Written by cnpa; "

// directive is a unit file's directive name, as in ExecStart=.
var directive = regexp.MustCompile(`^[A-Za-z]+$`)

// lineEdits says how before becomes after when only whole lines changed,
// each keyed by its "Name=" prefix that exactly one line of before has;
// ok is false for any other change (then the file is shown whole).
func lineEdits(before []byte, after []string) (edits []lineEdit, ok bool) {
	old := strings.Split(strings.TrimRight(string(before), "\n"), "\n")
	if len(before) == 0 || len(old) != len(after) {
		return nil, false
	}
	for i := range old {
		if old[i] == after[i] {
			continue
		}
		if strings.HasPrefix(old[i], stampKey) && strings.HasPrefix(after[i], stampKey) {
			// The first line, cnpa's stamp (package service), holds the
			// hash of what it wrote: it changes with any other line.
			edits = append(edits, lineEdit{key: stampKey, line: after[i]})
			continue
		}
		key, _, found := strings.Cut(after[i], "=")
		// A directive name (letters only) needs no escaping in sed's pattern.
		if !found || !directive.MatchString(key) || !strings.HasPrefix(old[i], key+"=") {
			return nil, false
		}
		n := 0
		for _, l := range old {
			if strings.HasPrefix(l, key+"=") {
				n++
			}
		}
		if n != 1 {
			return nil, false
		}
		edits = append(edits, lineEdit{key: key + "=", line: after[i]})
	}
	return edits, len(edits) > 0
}

// unitTaught are the unit's lines LAB.md teaches, the ones shown without
// --verbose: what runs, and that systemd brings it back.
var unitTaught = []string{"ExecStart=", "Restart=always"}

// showUnit shows the unit file as written and how it is started: the
// lines LAB.md teaches (unitTaught), marked; with --verbose the whole file
// as a heredoc and every line the lab depends on (unitMarks). before is
// the unit as it was when step 6 rewrites it (restart), nil in step 4:
// step 6 shows only the lines that changed, never the unit a second time.
func showUnit(sh shell, env *Lab, restart bool, before []byte) {
	path := env.Service.UnitPath()
	data, err := os.ReadFile(path)
	if err != nil {
		sh.comment("%s", say("steps.show.unreadable", "Path", path, "Err", err))
		return
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	edits, edited := lineEdits(before, lines)
	edited = edited && restart
	if edited {
		// Step 6: the lines that changed, as sed edits, even with
		// --verbose: step 4 showed the unit, and replaying these edits
		// gives the unit as written now.
		for _, e := range edits {
			sh.cmd(e.sed(path))
		}
	} else if sh.verbose || bytes.Contains(data, []byte(labUnitMark)) {
		// LAB.md step 4's own unit is short: shown whole, as the lab does.
		sh.cmd(heredoc("cat >", path, data))
	} else {
		sh.comment("%s", say("steps.show.wrote_lines", "Path", path, "N", len(lines)))
	}
	marks := map[int]string{}
	var key []string
	heading := say("steps.show.unit_lines", "File", filepath.Base(path))
	if restart {
		was := map[string]bool{}
		for _, l := range strings.Split(string(before), "\n") {
			was[l] = true
		}
		for _, l := range lines {
			if !was[l] {
				key = append(key, l)
			}
		}
		heading = say("steps.show.unit_changed", "File", filepath.Base(path))
	} else {
		for _, l := range lines {
			for _, m := range unitMarks {
				if strings.HasPrefix(l, m.prefix) && (sh.verbose || slices.ContainsFunc(unitTaught, func(p string) bool { return strings.HasPrefix(l, p) })) {
					marks[len(key)] = say(m.why)
					key = append(key, l)
				}
			}
		}
	}
	if len(key) > 0 && !edited {
		sh.block(heading, key, marks)
	}
	sh.systemctl(env, "daemon-reload")
	if restart {
		sh.systemctl(env, "restart", service.Name)
	} else {
		sh.systemctl(env, "enable", "--now", service.Name)
	}
}

// labUnitMark is in the first lines of the lab text's step 4 unit as cnpa
// writes it for a learner's own controller (assets/cnpa-op-lab.service).
const labUnitMark = "# cnpa-op.service as the lab text's step 4 shows it"

// showLearnersUnit shows step 4 with the learner's own unit: used as it
// is, its lines that matter to the lab, and how it is started.
func showLearnersUnit(sh shell, env *Lab, data []byte) {
	path := env.Service.UnitPath()
	sh.comment("%s", say("steps.show.unit_yours", "Path", path))
	sh.block(say("steps.show.unit_lines", "File", filepath.Base(path)), unitKeyLines(data), nil)
	sh.systemctl(env, "daemon-reload")
	sh.systemctl(env, "enable", "--now", service.Name)
}

// unitKeyLines are a unit's ExecStart=, Restart= and RestartSec= lines.
func unitKeyLines(data []byte) []string {
	var key []string
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		for _, p := range []string{"ExecStart=", "Restart=", "RestartSec="} {
			if strings.HasPrefix(l, p) {
				key = append(key, l)
			}
		}
	}
	return key
}

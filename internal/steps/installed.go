package steps

// What steps 4 and 6 install, shown: the unit file with the lines that
// matter to the lab marked (step 6: the lines it changed, as sed edits),
// and cnpa's own command lines. The script step 3 installs is shown by
// step 3 (course/step3/run_script.go).

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/labhub/cnpa/internal/service"
)

// defaultDir is the evidence dir LAB.md names; other dirs are spelled out
// in the commands shown.
const defaultDir = "/root/cnpa-op"

// CnpaCmd is a cnpa command line as typed, with --dir when the evidence
// dir is not LAB.md's and --context when one was named (the scripts cnpa
// writes carry it on).
// Exported for steps 3 and 6, which show cnpa scaffold.
func CnpaCmd(env *Lab, args ...string) string {
	if env.Target.ContextGiven {
		args = append([]string{"--context", env.Target.Context}, args...)
	}
	if env.Dir != defaultDir {
		args = append([]string{"--dir", env.Dir}, args...)
	}
	return "cnpa " + Words(args...)
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
	return Words("sed", "-i", "s|^"+e.key+".*$|"+repl+"|", path)
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

// ShowUnit shows the unit file as written and how it is started: the
// lines LAB.md teaches (unitTaught), marked; with --verbose the whole file
// as a heredoc and every line the lab depends on (unitMarks). before is
// the unit as it was when step 6 rewrites it (restart), nil in step 4:
// step 6 shows only the lines that changed, never the unit a second time.
// Exported for both steps that write the unit, 4 and 6.
func ShowUnit(sh Shell, env *Lab, restart bool, before []byte) {
	path := env.Service.UnitPath()
	data, err := os.ReadFile(path)
	if err != nil {
		sh.Comment("%s", Say("steps.show.unreadable", "Path", path, "Err", err))
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
			sh.Cmd(e.sed(path))
		}
	} else if sh.verbose || bytes.Contains(data, []byte(labUnitMark)) {
		// LAB.md step 4's own unit is short: shown whole, as the lab does.
		sh.Cmd(heredoc("cat >", path, data))
	} else {
		sh.Comment("%s", Say("steps.show.wrote_lines", "Path", path, "N", len(lines)))
	}
	marks := map[int]string{}
	var key []string
	heading := Say("steps.show.unit_lines", "File", filepath.Base(path))
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
		heading = Say("steps.show.unit_changed", "File", filepath.Base(path))
	} else {
		for _, l := range lines {
			for _, m := range unitMarks {
				if strings.HasPrefix(l, m.prefix) && (sh.verbose || slices.ContainsFunc(unitTaught, func(p string) bool { return strings.HasPrefix(l, p) })) {
					marks[len(key)] = Say(m.why)
					key = append(key, l)
				}
			}
		}
	}
	if len(key) > 0 && !edited {
		sh.Block(heading, key, marks)
	}
	sh.Systemctl(env, "daemon-reload")
	if restart {
		sh.Systemctl(env, "restart", service.Name)
	} else {
		sh.Systemctl(env, "enable", "--now", service.Name)
	}
}

// labUnitMark is in the first lines of the lab text's step 4 unit as cnpa
// writes it for a learner's own controller (assets/cnpa-op-lab.service).
const labUnitMark = "# cnpa-op.service as the lab text's step 4 shows it"

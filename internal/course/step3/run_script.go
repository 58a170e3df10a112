package step3

// The script step 3 installs and runs, shown: the reconcile script (whole
// for the Go engine, its kubectl lines for cnpa's shell script, the first
// lines of the learner's own), and the API requests a Go pass made.

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/ssaconflict"
	"github.com/labhub/cnpa/internal/steps"
)

// runScript runs the installed reconcile.sh once as the service runs it
// (under its own identity once step 4 has made it); a failure carries what
// the script printed and whom it ran as.
func runScript(ctx context.Context, env *steps.Lab, sh steps.Shell, extraEnv ...string) (string, error) {
	run, err := env.PrepareScriptRun(ctx, extraEnv...)
	if err != nil {
		return "", err
	}
	// The command shown is the command run: a learner replays it.
	sh.Cmd(run.Shown)
	out, err := run.Run()
	if err != nil {
		failed := steps.Say("steps.script_failed", "Script", env.ScriptPath(), "As", run.As, "Err", err)
		if c := ssaconflict.Find(out); c != nil {
			// The script's own output shows its apply refused: say so
			// before the output.
			failed += "\n" + steps.ConflictLines(c)
		}
		return out, fmt.Errorf("%s\n%s", failed, strings.TrimSpace(out))
	}
	return out, nil
}

// showScript shows how reconcile.sh came to be and what it is. cnpa's
// engines write it as `cnpa scaffold` does, with the step's finalizer
// switch; the own engine's is the learner's, never written.
func showScript(sh steps.Shell, env *steps.Lab) {
	path := env.ScriptPath()
	data, err := os.ReadFile(path)
	if err != nil {
		sh.Comment("%s", steps.Say("steps.show.unreadable", "Path", path, "Err", err))
		return
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	switch env.Engine {
	case labenv.EngineOwn:
		sh.Comment("%s", steps.Say("steps.show.own_script", "Path", path))
		shown := lines[:min(len(lines), 12)]
		sh.Block(steps.Say("steps.show.first_lines", "Path", path, "N", len(shown), "Of", len(lines)), shown, nil)
	case labenv.EngineGo:
		sh.Comment("%s", steps.Say("steps.show.script_go"))
		sh.Cmd(steps.CnpaCmd(env, "scaffold", labenv.ScriptName, "--engine", env.Engine, fmt.Sprintf("--finalizer=%t", env.State.Finalizer), "--force"))
		sh.Block(path+":", lines, markGoScript(lines))
	default:
		sh.Comment("%s", steps.Say("steps.show.script_shell"))
		sh.Cmd(steps.CnpaCmd(env, "scaffold", labenv.ScriptName, "--engine", env.Engine, fmt.Sprintf("--finalizer=%t", env.State.Finalizer), "--force"))
		var key []string
		for i, l := range lines {
			t := strings.TrimSpace(l)
			if strings.Contains(t, "kubectl ") && !strings.HasPrefix(t, "#") {
				key = append(key, fmt.Sprintf("%4d  %s", i+1, t))
			}
		}
		sh.Block(steps.Say("steps.show.api_lines", "Path", path, "N", len(lines)), key, nil)
	}
}

// markGoScript marks the line that does the work in the Go engine's script.
func markGoScript(lines []string) map[int]string {
	marks := map[int]string{}
	for i, l := range lines {
		if strings.HasPrefix(l, "exec ") {
			marks[i] = steps.Say("steps.mark.go_exec")
		}
	}
	return marks
}

// showPass shows what the first pass printed; for the Go engine its API
// requests apart, as the lesson of a script that cannot be read.
func showPass(sh steps.Shell, env *steps.Lab, out string) {
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
		sh.Block(steps.Say("steps.show.requests", "N", len(requests)), requests, nil)
	}
}

// showOutput shows the last lines a command printed.
func showOutput(sh steps.Shell, out string) {
	out = strings.TrimRight(out, "\n")
	if out == "" {
		return
	}
	lines := strings.Split(out, "\n")
	if len(lines) > 8 {
		sh.Answer("%s", steps.Say("steps.show.lines_before", "N", len(lines)-8))
		lines = lines[len(lines)-8:]
	}
	for _, l := range lines {
		sh.Answer("%s", l)
	}
}

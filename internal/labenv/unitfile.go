package labenv

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/identity"
	"github.com/labhub/cnpa/internal/service"
)

// LearnersUnit is the unit file at the service's unit path when it is the
// learner's (service.CnpaWrote says cnpa did not write it, or it was
// edited since): cnpa uses it as it is and never rewrites it.
func (e *Env) LearnersUnit() (data []byte, theirs bool) {
	if e.Service == nil {
		return nil, false
	}
	data, err := os.ReadFile(e.Service.UnitPath())
	if err != nil {
		return nil, false
	}
	return data, !service.CnpaWrote(data)
}

// Identity is whom the service acts as: what was asked (and remembered),
// else admin for a learner's own controller or unit, as LAB.md's service
// runs (root with the cluster's admin kubeconfig), and own, the
// least-privilege ServiceAccount, for cnpa's own engines.
func (e *Env) Identity() string {
	if s := e.State.ServiceIdentity; s != "" {
		return s
	}
	if e.Engine == EngineOwn {
		return identity.Admin
	}
	if _, theirs := e.LearnersUnit(); theirs {
		return identity.Admin
	}
	return identity.Own
}

// UnitError is a learner's unit that misses what the lab text's step 4 asks: one
// line per miss. cnpa changed nothing in it.
type UnitError struct {
	Path  string
	Lines []string
}

func (e *UnitError) Error() string {
	return i18n.T("labenv.unit_error", i18n.Args{"Path": e.Path}) + "\n  " + strings.Join(e.Lines, "\n  ")
}

// sleepArg finds `sleep N` in a command line.
var sleepArg = regexp.MustCompile(`\bsleep\s+([0-9.]+)s?\b`)

// loopWord finds a shell loop in a command line.
var loopWord = regexp.MustCompile(`\b(while|until|for)\b`)

// about3s: "about every 3 seconds", as LAB.md step 4 says.
func about3s(v string) bool {
	f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), "s"), 64)
	return err == nil && f >= 1 && f <= 5
}

// CheckUnit holds a learner's unit to LAB.md step 4: Restart=always, an
// ExecStart that runs the evidence dir's reconcile.sh again and again,
// about every 3 s (a loop with `sleep 3`, or the script alone restarted
// with RestartSec=3), and an [Install] section that `systemctl enable`
// can use. It returns one line per miss, each naming what to write.
func (e *Env) CheckUnit(u service.UnitFile) []string {
	var lines []string
	switch {
	case u.Restart == "":
		lines = append(lines, i18n.T("labenv.unit.no_restart"))
	case u.Restart != "always":
		lines = append(lines, i18n.T("labenv.unit.restart", i18n.Args{"Restart": u.Restart}))
	}
	script := e.ScriptPath()
	runsScript := strings.Contains(u.ExecStart, script) ||
		(u.WorkingDirectory == e.Dir && regexp.MustCompile(`(^|[\s;'"/.])reconcile\.sh\b`).MatchString(u.ExecStart))
	loop := fmt.Sprintf("ExecStart=/bin/bash -c 'while true; do %s; sleep 3; done'", script)
	switch {
	case u.ExecStart == "":
		lines = append(lines, i18n.T("labenv.unit.no_execstart", i18n.Args{"Loop": loop}))
	case !runsScript:
		lines = append(lines, i18n.T("labenv.unit.not_script", i18n.Args{"ExecStart": u.ExecStart, "Script": script, "Loop": loop}))
	default:
		m := sleepArg.FindStringSubmatch(u.ExecStart)
		switch {
		case loopWord.MatchString(u.ExecStart) && m != nil && about3s(m[1]):
		case loopWord.MatchString(u.ExecStart) && m != nil:
			lines = append(lines, i18n.T("labenv.unit.sleep", i18n.Args{"Sleep": m[1]}))
		case loopWord.MatchString(u.ExecStart):
			lines = append(lines, i18n.T("labenv.unit.no_sleep"))
		case u.Restart == "always" && about3s(u.RestartSec):
			// The script alone, started again by systemd every RestartSec.
		default:
			lines = append(lines, i18n.T("labenv.unit.once", i18n.Args{"ExecStart": u.ExecStart, "Loop": loop}))
		}
	}
	if u.WantedBy == "" {
		lines = append(lines, i18n.T("labenv.unit.no_wantedby"))
	}
	return lines
}

// installLearnersUnit is step 4 with the learner's own unit: checked,
// never rewritten; systemd reloads it, process mode records what it runs;
// then it is enabled and started (restart: restarted).
func (e *Env) installLearnersUnit(ctx context.Context, data []byte, restart bool) error {
	path := e.Service.UnitPath()
	if e.OwnIdentity() {
		return i18n.NewError("labenv.unit_own_identity", i18n.Args{"Path": path, "Quoted": QuoteArg(path)})
	}
	uf, err := service.ParseUnit(data)
	if err != nil {
		return &UnitError{Path: path, Lines: []string{i18n.T("labenv.unit.not_a_unit", i18n.Args{"Err": err.Error()})}}
	}
	if lines := e.CheckUnit(uf); len(lines) > 0 {
		return &UnitError{Path: path, Lines: lines}
	}
	if err := e.giveArchiveDir(ctx); err != nil {
		return err
	}
	kc, err := e.CommandKubeconfig()
	if err != nil {
		return err
	}
	u := service.Unit{Engine: e.Engine, Theirs: true, Argv: uf.Argv, Environment: uf.Environment, Dir: uf.WorkingDirectory,
		Kubeconfig: kc, Path: toolPath(), ArchiveDir: e.ArchiveDir(), Restart: uf.Restart, RestartSec: uf.RestartSec}
	if e.Progress != nil && e.Service.Name() == "process" {
		for _, d := range uf.Unsupported {
			e.Progress.Warn("%s", i18n.T("labenv.process_ignores", i18n.Args{"Path": path, "Directive": d}))
		}
		if uf.User != "" && uf.User != "root" {
			e.Progress.Warn("%s", i18n.T("labenv.process_user", i18n.Args{"Path": path, "User": uf.User}))
		}
	}
	if err := e.Service.Install(ctx, u); err != nil {
		return fmt.Errorf("%s: %w", i18n.T("labenv.install_yours", i18n.Args{"Path": path}), err)
	}
	if restart {
		return e.Service.Restart(ctx)
	}
	return e.Service.Enable(ctx)
}

// StartService starts cnpa-op.service (restart: restarts it), as
// `systemctl start` would. In process mode a unit of the learner's that
// nothing has installed yet (step 4 records what process mode runs) is
// installed first, as step 4 installs it: checked against the lab's step
// 4, never rewritten, then started; the choice of manager and unit dir is
// then locked, as after step 4. Without a unit of theirs, the error names
// the one command that installs and starts the service.
func (e *Env) StartService(ctx context.Context, restart bool) error {
	start := e.Service.Start
	if restart {
		start = e.Service.Restart
	}
	err := start(ctx)
	var missing *service.NotInstalledError
	if !errors.As(err, &missing) {
		return err
	}
	if _, theirs := e.LearnersUnit(); !theirs {
		return err
	}
	if e.Progress != nil {
		e.Progress.Note("%s", i18n.T("labenv.start_yours", i18n.Args{"Path": e.Service.UnitPath()}))
	}
	if err := e.InstallService(ctx, false); err != nil {
		return err
	}
	e.State.ServiceLocked = true
	return e.SaveState()
}

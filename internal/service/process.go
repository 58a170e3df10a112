package service

import (
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/manifest"

	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/labhub/cnpa/internal/safefs"
	"github.com/labhub/cnpa/internal/ui"
)

// process runs the unit's command detached, for machines without systemd
// and for tests. It writes the same unit file (so the learner can read it),
// keeps the unit's command line beside it, and tracks the process with a
// pid file; output goes to a log file in the evidence dir.
type process struct {
	unitPath string
	dir      string
}

const (
	pidFile = "cnpa-op.pid"
	logFile = "cnpa-op.log"
	// ArgvFile keeps the exact command and environment process mode starts;
	// its presence in an evidence dir says process mode installed the service.
	ArgvFile = "cnpa-op.argv.json"
	// identityFile says which process the pid file means (see identity).
	identityFile = "cnpa-op.identity.json"
	// markerVar is set in the service's environment to a value of its own.
	markerVar = "CNPA_SERVICE_ID"
)

// identity tells the service's process apart from any other that later
// gets the same pid: its start time in clock ticks since boot (field 22 of
// /proc/PID/stat), its executable, and a random marker in its environment.
// A pid alone is reused; all three together are not.
type identity struct {
	PID       int    `json:"pid"`
	StartTime string `json:"start_time"`
	Exe       string `json:"exe"`
	Marker    string `json:"marker"`
}

func (p *process) Name() string     { return "process" }
func (p *process) UnitPath() string { return p.unitPath }

func (p *process) Install(_ context.Context, u Unit) error {
	if err := writeUnit(p.unitPath, u); err != nil {
		return err
	}
	if err := saveArgv(filepath.Join(p.dir, ArgvFile), u); err != nil {
		return err
	}
	return p.record(ArgvFile)
}

// record notes in the evidence dir's manifest that a process-mode file is
// cnpa's, so that reset removes it and nothing else. Its content is not
// tracked: the log grows, the pid and identity change on every start.
func (p *process) record(names ...string) error {
	for _, n := range names {
		if err := manifest.Record(p.dir, n, nil); err != nil {
			return err
		}
	}
	return nil
}

func (p *process) Enable(ctx context.Context) error { return p.Start(ctx) }

func (p *process) Start(_ context.Context) error {
	if pid := p.running(); pid > 0 {
		return nil
	}
	u, err := loadArgv(filepath.Join(p.dir, ArgvFile))
	if err != nil {
		return err
	}
	if err := trustedArgv(filepath.Join(p.dir, ArgvFile), u); err != nil {
		return fmt.Errorf("%s: %w", i18n.T("service.start"), err)
	}
	logf, err := os.OpenFile(filepath.Join(p.dir, logFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("%s: %w", i18n.T("service.open_log"), err)
	}
	defer logf.Close()
	marker, err := newMarker()
	if err != nil {
		return err
	}
	argv := u.Argv
	if u.Theirs && u.Restart == "always" {
		argv = restartLoop(u.Argv, u.RestartSec, filepath.Join(p.dir, startsFile))
		if err := p.record(startsFile); err != nil {
			return err
		}
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(append(os.Environ(), u.Env()...), markerVar+"="+marker)
	// Drop-ins (dropin.go) come last: the last value of a variable wins,
	// as systemd reads them after the unit.
	cmd.Env = append(cmd.Env, dropInEnv(p.unitPath)...)
	cmd.Dir = p.dir
	if u.Theirs && u.Dir != "" {
		cmd.Dir = u.Dir // the learner's WorkingDirectory=
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	// A session of its own: the service outlives the cnpa command that
	// started it, as a systemd unit would.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", argv[0], err)
	}
	pid := cmd.Process.Pid
	// Reap it if it exits while we still run; afterwards init does.
	go cmd.Wait()
	// cmd.Start returns once the kernel has committed to the exec, but the
	// new program's stack, where /proc/PID/environ reads the marker from,
	// is laid out after that; on a loaded machine tens of milliseconds
	// later. Until then running() would not know the process as ours.
	waitExecLoaded(pid, marker)
	id := identity{PID: pid, Exe: exeOf(pid), StartTime: startTimeOf(pid), Marker: marker}
	data, _ := json.Marshal(id)
	if err := os.WriteFile(filepath.Join(p.dir, identityFile), append(data, '\n'), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(p.dir, pidFile), []byte(strconv.Itoa(pid)+"\n"), 0o644); err != nil {
		return err
	}
	return p.record(logFile, identityFile, pidFile)
}

func (p *process) Stop(_ context.Context) error {
	pid := p.running()
	if pid == 0 {
		// Stale: nothing of ours runs under it. The identity stays until
		// the next start replaces it.
		os.Remove(filepath.Join(p.dir, pidFile))
		return nil
	}
	// The whole session: the shell engine's loop and the kubectl it runs.
	syscall.Kill(-pid, syscall.SIGTERM)
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) && alive(pid) {
		time.Sleep(50 * time.Millisecond)
	}
	if alive(pid) {
		syscall.Kill(-pid, syscall.SIGKILL)
	}
	os.Remove(filepath.Join(p.dir, identityFile))
	return os.Remove(filepath.Join(p.dir, pidFile))
}

func (p *process) Restart(ctx context.Context) error {
	if err := p.Stop(ctx); err != nil {
		return err
	}
	return p.Start(ctx)
}

func (p *process) Status(_ context.Context) (Status, error) {
	st := Status{Manager: p.Name(), UnitPath: p.unitPath}
	_, err := os.Stat(p.unitPath)
	st.Installed = err == nil
	st.Enabled = st.Installed
	st.MainPID = p.running()
	st.Active = st.MainPID > 0
	return st, nil
}

func (p *process) Logs(_ context.Context, n int, w io.Writer) error {
	data, err := os.ReadFile(filepath.Join(p.dir, logFile))
	if errors.Is(err, os.ErrNotExist) {
		fmt.Fprintln(w, i18n.T("service.no_log_yet"))
		return nil
	}
	if err != nil {
		return err
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	// The log quotes the cluster (names, kubectl's errors): cleaned.
	_, err = fmt.Fprintln(w, ui.CleanLines(strings.Join(lines, "\n")))
	return err
}

func (p *process) Remove(ctx context.Context) error {
	if err := p.Stop(ctx); err != nil {
		return err
	}
	files := []string{filepath.Join(p.dir, ArgvFile), filepath.Join(p.dir, identityFile)}
	if cnpasUnit(p.unitPath) {
		files = append(files, p.unitPath)
	}
	for _, f := range files {
		if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

// running returns the pid from the pid file when that process is alive and
// is still the one Start started (same start time, executable and marker:
// see identity), else 0. Stop signals only a pid this returns, so it never
// signals pid 1, nor a process that reused the service's pid.
func (p *process) running() int {
	data, err := os.ReadFile(filepath.Join(p.dir, pidFile))
	if err != nil {
		return 0
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 1 || !alive(pid) {
		return 0
	}
	var id identity
	data, err = os.ReadFile(filepath.Join(p.dir, identityFile))
	if err != nil || json.Unmarshal(data, &id) != nil || id.PID != pid || id.Marker == "" {
		return 0 // no record of what was started: trust nothing
	}
	if startTimeOf(pid) != id.StartTime || exeOf(pid) != id.Exe || !markerHeld(pid, id.Marker) {
		return 0 // the pid was reused by something else
	}
	return pid
}

// waitExecLoaded waits, up to 10 s, until pid's environment shows marker
// (its exec is complete) or pid is gone (then Status says so).
func waitExecLoaded(pid int, marker string) {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if hasMarker(pid, marker) || !alive(pid) {
			return
		}
	}
}

// newMarker is a random value for markerVar.
func newMarker() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("service marker: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// startTimeOf is field 22 of /proc/PID/stat (start time in clock ticks
// since boot), or "" when it cannot be read.
func startTimeOf(pid int) string {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// The command name (field 2) may hold spaces; fields after it do not.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(string(stat[i+1:]))
	if len(fields) < 20 {
		return ""
	}
	return fields[19] // field 22 overall: 3 is fields[0]
}

// exeOf is the executable of pid, or "".
func exeOf(pid int) string {
	exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	return exe
}

// markerHeld is hasMarker read again, up to three times 20 ms apart, while
// pid lives: what tells our service from a stranger that reuses its pid.
// One read alone can be stale: in two CI runs, of about 80,000 starts in
// TestProcessKnownAsSoonAsStarted, a read just after the wait returned
// showed the previous start's marker (a string of the same length, in the
// page that start's stack had just freed) and the right one 100 ms later.
// Only a stranger pays the 40 ms.
func markerHeld(pid int, marker string) bool {
	for range 3 {
		if hasMarker(pid, marker) {
			return true
		}
		if !alive(pid) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// hasMarker tells whether pid's environment holds markerVar=marker, as one
// read of /proc/PID/environ sees it.
func hasMarker(pid int, marker string) bool {
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return false
	}
	for _, kv := range bytes.Split(env, []byte{0}) {
		if string(kv) == markerVar+"="+marker {
			return true
		}
	}
	return false
}

func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	// A zombie is dead for our purposes.
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	if i := bytes.LastIndexByte(stat, ')'); i > 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

// trustedArgv holds what the process-mode service would execute or read
// as root to safefs.Trusted: the argv file, its program (found in PATH
// when bare), every argument that is an existing absolute path (the
// script the loop runs) and every kubeconfig KUBECONFIG lists from the
// evidence dir (the learner's own was cnpa's to read already).
func trustedArgv(argvPath string, u Unit) error {
	dir := filepath.Dir(argvPath) + string(filepath.Separator)
	paths := []string{argvPath}
	if prog, err := exec.LookPath(u.Argv[0]); err == nil {
		paths = append(paths, prog)
	}
	for _, a := range u.Argv[1:] {
		if filepath.IsAbs(a) {
			if _, err := os.Stat(a); err == nil {
				paths = append(paths, a)
			}
		}
	}
	for _, kv := range u.Env() {
		if v, ok := strings.CutPrefix(kv, "KUBECONFIG="); ok {
			for _, k := range filepath.SplitList(v) {
				if _, err := os.Stat(k); err == nil && strings.HasPrefix(k, dir) {
					paths = append(paths, k)
				}
			}
		}
	}
	for _, p := range paths {
		if err := safefs.Trusted(p); err != nil {
			return err
		}
	}
	return nil
}

// restartLoop is argv under Restart=always, as process mode keeps it: a
// shell that runs it, waits RestartSec when it ends, however it ended,
// and runs it again, until the service is stopped (Stop signals the whole
// session, the shell with it). A learner's unit that runs reconcile.sh
// once per start is so, under systemd, a service that keeps running.
//
// Each start's time goes to starts (StartsFile), the last 64 kept:
// systemd would stop starting a unit that starts too often (its start
// limit), which process mode does not do, but says it would (Starts).
func restartLoop(argv []string, restartSec, starts string) []string {
	sh, err := exec.LookPath("sh")
	if err != nil {
		sh = "/bin/sh"
	}
	return append([]string{sh, "-c", restartScript, "cnpa-op", seconds(restartSec), starts}, argv...)
}

// restartScript is the shell program of restartLoop: $1 is RestartSec in
// seconds, $2 the file of start times, the rest the command.
const restartScript = `sec=$1; starts=$2; shift 2; : >"$starts"; n=0
while :; do
  date +%s.%N >>"$starts"; n=$((n+1))
  if [ "$n" -ge 128 ]; then tail -n 64 "$starts" >"$starts.tmp" && mv -f "$starts.tmp" "$starts"; n=64; fi
  "$@"; sleep "$sec"
done`

// seconds is a RestartSec= value in seconds for sleep(1): systemd's
// default, 100 ms, when it is unset or unreadable; a bare number is
// seconds, else a time span ("500ms", "3s", "1min").
func seconds(v string) string {
	v = strings.TrimSpace(v)
	if f, err := strconv.ParseFloat(v, 64); err == nil && f >= 0 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	v = strings.ReplaceAll(strings.ReplaceAll(v, "min", "m"), " ", "")
	if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return strconv.FormatFloat(d.Seconds(), 'f', -1, 64)
	}
	return "0.1"
}

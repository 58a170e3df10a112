package service

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"strings"
	"time"
)

// notForOneRun are the unit's directives about its life as a service
// (restarts, stopping) or its command, none of which a single run of
// another command takes over: the run is a Type=exec unit of its own.
var notForOneRun = map[string]bool{
	"Type": true, "ExecStart": true, "Restart": true, "RestartSec": true,
	"KillSignal": true, "TimeoutStopSec": true,
}

// TransientRun is the systemd-run command line (the arguments after
// "systemd-run") that runs argv once, waiting for it, with its output on
// systemd-run's, in a transient unit named name that has every directive
// of u's [Service] section: its user, credential, environment and
// sandbox (ProtectHome=tmpfs with its BindPaths=, ProtectSystem=strict,
// the system call filter, …). That is the one way to run a command as
// cnpa-op.service runs its own: a process that only switches to User
// could not even reach the evidence dir under /root (0700), which the
// unit reaches through its mount namespace alone. Reads adds read-only
// paths the run needs beyond the unit's (the Go engine's service runs
// the cnpa binary, never reconcile.sh). maxRuntime > 0 bounds the run
// in systemd itself, so that it ends even if systemd-run is killed.
//
// systemd keeps a transient unit's properties as given and expands no
// specifier in them, so the unit's own are resolved here: %d is the
// unit's credentials directory (/run/credentials/<name>), %% a `%`.
func TransientRun(u Unit, name string, argv, extraEnv, reads []string, maxRuntime time.Duration) ([]string, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("transient run: no command")
	}
	unit, err := u.Render()
	if err != nil {
		return nil, err
	}
	args := []string{"--quiet", "--wait", "--pipe", "--collect", "--service-type=exec", "--unit=" + name}
	specifiers := strings.NewReplacer("%d", "/run/credentials/"+name, "%%", "%")
	inService := false
	sc := bufio.NewScanner(bytes.NewReader(unit))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";"):
			continue
		case strings.HasPrefix(line, "["):
			inService = line == "[Service]"
			continue
		case !inService:
			continue
		}
		key, _, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("transient run: %s line %q is no directive", Name, line)
		}
		if notForOneRun[strings.TrimSpace(key)] {
			continue
		}
		if strings.Contains(strings.NewReplacer("%%", "", "%d", "").Replace(line), "%") {
			return nil, fmt.Errorf("transient run: %s line %q has a specifier cnpa does not resolve", Name, line)
		}
		args = append(args, "--property="+specifiers.Replace(line))
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for _, r := range reads {
		args = append(args, "--property=BindReadOnlyPaths="+specifiers.Replace(bindPath(r)))
	}
	if maxRuntime > 0 {
		args = append(args, fmt.Sprintf("--property=RuntimeMaxSec=%d", int(math.Ceil(maxRuntime.Seconds()))))
	}
	for _, kv := range extraEnv {
		args = append(args, "--setenv="+kv)
	}
	return append(append(args, "--"), argv...), nil
}

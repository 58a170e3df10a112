package lab

import (
	"crypto/rand"
	"encoding/hex"
	"strings"

	"github.com/labhub/cnpa/internal/manifest"
)

// The names cnpa stamps on the objects it makes for a moment. Reset, the
// timeline and the grader recognise their own by these, so they are said
// once, here.
const (
	// ProbePrefix starts the name of step 4's temporary TeamSpace.
	ProbePrefix = "cnpa-probe-"
	// TempPrefix starts the name of every TeamSpace `cnpa check` creates.
	TempPrefix = "cnpa-check-"
	// ForeignNamespaceOwner is the value of the label "owner" that marks
	// the grader's stand-in for somebody else's namespace (reset sweeps
	// those an interrupted check left).
	ForeignNamespaceOwner = "someone-else"
)

// TempName is a fresh name for a temporary object: prefix and six random
// hex digits, which keeps it a valid DNS label and the namespace
// team-<name> within 63 characters.
func TempName(prefix string) string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// Engines: cnpa's Go controller, cnpa's kubectl+jq script, or the
// learner's own reconcile.sh. Package labenv runs them; the grader's
// hints name them.
const (
	EngineGo    = "go"
	EngineShell = "shell"
	// EngineOwn runs the learner's <dir>/reconcile.sh: cnpa never writes,
	// rewrites or moves it, and the service loops it as LAB.md step 4 says.
	EngineOwn = "own"
)

// ScriptName is the lab's reconcile script in the evidence dir.
const ScriptName = "reconcile.sh"

// ServiceName is the unit name the lab and its grader use.
const ServiceName = "cnpa-op.service"

// OwnDir is the directory under the evidence dir that holds the files cnpa
// writes for itself (the timelines, the last check, the manifest).
const OwnDir = manifest.OwnDir

// QuoteArg single-quotes s for a shell when it needs it (a path in a
// command cnpa tells the learner to run).
func QuoteArg(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ServiceStatus is what a service manager knows of cnpa-op.service (package
// service asks; the grader judges it and a submission keeps it).
type ServiceStatus struct {
	Manager  string `json:"manager"`
	UnitPath string `json:"unit_path"`
	// Installed: the unit file exists.
	Installed bool `json:"installed"`
	// Enabled: starts on boot (systemd only; process mode reports Installed).
	Enabled bool `json:"enabled"`
	// Active: the service keeps running, as the lab asks of it: its
	// process runs now, or it is between two runs and its manager starts
	// it again by itself (Restarting). A unit that runs reconcile.sh once
	// per start with Restart=always and RestartSec=3 spends most of its
	// life so: it is not stopped.
	Active bool `json:"active"`
	// Restarting: between two runs, waiting for Restart= to start it
	// again (systemd's activating/auto-restart); MainPID is 0 then.
	Restarting bool `json:"restarting,omitempty"`
	MainPID    int  `json:"main_pid"`
}

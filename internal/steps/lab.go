package steps

import (
	"time"

	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/ui"
)

// Lab is what a step works on: the lab's environment (shared with check,
// reset, status and `cnpa service`), and what only a run of the steps has,
// its view and its options. It is built once from the command line, before
// the first step, and nothing assigns into it afterwards.
type Lab struct {
	*labenv.Env
	View
	Options
	// Steps is the lab's steps with their runs (course.Steps), handed
	// down by the command.
	Steps Table
}

// View is what the steps show, the kubectl way: the printers and the
// verbosity belong to the command that prints.
type View struct {
	// Show receives what a step does as the commands a learner would type,
	// the server's answers and the files installed (stdout); nil shows
	// nothing (`cnpa step --quiet`, -o json).
	Show *ui.Printer
	// Verbose shows in full what Show would summarise: files and
	// manifests written through a heredoc of more than a few lines (the
	// CRD, the identity's RBAC and policy, the unit), and the commands
	// behind the service's kubeconfig (`cnpa step --verbose`). Replaying
	// the shown commands needs it.
	Verbose bool
}

// Options are the steps' own settings.
type Options struct {
	// Force lets the steps write over the learner's files, keeping each as
	// a backup (evidence.Put); never reconcile.sh.
	Force bool
	// CatchupWait is how long step 7 waits with the service stopped
	// (labenv.LabCatchupWait, the lab text's 8 seconds, when zero).
	CatchupWait time.Duration
}

// NewLab is env with the steps' view and options, their defaults filled.
func NewLab(steps Table, env *labenv.Env, view View, opts Options) *Lab {
	if opts.CatchupWait <= 0 {
		opts.CatchupWait = labenv.LabCatchupWait
	}
	return &Lab{Env: env, View: view, Options: opts, Steps: steps}
}

// Package check is the grader's hands: it reads the facts of the cluster
// and the machine once (facts.go), has package judge judge the evidence
// against them, and runs the probes: reconcile.sh run twice more, and
// temporary TeamSpaces the running controller must serve. Each probe's
// row and code are in its step's folder (course/stepN/probe*.go), bound
// as a Hand; this package keeps what every probe shares: one grading's
// Session (session.go), the hands' loop (probe.go), the phases they meet
// at (phases.go), the temporary TeamSpaces' lifecycle (temps.go), the
// controller's log read for why a wait failed (passstop.go, conflict.go),
// the lab's objects as reconcile.sh may write them (snapshot.go). One Run
// grades on the learner's machine (`cnpa check`, `cnpa submit`) and from
// another one (`cnpa class grade --live`), with the probes that can run
// there.
package check

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/ui"
)

// Options tune Run.
type Options struct {
	// Steps is the lab's steps as the grader has them (course.Steps).
	Steps Table
	// Step limits the report to one step (a number of Steps); 0 checks all.
	Step int
	// ProbeTimeout bounds each wait on the controller (default 30s: the
	// shell engine passes every 3 s).
	ProbeTimeout time.Duration
	// Progress receives notes on what is being done (stderr).
	Progress *ui.Printer
	// Reported, when set, grades the lab from another machine, which
	// reaches the learner's cluster (env.Clients) but not the VM: env.Dir
	// holds the learner's evidence as submitted, and Reported is what the
	// learner's own run saw of the VM (the service and its unit), from
	// the submission. Only the probes that can run remotely are made.
	Reported *judge.Facts
	// Leave leaves kinds of probes out of the report, neither run nor
	// reported: a caller that judges again and again (cnpa watch) runs
	// the learner's script only when the learner asks, and shows what
	// the files and the facts say before it waits on the controller.
	Leave Leave
	// Judged, when set, is given the report as soon as every verdict is
	// in, before the temporary TeamSpaces are removed; Run still returns
	// only once they are gone. A caller that shows verdicts as they come
	// (cnpa watch) shows the controller's without waiting for one more
	// pass of a polling loop, which archives and releases them: that
	// removal is the grader's housekeeping, not what the verdict judges.
	Judged func(*judge.Report)
}

// Leave is a set of kinds of probes Run leaves out.
type Leave int

const (
	// LeaveScript leaves out the probes that run the learner's script
	// (judge.Probe.Script): they act as the controller.
	LeaveScript Leave = 1 << iota
	// LeaveController leaves out the probes of the running controller
	// (judge.Probe.Controller): they wait on it.
	LeaveController
)

// leaves tells whether l leaves probe p out.
func (l Leave) leaves(p *judge.Probe) bool {
	return (l&LeaveScript != 0 && p.Script) || (l&LeaveController != 0 && p.Controller)
}

// NoStepError is a --step number the lab has no step for.
type NoStepError struct {
	N     int
	Steps lab.Table
}

func (e *NoStepError) Error() string {
	return i18n.T("check.no_step", i18n.Args{"N": e.N, "Range": e.Steps.Range(i18n.T("check.range_sep"))})
}

// UnreachableError says the cluster could not be asked: nothing is graded.
type UnreachableError struct{ Err error }

func (e *UnreachableError) Error() string {
	return i18n.T("check.unreachable", i18n.Args{"Err": e.Err.Error()})
}
func (e *UnreachableError) Unwrap() error { return e.Err }

// Run grades the lab in env. Phases:
//  1. ask the API server for its version (unreachable: UnreachableError);
//  2. read every evidence file and the facts of the cluster and the
//     machine once (from another machine, the VM's from opts.Reported);
//  3. judge the files against LAB.md, each other and the facts
//     (judge.Judge);
//  4. the probes, those that can run here: reconcile.sh run twice more
//     (it must write nothing); then temporary TeamSpaces (cnpa-check-*)
//     the running controller must serve, every probe at once in three
//     phases (phases.go: make, drift, delete), and all of them removed
//     however Run ends (temps.go).
//
// It returns the report and the facts the evidence was judged against
// (`cnpa submit` keeps them). It returns an error only when grading could
// not happen: the cluster is unreachable, or ctx ended (Ctrl-C) before
// every check ran.
func Run(ctx context.Context, env *labenv.Env, opts Options) (*judge.Report, *judge.Facts, error) {
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = 30 * time.Second
	}
	if opts.Progress == nil {
		opts.Progress = ui.New(io.Discard, true)
	}
	steps := opts.Steps.Grader()
	if _, err := steps.Lab().Get(opts.Step); opts.Step != 0 && err != nil {
		return nil, nil, &NoStepError{N: opts.Step, Steps: steps.Lab()}
	}
	r := &Session{env: env, svc: env.Service, opts: opts, at: judge.Local}
	if opts.Reported != nil {
		r.svc, r.at = reportedService{opts.Reported.Service}, judge.Remote
	}
	if _, err := env.Clients.Kube.Discovery().ServerVersion(); err != nil {
		return nil, nil, &UnreachableError{fmt.Errorf("%s (kubeconfig %s): %w", env.Target.Server, env.Target.Path, err)}
	}
	st := steps.Lab().Read(env.Dir)
	f, err := gatherFacts(ctx, steps.Lab(), env, r.svc, opts.Reported)
	if err != nil {
		return nil, nil, &UnreachableError{err}
	}
	r.facts = f
	rep := steps.Judge(st, f)
	r.explainQuota(ctx, rep)

	r.tmp = &temps{env: env, grace: 10 * time.Second, remote: r.at == judge.Remote}
	if !f.Service.Active {
		r.tmp.grace = 0 // nobody will archive them: drop the finalizers now
	}
	defer func() {
		// Ctrl-C ends ctx; the temporary objects must go all the same.
		if cerr := r.tmp.cleanup(context.WithoutCancel(ctx)); cerr != nil {
			opts.Progress.Warn("%s", i18n.T("check.cleanup_failed", i18n.Args{"Err": cerr.Error()}))
		}
	}()
	rep.Checks = append(rep.Checks, r.probes(ctx)...)
	if ctx.Err() != nil {
		return nil, nil, fmt.Errorf("%s: %w", i18n.T("check.interrupted"), ctx.Err())
	}
	rep.Dir, rep.Server = env.Dir, env.Target.Server
	rep.Finish(opts.Step)
	if opts.Judged != nil {
		opts.Judged(rep) // before the deferred removal of the temporaries
	}
	return rep, f, nil
}

package check

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/ui"
)

// Options tune Run.
type Options struct {
	// Step limits the report to one step (a lab.Steps number); 0 checks all.
	Step int
	// ProbeTimeout bounds each wait on the controller (default 30s: the
	// shell engine passes every 3 s).
	ProbeTimeout time.Duration
	// Progress receives notes on what is being done (stderr).
	Progress *ui.Printer
	// OnFacts, when set, is given the facts the evidence is judged
	// against, as read before any probe (`cnpa submit` keeps them).
	OnFacts func(*Facts)
}

// UnreachableError says the cluster could not be asked: nothing is graded.
type UnreachableError struct{ Err error }

func (e *UnreachableError) Error() string { return "cannot reach the cluster: " + e.Err.Error() }
func (e *UnreachableError) Unwrap() error { return e.Err }

// Run grades the lab in env. Phases:
//  1. ask the API server for its version (unreachable: UnreachableError);
//  2. read every evidence file and the facts of the cluster once;
//  3. judge the files against LAB.md, each other and the facts;
//  4. step 3: run reconcile.sh twice more and prove it wrote nothing;
//  5. steps 4 and 6, then step 3's note: exercise the running controller
//     with temporary TeamSpaces (cnpa-check-*), one probe at a time, each
//     removed before the next and all of them however Run ends.
//
// Run returns an error only when grading could not happen: the cluster is
// unreachable, or ctx ended (Ctrl-C) before every check ran.
func Run(ctx context.Context, env *labenv.Env, opts Options) (rep *Report, err error) {
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = 30 * time.Second
	}
	if opts.Progress == nil {
		opts.Progress = ui.New(io.Discard, true)
	}
	if _, err := lab.Get(opts.Step); opts.Step != 0 && err != nil {
		return nil, fmt.Errorf("there is no step %d: the lab has steps %s", opts.Step, lab.Range(" to "))
	}
	want := func(n int) bool { return opts.Step == 0 || opts.Step == n }
	if _, err := env.Clients.Kube.Discovery().ServerVersion(); err != nil {
		return nil, &UnreachableError{fmt.Errorf("%s (kubeconfig %s): %w", env.Target.Server, env.Target.Path, err)}
	}
	ev := readEvidence(env.Dir)
	f, err := gatherFacts(ctx, env)
	if err != nil {
		return nil, &UnreachableError{err}
	}
	if opts.OnFacts != nil {
		opts.OnFacts(f.export())
	}
	c := &checker{checks: evaluate(ev, f)}

	if want(lab.Reconcile.Number) {
		opts.Progress.Note("… running %s twice more to see that it writes nothing", labenv.ScriptName)
		rerunChecks(ctx, env, c)
	}
	if want(lab.Reconcile.Number) || want(lab.Service.Number) || want(lab.Cleanup.Number) {
		tmp := &temps{env: env, grace: 10 * time.Second}
		if !f.service.Active {
			tmp.grace = 0 // nobody will archive them: drop the finalizers now
		}
		defer func() {
			// Ctrl-C ends ctx; the temporary objects must go all the same.
			if cerr := tmp.cleanup(context.WithoutCancel(ctx)); cerr != nil {
				opts.Progress.Warn("cleanup of temporary TeamSpaces: %v", cerr)
			}
		}()
		probeChecks(ctx, env, c, f, tmp, want, opts)
	}
	if ctx.Err() != nil {
		return nil, fmt.Errorf("interrupted before every check ran: %w", ctx.Err())
	}
	rep = &Report{Dir: env.Dir, Server: env.Target.Server}
	rep.finish(opts.Step, c.checks)
	return rep, nil
}

// probeChecks adds the live controller checks of steps 4 and 6 and the
// foreign-namespace note of step 3. Without a
// running controller or a CRD they are skipped: those failures are already
// reported, and waiting for a controller that is not there only costs time.
func probeChecks(ctx context.Context, env *labenv.Env, c *checker, f *facts, tmp *temps, want func(step int) bool, opts Options) {
	const (
		convergesID = "step4.new_teamspace_converges"
		addedID     = "step6.finalizer_added_keeps_foreign"
		deletedID   = "step6.delete_archives"
	)
	probeHint := "is the controller running and reconciling? `cnpa service status`, `cnpa service logs`"
	finalizerMust := "must " + lab.KeepOtherFinalizers + " and, " + lab.ArchiveThenRelease
	finalizerHint := "the controller " + finalizerMust + "; run `cnpa step 6` (it turns finalizer handling on)"
	if f.engine == labenv.EngineOwn {
		finalizerHint = controllerAdvice(f, finalizerMust)
	}
	var why string
	switch {
	case f.crd == nil:
		why = "the CRD is not installed (see step1.crd)"
	case f.otherDir != "":
		why = "the installed controller serves another evidence dir (see step4.unit_file)"
	case !f.service.Active:
		why = "the controller is not running (see step4.service_active)"
	}
	const foreignID = "step3.foreign_namespace_left_alone"
	foreignTitle := "a namespace team-<name> that existed before its TeamSpace is not adopted"
	foreignHint := "create team-<name> only when it does not exist, and never add an ownerReference to a namespace you did not make"
	if why != "" {
		c.add(foreignID, lab.Reconcile.Number, foreignTitle, "", skipped(why))
		c.add(convergesID, lab.Service.Number, convergesTitle, "", skipped(why))
		c.add(addedID, lab.Cleanup.Number, addedTitle, "", skipped(why))
		c.add(deletedID, lab.Cleanup.Number, deletedTitle, "", skipped(why))
		return
	}
	// One probe at a time, each one's TeamSpace gone before the next is
	// made: a TeamSpace the controller cannot serve must never decide
	// another probe's verdict, whatever the random names sort like.
	tmp.sweepLeftovers(ctx, opts.Progress.Note)
	var took time.Duration
	if want(lab.Service.Number) {
		opts.Progress.Note("… step 4: a temporary TeamSpace %s* must converge by itself", TempPrefix)
		var converges verdict
		converges, took = probeConverges(ctx, env, tmp, opts.ProbeTimeout)
		c.add(convergesID, lab.Service.Number, convergesTitle, probeHint, converges)
	}
	if want(lab.Cleanup.Number) {
		opts.Progress.Note("… step 6: a temporary TeamSpace holding another controller's finalizer (%s)", ForeignFinalizer)
		added, deleted := probeFinalizer(ctx, env, tmp, opts.ProbeTimeout)
		c.add(addedID, lab.Cleanup.Number, addedTitle, finalizerHint, added)
		c.add(deletedID, lab.Cleanup.Number, deletedTitle, finalizerHint, deleted)
	}
	if want(lab.Reconcile.Number) {
		// Last and alone: LAB.md does not ask about a namespace somebody
		// else made, and a controller that stops its pass there must cost
		// no other verdict.
		opts.Progress.Note("… a namespace team-<name> somebody else made before its TeamSpace (LAB.md does not ask about it: a note at most)")
		foreign := probeForeignNamespace(ctx, env, tmp, witnessWait(took, opts.ProbeTimeout))
		c.add(foreignID, lab.Reconcile.Number, foreignTitle, foreignHint, foreign)
	}
}

// witnessWait is how long the foreign-namespace probe waits for its
// witness: three times what the controller took to serve step 4's probe,
// at least 10 s (a loop's sleep and pass), at most the probe timeout.
func witnessWait(converged, timeout time.Duration) time.Duration {
	return min(max(3*converged, 10*time.Second), timeout)
}

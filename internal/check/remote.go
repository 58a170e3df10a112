package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/ui"
)

// RemoteIDs are the checks RunRemote makes with its own probes on the
// learner's cluster.
var RemoteIDs = []string{"step4.new_teamspace_converges", DriftLiveID, "step6.finalizer_added_keeps_foreign", "step6.delete_archives"}

// RunRemote grades a learner's lab from another machine: the instructor's,
// which reaches the learner's cluster (env.Clients) but not the VM. env.Dir
// holds the learner's evidence as submitted; reported is what the
// learner's own run saw of the VM (the service and its unit). Phases:
//  1. ask the API server for its version (unreachable: UnreachableError);
//  2. read the live cluster's facts, and the VM's from reported;
//  3. judge the evidence against them, as Run does: the uids against the
//     live objects;
//  4. exercise the running controller with temporary TeamSpaces
//     (cnpa-check-*), one at a time, each removed before the next and all
//     of them however RunRemote ends: a new one converges, its quota's
//     deletion and hand edit are reverted (DriftLiveID), and the finalizer
//     is added beside a foreign one and honoured on delete.
//
// The reruns of reconcile.sh and the foreign-namespace note are not made:
// the script is on the VM, and so is the log that note reads. The archive
// record of the finalizer probe is written on the VM too, so
// step6.delete_archives judges the finalizers only.
func RunRemote(ctx context.Context, env *labenv.Env, reported *Facts, opts Options) (*Report, error) {
	if opts.ProbeTimeout <= 0 {
		opts.ProbeTimeout = 30 * time.Second
	}
	if opts.Progress == nil {
		opts.Progress = ui.New(io.Discard, true)
	}
	env.Service = reportedService{reported.Service}
	if _, err := env.Clients.Kube.Discovery().ServerVersion(); err != nil {
		return nil, &UnreachableError{fmt.Errorf("%s (kubeconfig %s): %w", env.Target.Server, env.Target.Path, err)}
	}
	ev := readEvidence(env.Dir)
	f := &facts{dir: reported.Dir, engine: reported.Engine}
	if err := clusterFacts(ctx, env, f); err != nil {
		return nil, &UnreachableError{err}
	}
	vm := reported.facts()
	f.service, f.unit, f.unitErr, f.otherDir = vm.service, vm.unit, vm.unitErr, vm.otherDir
	c := &checker{checks: evaluate(ev, f)}

	tmp := &temps{env: env, grace: 10 * time.Second, remote: true}
	if !f.service.Active {
		tmp.grace = 0
	}
	defer func() {
		// Ctrl-C ends ctx; the temporary objects must go all the same.
		if cerr := tmp.cleanup(context.WithoutCancel(ctx)); cerr != nil {
			opts.Progress.Warn("cleanup of temporary TeamSpaces: %v", cerr)
		}
	}()
	remoteProbes(ctx, env, c, f, tmp, opts)
	if ctx.Err() != nil {
		return nil, fmt.Errorf("interrupted before every check ran: %w", ctx.Err())
	}
	rep := &Report{Dir: env.Dir, Server: env.Target.Server}
	rep.finish(0, c.checks)
	return rep, nil
}

// remoteProbes are probeChecks' probes of steps 4 and 6, with the drift
// probe between them. As in Run, they are skipped without a CRD or a
// running controller (as the learner's run saw it).
func remoteProbes(ctx context.Context, env *labenv.Env, c *checker, f *facts, tmp *temps, opts Options) {
	probeHint := "is the controller running and reconciling? on the VM: `cnpa service status`, `cnpa service logs`"
	finalizerHint := "the controller must add its finalizer keeping the other finalizers and, on delete, archive first and then remove only its own"
	why := ""
	switch {
	case f.crd == nil:
		why = "the CRD is not installed (see step1.crd)"
	case !f.service.Active:
		// As Run: waiting for a controller the learner's run saw stopped
		// only costs time, and step4.service_active already fails.
		why = "the controller was not running when the learner submitted (see step4.service_active, as reported)"
	}
	if why != "" {
		c.add("step4.new_teamspace_converges", 4, convergesTitle, "", skipped(why))
		c.add(DriftLiveID, 5, driftTitle, "", skipped(why))
		c.add("step6.finalizer_added_keeps_foreign", 6, addedTitle, "", skipped(why))
		c.add("step6.delete_archives", 6, deletedTitle, "", skipped(why))
		return
	}
	tmp.sweepLeftovers(ctx, opts.Progress.Note)
	converges, _ := probeConverges(ctx, env, tmp, opts.ProbeTimeout)
	c.add("step4.new_teamspace_converges", 4, convergesTitle, probeHint, converges)
	c.add(DriftLiveID, 5, driftTitle, "the controller must recreate a deleted quota and put back a hand edit on its next pass", probeDrift(ctx, env, tmp, opts.ProbeTimeout))
	added, deleted := probeFinalizer(ctx, env, tmp, opts.ProbeTimeout)
	c.add("step6.finalizer_added_keeps_foreign", 6, addedTitle, finalizerHint, added)
	c.add("step6.delete_archives", 6, deletedTitle, finalizerHint, deleted)
}

// The probes' titles, shared by Run and RunRemote.
const (
	convergesTitle = "a new TeamSpace gets its namespace, quota and status by itself"
	addedTitle     = "a TeamSpace with a foreign finalizer (" + ForeignFinalizer + ") gets ours too and keeps the other"
	deletedTitle   = "deleted, it is archived to archive/<name>.json and loses only our finalizer"
)

// reportedService is the learner's service as their own run reported it:
// seen from another machine it can be neither asked nor managed.
type reportedService struct{ status service.Status }

var errNotHere = errors.New("the service runs on the learner's VM: it cannot be managed from here")

func (r reportedService) Name() string                                   { return r.status.Manager }
func (r reportedService) UnitPath() string                               { return r.status.UnitPath }
func (r reportedService) Install(context.Context, service.Unit) error    { return errNotHere }
func (r reportedService) Enable(context.Context) error                   { return errNotHere }
func (r reportedService) Start(context.Context) error                    { return errNotHere }
func (r reportedService) Stop(context.Context) error                     { return errNotHere }
func (r reportedService) Restart(context.Context) error                  { return errNotHere }
func (r reportedService) Status(context.Context) (service.Status, error) { return r.status, nil }
func (r reportedService) Logs(context.Context, int, io.Writer) error     { return errNotHere }
func (r reportedService) Remove(context.Context) error                   { return errNotHere }

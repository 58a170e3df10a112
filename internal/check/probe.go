package check

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/poll"
	"github.com/labhub/cnpa/internal/teamspace"
)

// ForeignFinalizer stands for another controller's finalizer, which ours
// must keep (judge.ForeignFinalizer).
const ForeignFinalizer = judge.ForeignFinalizer

// hand is the function that runs one probe: it fills the rows of judge's
// table it names (judge.Probes), returning their verdicts in that order.
type hand struct {
	rows []*judge.Probe
	run  func(ctx context.Context, r *run) []judge.Verdict
}

// hands are the probes' functions, by the id of the first row each
// fills; each probe_*.go adds its own (fills).
var hands = map[string]hand{}

// fills records that run fills rows; a probe's file calls it once, for
// its package-level var.
func fills(run func(ctx context.Context, r *run) []judge.Verdict, rows ...*judge.Probe) bool {
	hands[rows[0].ID] = hand{rows: rows, run: run}
	return true
}

// probes runs the probes that can run here and returns their checks in
// judge.Probes' order. Those that need no controller run first, one at a
// time; then the probes of the running controller all at once, in step
// through the phases of phases.go. A probe of the running controller is
// skipped without a CRD or a running controller: those failures are
// already reported, and waiting for a controller that is not there only
// costs time.
func (r *run) probes(ctx context.Context) []judge.Check {
	type job struct {
		p  *judge.Probe
		h  hand
		vs []judge.Verdict
	}
	var jobs []*job
	for _, p := range judge.Probes {
		h, ok := hands[p.ID]
		if !ok || !p.RunsAt(r.at) {
			continue // a row filled by an earlier hand, or one that cannot run here
		}
		wanted := false
		for _, row := range h.rows {
			wanted = wanted || r.wants(row)
		}
		if wanted {
			jobs = append(jobs, &job{p: p, h: h})
		}
	}
	var together []*job
	for _, j := range jobs {
		switch why := r.cannot(j.p); {
		case why != "":
			for range j.h.rows {
				j.vs = append(j.vs, judge.Skipped(why))
			}
		case j.p.Controller:
			together = append(together, j)
		default:
			j.vs = j.h.run(ctx, r)
		}
	}
	if len(together) > 0 {
		r.tmp.sweepLeftovers(ctx, r.opts.Progress.Note)
		r.phases = newPhases()
		for i := range together {
			r.phases.join(i)
		}
		var wg sync.WaitGroup
		for i, j := range together {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer r.phases.leave(i)
				j.vs = j.h.run(context.WithValue(ctx, memberKey{}, i), r)
			}()
		}
		wg.Wait()
		r.phases = nil
	}
	if ts := r.takeHandedOn(); ts != nil {
		_ = r.tmp.discard(ctx, ts.Name)
	}
	var out []judge.Check
	for _, j := range jobs {
		for i, row := range j.h.rows {
			out = append(out, row.Check(j.vs[i], r.facts))
		}
	}
	return out
}

// runsHere tells whether probe p runs in this run, here: step 4's hands
// its TeamSpace on to the drift probe when that one runs, and the drift
// probe makes its own when step 4's does not.
func (r *run) runsHere(p *judge.Probe) bool {
	return r.wants(p) && p.RunsAt(r.at) && r.cannot(p) == ""
}

// wants tells whether this run reports row p: every step's, or --step's.
func (r *run) wants(p *judge.Probe) bool { return r.opts.Step == 0 || r.opts.Step == p.Step.Number }

// cannot says why probe p cannot be made, "" when it can.
func (r *run) cannot(p *judge.Probe) string {
	f := r.facts
	switch {
	case !p.Controller:
		return ""
	case f.CRD == nil:
		return i18n.T("check.crd.skip_not_installed")
	case f.OtherDir != "":
		return i18n.T("check.cannot.other_dir")
	case !f.Service.Active && r.at == judge.Remote:
		return i18n.T("check.cannot.not_running_submitted")
	case !f.Service.Active:
		return i18n.T("check.cannot.not_running")
	}
	return ""
}

// await calls observe every 200 ms until it reports done, the timeout
// passes or ctx ends; it returns whether it was done and the last thing
// observe said, so a failure shows what was seen, not a bare "timed out".
func await(ctx context.Context, timeout time.Duration, observe func(ctx context.Context) (bool, string)) (bool, string) {
	seenLast := ""
	_, err := poll.Until(ctx, 200*time.Millisecond, timeout, func(ctx context.Context) (bool, string, error) {
		done, seen := observe(ctx)
		// An observation cut short by the deadline itself says nothing
		// about the cluster: keep what was seen before it. Besides "context
		// deadline exceeded", client-go's rate limiter refuses a request
		// that could not start before the deadline a few milliseconds
		// early, while the context is still live.
		if cutShort := ctx.Err() != nil || strings.Contains(seen, "would exceed context deadline"); !cutShort || seenLast == "" {
			seenLast = seen
		}
		return done, seen, nil
	})
	last := seenLast
	if last == "" {
		last = i18n.T("check.nothing_observed")
	}
	if err != nil {
		return false, i18n.T("check.after", i18n.Args{"Timeout": timeout, "Last": last})
	}
	return true, last
}

// liveState reads a TeamSpace with its namespace and quota.
func liveState(ctx context.Context, env *labenv.Env, name string) (*teamspace.TeamSpace, *corev1.Namespace, *corev1.ResourceQuota, error) {
	ts, err := teamspace.Get(ctx, env.Clients.Dynamic, name)
	if err != nil || ts == nil {
		return ts, nil, nil, err
	}
	ns, err := getNamespace(ctx, env, teamspace.NamespaceName(name))
	if err != nil || ns == nil {
		return ts, ns, nil, err
	}
	q, err := env.Clients.Kube.CoreV1().ResourceQuotas(ns.Name).Get(ctx, teamspace.QuotaName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return ts, ns, nil, nil
	}
	if err != nil {
		return ts, ns, nil, err
	}
	return ts, ns, q, nil
}

func orGone(err error) error {
	if err == nil {
		return errors.New("gone")
	}
	return err
}

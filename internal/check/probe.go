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
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/poll"
	"github.com/labhub/cnpa/internal/teamspace"
)

// ForeignFinalizer stands for another controller's finalizer, which ours
// must keep (judge.ForeignFinalizer).
const ForeignFinalizer = judge.ForeignFinalizer

// Hand is the code of one probe, bound to the rows of its step's grading
// that it fills (judge.Probe): Run returns their verdicts in Rows' order.
// Each step's hands are in its folder under package course, beside its
// rows.
type Hand struct {
	Rows []*judge.Probe
	Run  func(ctx context.Context, r *Session) []lab.Verdict
	// TakesHandedOn: this hand takes the TeamSpace step 4's probe hands on
	// once it converged (the drift probe's, Session.TakeHandedOn), so
	// that, while it runs here, step 4's probe keeps its TeamSpace for it
	// instead of deleting it (Session.ConvergeDone).
	TakesHandedOn bool
}

// Step is a step as the grader's hands see it: its grading (judge.Step)
// and the hands of its probes.
type Step struct {
	*judge.Step
	Hands []Hand
}

// Table is the grader's steps with their hands, in lab order
// (course.Steps.Checker()).
type Table []*Step

// Grader is the table as package judge grades it.
func (t Table) Grader() judge.Table {
	out := make(judge.Table, len(t))
	for i, s := range t {
		out[i] = s.Step
	}
	return out
}

// Hands is every step's hands, in lab order.
func (t Table) Hands() []Hand {
	var out []Hand
	for _, s := range t {
		out = append(out, s.Hands...)
	}
	return out
}

// probes runs the probes that can run here and returns their checks in
// the table's order. Those that need no controller run first, one at a
// time; then the probes of the running controller all at once, in step
// through the phases of phases.go. A probe of the running controller is
// skipped without a CRD or a running controller: those failures are
// already reported, and waiting for a controller that is not there only
// costs time.
func (r *Session) probes(ctx context.Context) []judge.Check {
	type job struct {
		p  *judge.Probe
		h  Hand
		vs []lab.Verdict
	}
	var jobs []*job
	for _, h := range r.opts.Steps.Hands() {
		p := h.Rows[0]
		if !p.RunsAt(r.at) {
			continue // a probe that cannot run here
		}
		wanted := false
		for _, row := range h.Rows {
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
			for range j.h.Rows {
				j.vs = append(j.vs, lab.Skipped(why))
			}
		case j.p.Controller:
			together = append(together, j)
		default:
			j.vs = j.h.Run(ctx, r)
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
				j.vs = j.h.Run(context.WithValue(ctx, memberKey{}, i), r)
			}()
		}
		wg.Wait()
		r.phases = nil
	}
	if ts := r.TakeHandedOn(); ts != nil {
		_ = r.tmp.discard(ctx, ts.Name)
	}
	var out []judge.Check
	for _, j := range jobs {
		for i, row := range j.h.Rows {
			out = append(out, row.Check(j.vs[i], r.facts))
		}
	}
	return out
}

// Runs tells whether the probe of row p runs in this run, here: it is
// reported (every step's, or --step's), can run here and can be made.
// The drift probe makes its own TeamSpace when step 4's probe, whose
// TeamSpace it would take, does not run.
func (r *Session) Runs(p *judge.Probe) bool {
	return r.wants(p) && p.RunsAt(r.at) && r.cannot(p) == ""
}

// handRuns tells whether hand h runs in this run, here, as probes
// decides: its rows run where its first does, and it runs when any of
// them is reported.
func (r *Session) handRuns(h Hand) bool {
	p := h.Rows[0]
	if !p.RunsAt(r.at) || r.cannot(p) != "" {
		return false
	}
	for _, row := range h.Rows {
		if r.wants(row) {
			return true
		}
	}
	return false
}

// wants tells whether this run reports row p: every step's, or --step's,
// but for the kinds it leaves out (Options.Leave).
func (r *Session) wants(p *judge.Probe) bool {
	return (r.opts.Step == 0 || r.opts.Step == p.Step) && !r.opts.Leave.leaves(p)
}

// cannot says why probe p cannot be made, "" when it can.
func (r *Session) cannot(p *judge.Probe) string {
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

// Await calls observe every 200 ms until it reports done, the timeout
// passes or ctx ends; it returns whether it was done and the last thing
// observe said, so a failure shows what was seen, not a bare "timed out".
func Await(ctx context.Context, timeout time.Duration, observe func(ctx context.Context) (bool, string)) (bool, string) {
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

// LiveState reads a TeamSpace with its namespace and quota, nil for what
// does not exist: what a probe's wait observes of its TeamSpace.
func LiveState(ctx context.Context, env *labenv.Env, name string) (*teamspace.TeamSpace, *corev1.Namespace, *corev1.ResourceQuota, error) {
	ts, err := teamspace.Get(ctx, env.Clients.Dynamic, name)
	if err != nil || ts == nil {
		return ts, nil, nil, err
	}
	ns, err := GetNamespace(ctx, env, teamspace.NamespaceName(name))
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

// OrGone is err, or "gone" when a read found nothing (nil, nil): what a
// probe's wait says it saw of an object that is no longer there.
func OrGone(err error) error {
	if err == nil {
		return errors.New("gone")
	}
	return err
}

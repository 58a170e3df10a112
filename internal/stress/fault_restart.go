package stress

import (
	"context"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/service"
)

// The restart fault: kube-apiserver restarting (k3s restarted, an
// upgrade): for RestartHold every connection to it is refused, open ones
// (watches) cut. A loop that ends on the first failed call (`set -e`)
// under Restart=always with a short RestartSec= is started again and
// again, and systemd gives up on it after its start limit (5 starts in
// 10 s): the unit stays failed after the API server is back. So the
// unit is judged too (start_limit): under systemd by its own state
// (failed: "Start request repeated too quickly"; Result=start-limit-hit
// on systemd after 252, exit-code on 252), in process mode, which restarts for ever, by
// the starts it made, against the limit the unit file would have under
// systemd.
func init() { customs["restart"] = restartFault }

// RestartHold is how long the proxy refuses connections.
var RestartHold = 20 * time.Second

func restartFault(ctx context.Context, r *runner) ([]deletion, afterFault) {
	began := time.Now()
	refuseErr := r.proxy.refuse()
	r.proxy.inject("restart")
	var reopenErr error
	reopened := false
	// On every path (Ctrl-C included) the proxy listens again before the
	// run's cleanup restarts the service on it.
	defer func() {
		if !reopened {
			reopenErr = r.proxy.reopen()
		}
	}()
	deleted := r.workload(ctx)
	sleep(ctx, RestartHold/2)
	r.pods = r.pods%9 + 1
	r.editPods(ctx, r.b1, r.pods)
	sleep(ctx, RestartHold/2)
	reopenErr, reopened = r.proxy.reopen(), true
	return deleted, afterFault{
		judge: func(ctx context.Context) []judge.StressFinding {
			if err := errorsOf(refuseErr, reopenErr); err != "" {
				return []judge.StressFinding{{Property: judge.StressConverged, Found: err,
					Expected: i18n.T("stress.expected.converged", i18n.Args{"Bound": r.opts.Bound})}}
			}
			return r.startLimit(ctx, began)
		},
		// A unit left failed is started again for the next fault and for
		// the service as it was (systemd: reset-failed first).
		release: func(ctx context.Context) {
			if st, err := r.env.Service.Status(ctx); err == nil && !st.Active {
				_ = service.ResetFailed(ctx, r.env.Service)
				_ = r.env.Service.Start(ctx)
			}
		},
	}
}

func errorsOf(errs ...error) string {
	for _, e := range errs {
		if e != nil {
			return e.Error()
		}
	}
	return ""
}

// startLimit judges the unit after the outage: systemd's own word, or in
// process mode the starts since began against the unit's start limit.
func (r *runner) startLimit(ctx context.Context, began time.Time) []judge.StressFinding {
	uf := service.UnitFile{}
	if data, err := os.ReadFile(r.env.Service.UnitPath()); err == nil {
		if parsed, err := service.ParseUnit(data); err == nil {
			uf = parsed
		}
	}
	interval, burst := service.StartLimit(uf)
	expected := i18n.T("stress.expected.start_limit", i18n.Args{"Burst": burst, "Interval": interval})
	if st, ok := service.SystemdState(ctx, r.env.Service); ok {
		// A Restart=always unit that is failed was given up on: its start
		// limit (Result=start-limit-hit), or a start that could not run.
		if st.Result == "start-limit-hit" || st.Active == "failed" {
			return []judge.StressFinding{{Property: judge.StressStartLimit, Expected: expected,
				Found: i18n.T("stress.found.start_limit_systemd", i18n.Args{"Active": st.Active, "Result": st.Result, "Restarts": st.Restarts})}}
		}
		return nil
	}
	all, ok := service.Starts(r.env.Service)
	if !ok {
		return nil
	}
	var starts []time.Time
	for _, t := range all {
		if !t.Before(began) {
			starts = append(starts, t)
		}
	}
	if _, n, hit := service.StartLimitHit(starts, interval, burst); hit {
		return []judge.StressFinding{{Property: judge.StressStartLimit, Expected: expected,
			Found: i18n.T("stress.found.start_limit_process", i18n.Args{"Starts": len(starts), "Within": n + 1,
				"Interval": interval, "Burst": burst})}}
	}
	return nil
}

// refuse closes the proxy's listener and every connection it serves
// (watches too): a client's connect is refused, as while kube-apiserver
// restarts. reopen serves again on the same address.
func (p *Proxy) refuse() error {
	p.mu.Lock()
	srv := p.srv
	p.mu.Unlock()
	if srv == nil {
		return nil
	}
	return srv.Close()
}

// reopen listens again on the address refuse closed, with the same
// certificate, as Start did.
func (p *Proxy) reopen() error {
	p.mu.Lock()
	old := p.srv
	p.mu.Unlock()
	if old == nil {
		return nil
	}
	var ln net.Listener
	var err error
	// The port was ours a moment ago; a bind can still race the kernel's
	// release of it for a moment.
	for range 50 {
		if ln, err = net.Listen("tcp", p.ln.Addr().String()); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: old.ReadHeaderTimeout,
		TLSConfig: old.TLSConfig, TLSNextProto: old.TLSNextProto}
	p.mu.Lock()
	p.srv, p.ln = srv, ln
	p.mu.Unlock()
	go srv.ServeTLS(ln, "", "")
	return nil
}

package controller

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the controller's Prometheus series. Each controller has its
// own registry, so tests can run several in one process.
type metrics struct {
	registry   *prometheus.Registry
	reconciles *prometheus.CounterVec
	duration   prometheus.Histogram
	drift      *prometheus.CounterVec
	archived   prometheus.Counter
	queue      *queueMetrics
	// pass is how long the last periodic full pass took, wall clock:
	// how late a lost event can be caught at this size.
	pass prometheus.Gauge
	// passSynced is how many names the last pass handed to the workers;
	// the others were in order from the very objects it found cached
	// (inorder.go). passes counts the passes that ended.
	passSynced prometheus.Gauge
	passes     prometheus.Counter
}

func newMetrics() *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		reconciles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cnpa_reconcile_total", Help: "TeamSpace reconciles by result (ok, skipped, error).",
		}, []string{"result"}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "cnpa_reconcile_duration_seconds", Help: "Time one TeamSpace reconcile takes.",
			Buckets: prometheus.ExponentialBuckets(0.0005, 2, 14),
		}),
		drift: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "cnpa_drift_corrections_total", Help: "Hand edits and deletions undone, by object kind.",
		}, []string{"kind"}),
		archived: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "cnpa_archived_total", Help: "TeamSpaces archived and released.",
		}),
	}
	m.pass = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "cnpa_resync_pass_seconds", Help: "Wall-clock time of the last periodic full pass (it yields to events and takes at most a tenth of the time).",
	})
	m.passSynced = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "cnpa_resync_pass_synced", Help: "TeamSpaces the last periodic full pass handed to the workers; it leaves out those a sync found in order from the same cached objects.",
	})
	m.passes = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "cnpa_resync_passes_total", Help: "Periodic full passes that ended.",
	})
	m.registry.MustRegister(m.reconciles, m.duration, m.drift, m.archived, m.pass, m.passSynced, m.passes,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.queue = newQueueMetrics(m.registry)
	return m
}

func (m *metrics) observe(d time.Duration, err error) {
	m.duration.Observe(d.Seconds())
	switch {
	case err == nil:
		m.reconciles.WithLabelValues("ok").Inc()
	case isSkip(err):
		m.reconciles.WithLabelValues("skipped").Inc()
	default:
		m.reconciles.WithLabelValues("error").Inc()
	}
}

func (m *metrics) queueDepth(length func() int) {
	m.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "cnpa_workqueue_depth", Help: "TeamSpace names waiting to be reconciled.",
	}, func() float64 { return float64(length()) }))
}

// ServeMetrics serves /metrics on addr until ctx ends.
func (c *Controller) ServeMetrics(ctx context.Context, addr string) error {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(c.metrics.registry, promhttp.HandlerOpts{}))
	return serve(ctx, addr, mux)
}

// ServeHealth serves /healthz (the process is up) and /readyz (the caches
// have synced) on addr until ctx ends.
func (c *Controller) ServeHealth(ctx context.Context, addr string) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("ok\n")) })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		select {
		case <-c.ready:
			w.Write([]byte("ok\n"))
		default:
			http.Error(w, "caches not synced", http.StatusServiceUnavailable)
		}
	})
	return serve(ctx, addr, mux)
}

func serve(ctx context.Context, addr string, h http.Handler) error {
	srv := &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		<-ctx.Done()
		shutdownCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(shutdownCtx)
	}()
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

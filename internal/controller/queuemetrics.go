package controller

import (
	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/util/workqueue"
)

// queueMetrics is client-go's workqueue MetricsProvider on the
// controller's own registry, under the names kube-controller-manager and
// controller-runtime use (workqueue_queue_duration_seconds and the rest,
// labelled by queue name), so a dashboard made for either reads ours.
//
// Why: how long a name waits in the queue before a worker takes it is the
// number that shows whether the periodic pass delays events; the
// reconcile duration alone cannot.
type queueMetrics struct {
	depth, unfinished, longest *prometheus.GaugeVec
	adds, retries              *prometheus.CounterVec
	latency, work              *prometheus.HistogramVec
}

// queueBuckets run from 100 µs to about 13 s: a wait behind a full pass
// at 10,000 TeamSpaces is seconds, a wait behind nothing is microseconds.
var queueBuckets = prometheus.ExponentialBuckets(0.0001, 2, 18)

func newQueueMetrics(r prometheus.Registerer) *queueMetrics {
	name := []string{"name"}
	m := &queueMetrics{
		depth: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Subsystem: "workqueue", Name: "depth", Help: "Current depth of the workqueue.",
		}, name),
		adds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: "workqueue", Name: "adds_total", Help: "Adds handled by the workqueue.",
		}, name),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: "workqueue", Name: "queue_duration_seconds",
			Help: "How long an item stays in the workqueue before a worker takes it.", Buckets: queueBuckets,
		}, name),
		work: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Subsystem: "workqueue", Name: "work_duration_seconds",
			Help: "How long processing an item takes.", Buckets: queueBuckets,
		}, name),
		unfinished: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Subsystem: "workqueue", Name: "unfinished_work_seconds",
			Help: "Seconds of work in progress not yet observed by work_duration.",
		}, name),
		longest: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Subsystem: "workqueue", Name: "longest_running_processor_seconds",
			Help: "How long the longest-running processor has been running.",
		}, name),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Subsystem: "workqueue", Name: "retries_total", Help: "Retries handled by the workqueue.",
		}, name),
	}
	r.MustRegister(m.depth, m.adds, m.latency, m.work, m.unfinished, m.longest, m.retries)
	return m
}

func (m *queueMetrics) NewDepthMetric(q string) workqueue.GaugeMetric {
	return m.depth.WithLabelValues(q)
}

func (m *queueMetrics) NewAddsMetric(q string) workqueue.CounterMetric {
	return m.adds.WithLabelValues(q)
}

func (m *queueMetrics) NewLatencyMetric(q string) workqueue.HistogramMetric {
	return m.latency.WithLabelValues(q)
}

func (m *queueMetrics) NewWorkDurationMetric(q string) workqueue.HistogramMetric {
	return m.work.WithLabelValues(q)
}

func (m *queueMetrics) NewUnfinishedWorkSecondsMetric(q string) workqueue.SettableGaugeMetric {
	return m.unfinished.WithLabelValues(q)
}

func (m *queueMetrics) NewLongestRunningProcessorSecondsMetric(q string) workqueue.SettableGaugeMetric {
	return m.longest.WithLabelValues(q)
}

func (m *queueMetrics) NewRetriesMetric(q string) workqueue.CounterMetric {
	return m.retries.WithLabelValues(q)
}

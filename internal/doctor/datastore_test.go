package doctor

import (
	"errors"
	"strings"
	"testing"
)

// TestDatastoreDetail covers every way the signals combine. What the API
// server's /metrics shows on each datastore is tested for real in test/lab,
// where `cnpa doctor` runs against etcd and kine clusters.
func TestDatastoreDetail(t *testing.T) {
	forbidden := errors.New(`metrics is forbidden: User "learner" cannot get path "/metrics"`)
	cases := []struct {
		name    string
		metrics metricsSeen
		merr    error
		label   labelState
		lerr    error
		want    string // first word
		says    string // somewhere in the detail
	}{
		{"kine metrics", metricsSeen{read: true, kine: true, etcd: true}, nil, labelUnknown, nil, DatastoreKine, "kine_*"},
		{"kine metrics beat a k3s etcd label", metricsSeen{read: true, kine: true, etcd: true}, nil, labelPresent, nil, DatastoreKine, "kine_*"},
		{"k3s embedded etcd", metricsSeen{read: true, etcd: true}, nil, labelPresent, nil, DatastoreEtcd, "k3s embedded etcd"},
		{"k3s embedded etcd, metrics forbidden", metricsSeen{}, forbidden, labelPresent, nil, DatastoreEtcd, "k3s embedded etcd"},
		{"k3s without etcd and no kine metrics", metricsSeen{read: true, etcd: true}, nil, labelAbsent, nil, DatastoreEtcd, "external"},
		{"k3s without etcd, metrics forbidden", metricsSeen{}, forbidden, labelAbsent, nil, DatastoreKine, "SQLite"},
		{"etcd client metrics only", metricsSeen{read: true, etcd: true}, nil, labelUnknown, nil, DatastoreEtcd, "process of its own"},
		{"nothing to go by", metricsSeen{}, forbidden, labelUnknown, errors.New("nodes is forbidden"), DatastoreUnknown, "nodes is forbidden"},
		{"metrics without storage series", metricsSeen{read: true}, nil, labelUnknown, nil, DatastoreUnknown, "no etcd_* or kine_*"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := datastoreDetail(c.metrics, c.merr, c.label, c.lerr)
			if first, _, _ := strings.Cut(got, " "); first != c.want {
				t.Errorf("got %q, want it to start with %s", got, c.want)
			}
			if !strings.Contains(got, c.says) {
				t.Errorf("got %q, want it to say %q", got, c.says)
			}
		})
	}
}

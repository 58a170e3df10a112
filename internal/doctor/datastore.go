package doctor

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/kube"
)

// The datastore names datastoreCheck reports, first word of its detail.
const (
	DatastoreKine    = "kine"
	DatastoreEtcd    = "etcd"
	DatastoreUnknown = "unknown"
)

// k3s's node role labels: every server node carries the control-plane one;
// a server that runs embedded etcd also carries the etcd one. kubeadm's
// control-plane nodes carry the first too, so only nodes whose kubelet
// says k3s count.
const (
	k3sControlPlaneLabel = "node-role.kubernetes.io/control-plane"
	k3sEtcdLabel         = "node-role.kubernetes.io/etcd"
	k3sVersionMark       = "+k3s"
)

// metricsSeen is what the API server's /metrics shows about its storage.
type metricsSeen struct {
	read bool // /metrics answered
	kine bool // a kine_* series: kine runs inside the API server's process
	etcd bool // an etcd_* series: the API server's etcd client is in use
}

// datastoreCheck says what the API server stores objects in, when the
// cluster shows it. It never fails: it is a fact for the reader, since the
// datastore changes timing and resourceVersions but not what the lab asks.
// The signals, strongest first:
//  1. kine_* series on /metrics: k3s starts kine in its own process and
//     registers kine's metrics with the API server's (k3s pkg/cluster,
//     startStorage), as kubebox does;
//  2. k3s's node labels: a server node with embedded etcd carries
//     node-role.kubernetes.io/etcd=true, a server node on kine does not;
//  3. etcd_* series (the API server's etcd client) without kine_* ones.
//
// A kine running in a process of its own looks like etcd from the API
// server; the detail says so.
func datastoreCheck(ctx context.Context, k kube.Typed) Result {
	m, merr := readStorageMetrics(ctx, k)
	label, lerr := k3sServerEtcdLabel(ctx, k)
	return Result{Name: "datastore", OK: true, Detail: datastoreDetail(m, merr, label, lerr)}
}

// datastoreDetail weighs the signals datastoreCheck gathered; the first word
// is DatastoreKine, DatastoreEtcd or DatastoreUnknown.
func datastoreDetail(m metricsSeen, merr error, label labelState, lerr error) string {
	switch {
	case m.kine:
		return DatastoreKine + " (" + i18n.T("cli.doctor.datastore.kine_metrics") + ")"
	case label == labelPresent:
		return DatastoreEtcd + " (" + i18n.T("cli.doctor.datastore.embedded_etcd", i18n.Args{"Label": k3sEtcdLabel}) + ")"
	case label == labelAbsent && m.read:
		return DatastoreEtcd + " (" + i18n.T("cli.doctor.datastore.external_etcd") + ")"
	case label == labelAbsent:
		return DatastoreKine + " (" + i18n.T("cli.doctor.datastore.no_label", i18n.Args{"Label": k3sEtcdLabel}) + ")"
	case m.etcd:
		return DatastoreEtcd + " (" + i18n.T("cli.doctor.datastore.etcd_metrics") + ")"
	}
	var why []string
	if merr != nil {
		why = append(why, "/metrics: "+merr.Error())
	} else {
		why = append(why, i18n.T("cli.doctor.datastore.no_series"))
	}
	if lerr != nil {
		why = append(why, "nodes: "+lerr.Error())
	} else {
		why = append(why, i18n.T("cli.doctor.datastore.no_server_node"))
	}
	return DatastoreUnknown + " (" + strings.Join(why, "; ") + ")"
}

// readStorageMetrics reads the API server's /metrics and notes which
// storage series it has.
func readStorageMetrics(ctx context.Context, k kube.Typed) (metricsSeen, error) {
	body, err := k.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		return metricsSeen{}, err
	}
	m := metricsSeen{read: true}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() && !(m.kine && m.etcd) {
		line := sc.Bytes()
		m.kine = m.kine || bytes.HasPrefix(line, []byte("kine_"))
		m.etcd = m.etcd || bytes.HasPrefix(line, []byte("etcd_"))
	}
	if err := sc.Err(); err != nil {
		return m, fmt.Errorf("read /metrics: %w", err)
	}
	return m, nil
}

// labelState is what k3s's server nodes say about embedded etcd.
type labelState int

const (
	labelUnknown labelState = iota // no k3s server node seen
	labelPresent                   // a server node runs embedded etcd
	labelAbsent                    // server nodes, none with etcd
)

// k3sServerEtcdLabel looks at the k3s nodes that carry the control-plane
// role label and tells whether any also carries the etcd one.
func k3sServerEtcdLabel(ctx context.Context, k kube.Typed) (labelState, error) {
	nodes, err := k.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: k3sControlPlaneLabel})
	if err != nil {
		return labelUnknown, err
	}
	state := labelUnknown
	for _, n := range nodes.Items {
		if !strings.Contains(n.Status.NodeInfo.KubeletVersion, k3sVersionMark) {
			continue
		}
		if n.Labels[k3sEtcdLabel] == "true" {
			return labelPresent, nil
		}
		state = labelAbsent
	}
	return state, nil
}

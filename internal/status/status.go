// Package status shows every TeamSpace as the controller should see it:
// spec beside what is live (namespace, quota, status), whether the
// controller has acted on the current spec, whether the quota drifted, and
// whether the service runs.
package status

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/ui"
)

// Row is one TeamSpace.
type Row struct {
	Name string `json:"name"`
	Pods int64  `json:"pods"`
	CPU  string `json:"cpu"`
	// Namespace is team-<name>; NamespaceExists whether it is there.
	Namespace          string `json:"namespace"`
	NamespaceExists    bool   `json:"namespace_exists"`
	Generation         int64  `json:"generation"`
	ObservedGeneration int64  `json:"observed_generation"`
	// InSync: observedGeneration = generation, the controller acted on the
	// current spec; otherwise it is behind.
	InSync bool `json:"in_sync"`
	// QuotaPods and QuotaCPU are team-quota's live spec.hard; empty when
	// there is no quota.
	QuotaPods string `json:"quota_pods"`
	QuotaCPU  string `json:"quota_cpu"`
	// Drift: the quota is missing or differs from the spec.
	Drift      bool     `json:"drift"`
	Finalizers []string `json:"finalizers"`
	Deleting   bool     `json:"deleting"`
}

// Snapshot is the whole picture at one moment.
type Snapshot struct {
	Time         time.Time      `json:"time"`
	CRDInstalled bool           `json:"crd_installed"`
	Service      service.Status `json:"service"`
	TeamSpaces   []Row          `json:"teamspaces"`
}

// Take reads every TeamSpace with its namespace and quota, and the service.
func Take(ctx context.Context, clients *kube.Clients, svc service.Manager) (*Snapshot, error) {
	s := &Snapshot{Time: time.Now().UTC().Truncate(time.Second), TeamSpaces: []Row{}}
	st, err := svc.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("status of %s: %w", service.Name, err)
	}
	s.Service = st
	list, err := clients.Dynamic.Resource(teamspace.GVR).List(ctx, metav1.ListOptions{})
	if apierrors.IsNotFound(err) {
		return s, nil // no CRD: no TeamSpaces
	}
	if err != nil {
		return nil, fmt.Errorf("list teamspaces: %w", err)
	}
	s.CRDInstalled = true
	nsList, err := clients.Kube.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	namespaces := map[string]*corev1.Namespace{}
	for i, ns := range nsList.Items {
		namespaces[ns.Name] = &nsList.Items[i]
	}
	qList, err := clients.Kube.CoreV1().ResourceQuotas(metav1.NamespaceAll).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list resourcequotas: %w", err)
	}
	quotas := map[string]*corev1.ResourceQuota{}
	for i, q := range qList.Items {
		if q.Name == teamspace.QuotaName {
			quotas[q.Namespace] = &qList.Items[i]
		}
	}
	for i := range list.Items {
		ts, err := teamspace.FromUnstructured(&list.Items[i])
		if err != nil {
			return nil, err
		}
		s.TeamSpaces = append(s.TeamSpaces, row(ts, namespaces, quotas))
	}
	sort.Slice(s.TeamSpaces, func(i, j int) bool { return s.TeamSpaces[i].Name < s.TeamSpaces[j].Name })
	return s, nil
}

func row(ts *teamspace.TeamSpace, namespaces map[string]*corev1.Namespace, quotas map[string]*corev1.ResourceQuota) Row {
	ns := teamspace.NamespaceName(ts.Name)
	r := Row{
		Name: ts.Name, Pods: ts.Spec.Pods, CPU: ts.CPU(), Namespace: ns, NamespaceExists: namespaces[ns] != nil,
		Generation: ts.Generation, ObservedGeneration: ts.Status.ObservedGeneration,
		InSync:     ts.Status.ObservedGeneration == ts.Generation,
		Finalizers: ts.Finalizers, Deleting: ts.DeletionTimestamp != nil,
	}
	if r.Finalizers == nil {
		r.Finalizers = []string{}
	}
	q := quotas[ns]
	if q != nil {
		if p, ok := q.Spec.Hard[corev1.ResourcePods]; ok {
			r.QuotaPods = p.String()
		}
		if c, ok := q.Spec.Hard[corev1.ResourceRequestsCPU]; ok {
			r.QuotaCPU = c.String()
		}
	}
	// Drift is judged against what the spec asks; an invalid spec has no
	// desired quota to drift from, and a foreign namespace is not ours.
	gaps, _ := teamspace.FindGaps(ts, namespaces[ns], q, false)
	r.Drift = gaps.Has(teamspace.GapQuota) || gaps.Has(teamspace.GapQuotaHard)
	return r
}

// WriteJSON writes the snapshot as indented JSON.
func WriteJSON(w io.Writer, s *Snapshot) error {
	return ui.WriteJSON(w, s)
}

// nameWidth is the widest name the narrow table prints; longer names end
// in "…" there (`-o wide` prints them whole).
const nameWidth = 20

// WriteText prints the service line and a table of TeamSpaces that fits
// 80 columns: name, spec, sync, live quota, drift and finalizers.
func WriteText(p *ui.Printer, s *Snapshot) { writeText(p, s, false) }

// WriteWide prints the service line and every column of every TeamSpace,
// names whole.
func WriteWide(p *ui.Printer, s *Snapshot) { writeText(p, s, true) }

func writeText(p *ui.Printer, s *Snapshot, wide bool) {
	svc := fmt.Sprintf("%s (%s): ", service.Name, s.Service.Manager)
	switch {
	case s.Service.Restarting:
		p.Line("%s%s %s", svc, p.Mark(true), i18n.T("status.restarting"))
	case s.Service.Active:
		p.Line("%s%s %s", svc, p.Mark(true), i18n.T("status.running", i18n.Args{"PID": s.Service.MainPID}))
	case s.Service.Installed:
		p.Line("%s%s %s", svc, p.Mark(false), i18n.T("status.not_running"))
	default:
		p.Line("%s%s %s", svc, p.Mark(false), i18n.T("status.not_installed"))
	}
	if !s.CRDInstalled {
		p.Note("%s", i18n.T("status.no_crd", i18n.Args{"CRD": teamspace.CRDName}))
		return
	}
	if len(s.TeamSpaces) == 0 {
		p.Note("%s", i18n.T("status.no_teamspaces"))
		return
	}
	col := func(id string) string { return i18n.T("status.col." + id) }
	var rows [][]string
	if wide {
		rows = append(rows, []string{col("name"), col("pods"), col("cpu"), col("namespace"), col("gen"), col("observed"), col("sync"),
			col("quota_pods"), col("quota_cpu"), col("drift"), col("finalizers"), col("deleting")})
	} else {
		rows = append(rows, []string{col("name"), col("pods"), col("cpu"), col("sync"), col("quota"), col("drift"), col("finalizers")})
	}
	yesNo := func(b bool) string {
		if b {
			return i18n.T("status.yes")
		}
		return i18n.T("status.no")
	}
	for _, r := range s.TeamSpaces {
		// Under a weaker schema spec.cpu is any string: data, not terminal
		// commands (ui.Clean). Names and finalizers the API server checks.
		r.CPU = ui.Clean(r.CPU)
		sync := i18n.T("status.in_sync")
		if !r.InSync {
			sync = i18n.T("status.behind", i18n.Args{"N": r.Generation - r.ObservedGeneration})
		}
		drift := "-"
		if r.Drift {
			drift = i18n.T("status.drift")
		}
		if wide {
			ns := r.Namespace
			if !r.NamespaceExists {
				ns += " " + i18n.T("status.ns_missing")
			}
			fins := strings.Join(r.Finalizers, ",")
			rows = append(rows, []string{r.Name, fmt.Sprint(r.Pods), r.CPU, ns, fmt.Sprint(r.Generation), fmt.Sprint(r.ObservedGeneration),
				sync, dash(r.QuotaPods), dash(r.QuotaCPU), drift, dash(fins), yesNo(r.Deleting)})
			continue
		}
		if r.Deleting {
			sync = i18n.T("status.deleting")
		}
		quota := "-"
		switch {
		case !r.NamespaceExists:
			quota = i18n.T("status.no_ns")
		case r.QuotaPods != "" || r.QuotaCPU != "":
			quota = dash(r.QuotaPods) + "/" + dash(r.QuotaCPU)
		}
		rows = append(rows, []string{clip(r.Name, nameWidth), fmt.Sprint(r.Pods), clip(r.CPU, 6), sync,
			clip(quota, 12), drift, shortFinalizers(r.Finalizers)})
	}
	writeTable(p.W, rows)
}

// writeTable prints rows as columns two spaces apart, each as wide as its
// widest cell in display columns (text/tabwriter counts a Japanese
// header's characters, not its columns, and puts the table out of line).
func writeTable(w io.Writer, rows [][]string) {
	var widths []int
	for _, r := range rows {
		for i, c := range r {
			if i >= len(widths) {
				widths = append(widths, 0)
			}
			widths[i] = max(widths[i], ui.Width(c))
		}
	}
	for _, r := range rows {
		var line strings.Builder
		for i, c := range r {
			if i == len(r)-1 {
				line.WriteString(c)
				break
			}
			line.WriteString(ui.Pad(c, widths[i]+2))
		}
		fmt.Fprintln(w, strings.TrimRight(line.String(), " "))
	}
}

// shortFinalizers names ours "cleanup" and counts the others ("+2"), so
// the column stays narrow whatever other controllers add.
func shortFinalizers(fins []string) string {
	var out []string
	others := 0
	for _, f := range fins {
		if f == teamspace.Finalizer {
			out = append(out, "cleanup")
		} else {
			others++
		}
	}
	if others > 0 {
		out = append(out, fmt.Sprintf("+%d", others))
	}
	return dash(strings.Join(out, ","))
}

// clip shortens s to n characters, the last one "…".
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

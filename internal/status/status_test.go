package status

import (
	"bytes"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/teamspace"
	"github.com/labhub/cnpa/internal/ui"
)

func quota(pods, cpu string) *corev1.ResourceQuota {
	return &corev1.ResourceQuota{Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{
		corev1.ResourcePods: resource.MustParse(pods), corev1.ResourceRequestsCPU: resource.MustParse(cpu)}}}
}

func TestRow(t *testing.T) {
	now := metav1.NewTime(time.Now())
	tests := []struct {
		name               string
		ts                 teamspace.TeamSpace
		quota              *corev1.ResourceQuota
		inSync, drift, del bool
	}{
		{"converged", teamspace.TeamSpace{ObjectMeta: metav1.ObjectMeta{Generation: 2}, Spec: teamspace.Spec{Pods: 6}, Status: teamspace.Status{ObservedGeneration: 2}},
			quota("6", "1"), true, false, false},
		{"cpu as another quantity", teamspace.TeamSpace{ObjectMeta: metav1.ObjectMeta{Generation: 1}, Spec: teamspace.Spec{Pods: 2, CPU: "0.5"}, Status: teamspace.Status{ObservedGeneration: 1}},
			quota("2", "500m"), true, false, false},
		{"behind", teamspace.TeamSpace{ObjectMeta: metav1.ObjectMeta{Generation: 3}, Spec: teamspace.Spec{Pods: 8}, Status: teamspace.Status{ObservedGeneration: 2}},
			quota("6", "1"), false, true, false},
		{"quota edited", teamspace.TeamSpace{ObjectMeta: metav1.ObjectMeta{Generation: 2}, Spec: teamspace.Spec{Pods: 6}, Status: teamspace.Status{ObservedGeneration: 2}},
			quota("99", "1"), true, true, false},
		{"no quota", teamspace.TeamSpace{ObjectMeta: metav1.ObjectMeta{Generation: 1}, Spec: teamspace.Spec{Pods: 1}}, nil, false, true, false},
		{"deleting", teamspace.TeamSpace{ObjectMeta: metav1.ObjectMeta{Generation: 1, DeletionTimestamp: &now}, Spec: teamspace.Spec{Pods: 1}, Status: teamspace.Status{ObservedGeneration: 1}},
			quota("1", "1"), true, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.ts.Name, tt.ts.UID = "x", "uid-x"
			quotas := map[string]*corev1.ResourceQuota{}
			if tt.quota != nil {
				quotas["team-x"] = tt.quota
			}
			ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-x", OwnerReferences: []metav1.OwnerReference{tt.ts.OwnerReference()}}}
			r := row(&tt.ts, map[string]*corev1.Namespace{"team-x": ns}, quotas)
			if r.InSync != tt.inSync || r.Drift != tt.drift || r.Deleting != tt.del {
				t.Errorf("in_sync, drift, deleting: got %t %t %t, want %t %t %t", r.InSync, r.Drift, r.Deleting, tt.inSync, tt.drift, tt.del)
			}
			if r.Finalizers == nil {
				t.Errorf("finalizers: got nil, want [] (stable JSON)")
			}
		})
	}
}

func TestWriteText(t *testing.T) {
	s := &Snapshot{CRDInstalled: true, Service: service.Status{Manager: "process", Installed: true},
		TeamSpaces: []Row{{Name: "alpha", Pods: 8, CPU: "1", Namespace: "team-alpha", NamespaceExists: true, Generation: 3, ObservedGeneration: 2,
			QuotaPods: "6", QuotaCPU: "1", Drift: true, Finalizers: []string{teamspace.Finalizer}}}}
	var b bytes.Buffer
	WriteText(ui.New(&b, true), s)
	for _, want := range []string{"not running: `cnpa service start`", "behind 1", "drift", "cleanup"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}

// TestWriteTextFits80Columns: the narrow table fits a terminal of 80
// columns even with a 50-character name and foreign finalizers, and -o wide
// still shows the whole name.
func TestWriteTextFits80Columns(t *testing.T) {
	long := strings.Repeat("n", 50)
	s := &Snapshot{CRDInstalled: true, Service: service.Status{Manager: "systemd", Installed: true, Active: true, MainPID: 4242},
		TeamSpaces: []Row{
			{Name: long, Pods: 50, CPU: "1500m", Namespace: "team-" + long, NamespaceExists: true, Generation: 12, ObservedGeneration: 3,
				QuotaPods: "50", QuotaCPU: "1500m", Drift: true, Deleting: true,
				Finalizers: []string{"example.com/keep", teamspace.Finalizer, "other.example.com/hold"}},
			{Name: "alpha", Pods: 8, CPU: "1", Namespace: "team-alpha", NamespaceExists: true, Generation: 3, ObservedGeneration: 3, InSync: true,
				QuotaPods: "8", QuotaCPU: "1", Finalizers: []string{teamspace.Finalizer}},
			{Name: "new", Pods: 1, CPU: "1", Namespace: "team-new", Generation: 1, Finalizers: []string{}},
		}}
	var b bytes.Buffer
	WriteText(ui.New(&b, true), s)
	for _, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		if n := len([]rune(line)); n > 80 {
			t.Errorf("line of %d columns, want ≤ 80: %q", n, line)
		}
	}
	for _, want := range []string{strings.Repeat("n", 19) + "…", "deleting", "cleanup,+2", "50/1500m", "no ns", "in sync"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("narrow table lacks %q:\n%s", want, b.String())
		}
	}
	var w bytes.Buffer
	WriteWide(ui.New(&w, true), s)
	if !strings.Contains(w.String(), long+" ") || !strings.Contains(w.String(), "other.example.com/hold") {
		t.Errorf("wide table lacks the whole name or a finalizer:\n%s", w.String())
	}
}

package kit

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/labhub/cnpa/internal/testcluster"
)

// Pool keeps control planes across the cases of a test package that each
// run the lab from step 1: booting one is a good part of a case's CPU, and
// every case runs the same lab on it. A case that ends gives its cluster
// back (GiveBack) after `cnpa reset --yes --purge` has put it back to
// before step 1, and after the pool has seen that nothing of the lab is
// left on it: every object the cluster holds now, by kind, namespace and
// name, was there when it booted. The next case takes it (Take), so every
// case still starts on a cluster with nothing of the lab on it, and every
// case also tests reset on what it left.
//
// What reset may leave by its own rules (a namespace a learner made
// without an ownerReference is not the lab's to delete) is deleted by the
// pool when it is only namespaces; anything else retires the cluster: it
// is stopped, and the next case boots one. Where reset must leave nothing
// (a valid controller's lab), anything left fails the case, named.
//
// The zero value is empty. Drain it when the package's tests are done
// (RunWithCnpa's after).
type Pool struct {
	mu   sync.Mutex
	idle []*Pooled
}

// Pooled is a control plane and what it held when it booted.
type Pooled struct {
	Cluster *testcluster.Cluster
	// clean is every object of the fresh cluster (ObjectSet).
	clean map[string]bool
	// cases counts the cases it has run, for the logs.
	cases int
	// Mark is the caller's to set: what Take's accept may refuse a
	// cluster for (it ran a case whose cluster must not be another's).
	Mark string
}

// Take is an idle clean control plane that accept (nil: any) accepts, or a
// new one.
func (p *Pool) Take(ctx context.Context, t testing.TB, accept func(*Pooled) bool) *Pooled {
	t.Helper()
	p.mu.Lock()
	for i := len(p.idle) - 1; i >= 0; i-- {
		c := p.idle[i]
		if accept != nil && !accept(c) {
			continue
		}
		p.idle = slices.Delete(p.idle, i, i+1)
		p.mu.Unlock()
		t.Logf("control plane reused (case %d on it, reset to clean after the last)", c.cases+1)
		return c
	}
	p.mu.Unlock()
	start := time.Now()
	cluster, err := testcluster.Start(ctx, testcluster.Options{})
	if err != nil {
		t.Fatalf("start control plane: %v", err)
	}
	clean, err := ObjectSet(ctx, cluster.Kubeconfig)
	if err != nil {
		cluster.Stop()
		t.Fatalf("list the fresh control plane's objects: %v", err)
	}
	t.Logf("control plane up in %s", time.Since(start).Round(time.Millisecond))
	return &Pooled{Cluster: cluster, clean: clean}
}

// GiveBack resets c with reset (the case's `cnpa reset --yes --purge`)
// and keeps it for the next case when nothing of the lab is left; else it
// stops it. mustBeClean: anything left fails t (a lab that reset removes
// whole). Call it after the case's service has stopped.
func (p *Pool) GiveBack(t testing.TB, c *Pooled, reset func(context.Context) error, mustBeClean bool) {
	t.Helper()
	c.cases++
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var left []string
	err := reset(ctx)
	if err == nil {
		err = c.deleteEvents(ctx)
	}
	if err == nil {
		left, err = c.leftovers(ctx)
	}
	if err == nil && len(left) > 0 && !mustBeClean {
		// A mistake's namespaces that reset by its rules does not delete:
		// the pool deletes them, and looks again.
		if ns := strayNamespaces(left); len(ns) > 0 {
			t.Logf("reset leaves what is not the lab's by its rules (%s): deleting the namespaces %v", strings.Join(left, ", "), ns)
			if err = c.deleteNamespaces(ctx, ns); err == nil {
				left, err = c.leftovers(ctx)
			}
		}
	}
	switch {
	case err != nil && mustBeClean:
		t.Errorf("after the case, cnpa reset --yes --purge: %v", err)
	case len(left) > 0 && mustBeClean:
		t.Errorf("after a valid controller's lab and cnpa reset --yes --purge, the cluster still holds: %s", strings.Join(left, ", "))
	case err != nil:
		t.Logf("control plane retired, not reused: %v", err)
	case len(left) > 0:
		t.Logf("control plane retired, not reused: it still holds %s", strings.Join(left, ", "))
	default:
		p.mu.Lock()
		p.idle = append(p.idle, c)
		p.mu.Unlock()
		return
	}
	c.Cluster.Stop()
}

// Drain stops the idle control planes, when the package's tests are done.
func (p *Pool) Drain() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.idle {
		c.Cluster.Stop()
	}
	p.idle = nil
}

// leftovers are the objects the cluster holds now that it did not hold
// when it booted.
func (c *Pooled) leftovers(ctx context.Context) ([]string, error) {
	now, err := ObjectSet(ctx, c.Cluster.Kubeconfig)
	if err != nil {
		return nil, err
	}
	var out []string
	for k := range now {
		if !c.clean[k] {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out, nil
}

// strayNamespaces are the namespaces that hold every leftover (or are
// one), or none when some leftover is elsewhere.
func strayNamespaces(left []string) []string {
	var ns []string
	for _, k := range left {
		if name, ok := strings.CutPrefix(k, "namespaces "); ok {
			ns = append(ns, name)
		}
	}
	for _, k := range left {
		_, key, _ := strings.Cut(k, " ")
		if n, _, namespaced := strings.Cut(key, "/"); !strings.HasPrefix(k, "namespaces ") && (!namespaced || !slices.Contains(ns, n)) {
			return nil
		}
	}
	return ns
}

// deleteEvents deletes every Event: they are history, not state (ObjectSet
// leaves them out), and a fresh cluster holds none of the last case's,
// about TeamSpaces of the same names (step 5 watches alpha's).
func (c *Pooled) deleteEvents(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, c.Cluster.Kubectl(), "--kubeconfig", c.Cluster.Kubeconfig,
		"delete", "events", "--all", "--all-namespaces", "--wait").CombinedOutput()
	if err != nil {
		return fmt.Errorf("kubectl delete events --all --all-namespaces: %v\n%s", err, out)
	}
	return nil
}

// deleteNamespaces deletes the namespaces and waits until they are gone.
func (c *Pooled) deleteNamespaces(ctx context.Context, ns []string) error {
	args := append([]string{"--kubeconfig", c.Cluster.Kubeconfig, "delete", "namespace", "--wait", "--timeout", "2m"}, ns...)
	if out, err := exec.CommandContext(ctx, c.Cluster.Kubectl(), args...).CombinedOutput(); err != nil {
		return fmt.Errorf("kubectl delete namespace %v: %v\n%s", ns, err, out)
	}
	return nil
}

// notState are kinds whose objects are not compared: Events (history,
// which GiveBack deletes) and what holds nothing.
var notState = map[string]bool{
	"events":               true,
	"events.events.k8s.io": true,
	"componentstatuses":    true,
}

// ObjectSet lists every object the cluster holds, as
// "resource.group namespace/name", through discovery and the dynamic
// client, with no client-side rate limit (a few dozen lists).
func ObjectSet(ctx context.Context, kubeconfig string) (map[string]bool, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, err
	}
	cfg.QPS = -1
	cfg.WarningHandler = rest.NoWarnings{} // v1 Endpoints is deprecated: listed all the same
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	lists, err := dc.ServerPreferredResources()
	if err != nil {
		return nil, fmt.Errorf("discovery: %w", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, list := range lists {
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			return nil, err
		}
		for _, r := range list.APIResources {
			kind := r.Name
			if gv.Group != "" {
				kind += "." + gv.Group
			}
			if strings.Contains(r.Name, "/") || !slices.Contains(r.Verbs, "list") || notState[kind] {
				continue
			}
			items, err := dyn.Resource(gv.WithResource(r.Name)).List(ctx, metav1.ListOptions{})
			if err != nil {
				return nil, fmt.Errorf("list %s: %w", kind, err)
			}
			for _, it := range items.Items {
				set[kind+" "+filepath.Join(it.GetNamespace(), it.GetName())] = true
			}
		}
	}
	return set, nil
}

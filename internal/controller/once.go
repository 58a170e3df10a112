package controller

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/dynamic/dynamiclister"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/labhub/cnpa/internal/teamspace"
)

// Failure is one TeamSpace that did not converge in a pass.
type Failure struct {
	Name string
	Err  error
}

func (f Failure) Error() string { return fmt.Sprintf("teamspace %s: %v", f.Name, f.Err) }

// Once makes one full pass over every TeamSpace and returns the ones that
// did not converge. It reads the cluster with three LIST requests and then
// runs the very same sync as the running controller, against listers built
// from those lists, so a pass where nothing differs writes nothing.
func (c *Controller) Once(ctx context.Context) ([]Failure, error) {
	tsList, err := c.dyn.Resource(teamspace.GVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list teamspaces: %w", err)
	}
	owned := metav1.ListOptions{LabelSelector: teamspace.OwnerLabel}
	nsList, err := c.kube.CoreV1().Namespaces().List(ctx, owned)
	if err != nil {
		return nil, fmt.Errorf("list namespaces: %w", err)
	}
	qList, err := c.kube.CoreV1().ResourceQuotas(metav1.NamespaceAll).List(ctx, owned)
	if err != nil {
		return nil, fmt.Errorf("list resourcequotas: %w", err)
	}
	tsIdx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for i := range tsList.Items {
		tsIdx.Add(&tsList.Items[i])
	}
	nsIdx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for i := range nsList.Items {
		nsIdx.Add(&nsList.Items[i])
	}
	qIdx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for i := range qList.Items {
		qIdx.Add(&qList.Items[i])
	}
	c.teamSpaces = dynamiclister.NewRuntimeObjectShim(dynamiclister.New(tsIdx, teamspace.GVR))
	c.namespaces = corelisters.NewNamespaceLister(nsIdx)
	c.quotas = corelisters.NewResourceQuotaLister(qIdx)
	// Events are written synchronously: the process exits right after.
	c.recorder = &syncRecorder{kube: c.kube, ctx: ctx}

	var failures []Failure
	for i := range tsList.Items {
		name := tsList.Items[i].GetName()
		if err := c.sync(ctx, name); err != nil {
			failures = append(failures, Failure{Name: name, Err: err})
		}
	}
	return failures, nil
}

func labelsEverything() labels.Selector { return labels.Everything() }

package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/labhub/cnpa/internal/teamspace"
)

// observer times every contender the same way, from outside: it watches
// TeamSpaces, namespaces and the team-quota ResourceQuotas, keeps the few
// facts convergence depends on, and stamps each watch event with the time it
// arrived. A waiter is a predicate over those facts; it is evaluated after
// every event, and the arrival time of the event that first makes it true is
// the end of the measurement. Nothing is polled.
type observer struct {
	cancel context.CancelFunc

	mu      sync.Mutex
	ts      map[string]*teamspace.TeamSpace  // by TeamSpace name
	ns      map[string]*corev1.Namespace     // by name; present and not terminating
	quota   map[string]*corev1.ResourceQuota // by namespace; only objects named team-quota
	synced  map[string]bool                  // TeamSpace name → in sync (see inSync)
	groups  map[string]int                   // name prefix → TeamSpaces in sync
	waiters map[*waiter]struct{}
	last    time.Time // arrival of the last event
}

// quotaPods is hard.pods of a team-quota, or -1 when it has none.
func quotaPods(q *corev1.ResourceQuota) int64 {
	if p, ok := q.Spec.Hard[corev1.ResourcePods]; ok {
		return p.Value()
	}
	return -1
}

// waiter is one pending measurement.
type waiter struct {
	check func(o *observer) bool
	done  chan time.Time
}

func startObserver(ctx context.Context, kube kubernetes.Interface, dyn dynamic.Interface) (*observer, error) {
	ctx, cancel := context.WithCancel(ctx)
	o := &observer{
		cancel: cancel,
		ts:     map[string]*teamspace.TeamSpace{}, ns: map[string]*corev1.Namespace{}, quota: map[string]*corev1.ResourceQuota{},
		synced: map[string]bool{}, groups: map[string]int{}, waiters: map[*waiter]struct{}{},
	}
	dynFactory := dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
	tsInformer := dynFactory.ForResource(teamspace.GVR).Informer()
	kubeFactory := informers.NewSharedInformerFactory(kube, 0)
	nsInformer := kubeFactory.Core().V1().Namespaces().Informer()
	quotaFactory := informers.NewSharedInformerFactoryWithOptions(kube, 0, informers.WithTweakListOptions(func(lo *metav1.ListOptions) {
		lo.FieldSelector = fields.OneTermEqualSelector("metadata.name", teamspace.QuotaName).String()
	}))
	quotaInformer := quotaFactory.Core().V1().ResourceQuotas().Informer()
	for _, inf := range []cache.SharedIndexInformer{tsInformer, nsInformer, quotaInformer} {
		// managedFields are most of each object and never read here.
		_ = inf.SetTransform(func(obj any) (any, error) {
			if a, err := meta.Accessor(obj); err == nil {
				a.SetManagedFields(nil)
			}
			return obj, nil
		})
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { o.event(time.Now(), obj, false) },
			UpdateFunc: func(_, obj any) { o.event(time.Now(), obj, false) },
			DeleteFunc: func(obj any) { o.event(time.Now(), obj, true) },
		}); err != nil {
			cancel()
			return nil, err
		}
	}
	dynFactory.Start(ctx.Done())
	kubeFactory.Start(ctx.Done())
	quotaFactory.Start(ctx.Done())
	syncCtx, syncCancel := context.WithTimeout(ctx, time.Minute)
	defer syncCancel()
	if !cache.WaitForCacheSync(syncCtx.Done(), tsInformer.HasSynced, nsInformer.HasSynced, quotaInformer.HasSynced) {
		cancel()
		return nil, errors.New("watches did not sync within 1m")
	}
	return o, nil
}

func (o *observer) stop() { o.cancel() }

// event folds one watch event into the facts and resolves the waiters it
// satisfies with its arrival time.
func (o *observer) event(at time.Time, obj any, deleted bool) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj, deleted = d.Obj, true
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.last = at
	var affected string
	switch x := obj.(type) {
	case *unstructured.Unstructured:
		affected = x.GetName()
		if deleted {
			delete(o.ts, affected)
			break
		}
		t, err := teamspace.FromUnstructured(x)
		if err != nil {
			delete(o.ts, affected) // not a TeamSpace any contender can serve
			break
		}
		o.ts[affected] = t
	case *corev1.Namespace:
		affected = strings.TrimPrefix(x.Name, teamspace.NamespacePrefix)
		if deleted || x.DeletionTimestamp != nil {
			delete(o.ns, x.Name)
		} else {
			o.ns[x.Name] = x
		}
	case *corev1.ResourceQuota:
		affected = strings.TrimPrefix(x.Namespace, teamspace.NamespacePrefix)
		if deleted {
			delete(o.quota, x.Namespace)
			break
		}
		o.quota[x.Namespace] = x
	default:
		return
	}
	if now := o.inSync(affected); now != o.synced[affected] {
		if now {
			o.synced[affected] = true
			o.groups[group(affected)]++
		} else {
			delete(o.synced, affected)
			o.groups[group(affected)]--
		}
	}
	for w := range o.waiters {
		if w.check(o) {
			w.done <- at
			delete(o.waiters, w)
		}
	}
}

// inSync is convergence as the lab defines it (teamspace.FindGaps, the
// gaps LAB.md requires): the namespace labelled and owned, its team-quota
// holding the spec, and status caught up with metadata.generation. The
// finalizer is left out: each contender adds it at its own moment, and the
// harness times namespace, quota and status. Caller holds mu.
func (o *observer) inSync(name string) bool {
	t, ok := o.ts[name]
	if !ok || t.DeletionTimestamp != nil || t.Generation == 0 {
		return false
	}
	ns := teamspace.NamespaceName(name)
	nsObj, quota := o.ns[ns], o.quota[ns]
	if nsObj == nil {
		quota = nil // a quota outlives its namespace only while both go
	}
	gaps, err := teamspace.FindGaps(t, nsObj, quota, false)
	return err == nil && len(gaps.Lab()) == 0
}

// group is the part of a TeamSpace name before its last '-': the harness
// names every batch <group>-<i>.
func group(name string) string {
	if i := strings.LastIndexByte(name, '-'); i > 0 {
		return name[:i]
	}
	return name
}

// expect registers check before the action it measures, so that no event
// can slip between the action and the registration. check runs under the
// observer's lock, once now and once after every event.
func (o *observer) expect(check func(o *observer) bool) *waiter {
	w := &waiter{check: check, done: make(chan time.Time, 1)}
	o.mu.Lock()
	defer o.mu.Unlock()
	if check(o) {
		w.done <- time.Now()
		return w
	}
	o.waiters[w] = struct{}{}
	return w
}

// wait returns the arrival time of the event that satisfied w. On timeout,
// or when the contender exits, it says what was observed last (describe).
func (o *observer) wait(ctx context.Context, w *waiter, timeout time.Duration, exited <-chan struct{}, describe func() string) (time.Time, error) {
	t := time.NewTimer(timeout)
	defer t.Stop()
	var err error
	select {
	case at := <-w.done:
		return at, nil
	case <-ctx.Done():
		err = ctx.Err()
	case <-t.C:
		err = fmt.Errorf("timed out after %s", timeout)
	case <-exited:
		err = errors.New("the contender exited")
	}
	o.mu.Lock()
	delete(o.waiters, w)
	o.mu.Unlock()
	select {
	case at := <-w.done: // it was satisfied as we gave up
		return at, nil
	default:
	}
	return time.Time{}, fmt.Errorf("%w; last observed: %s", err, describe())
}

// drop forgets a waiter whose action failed.
func (o *observer) drop(w *waiter) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.waiters, w)
}

// count is how many TeamSpaces exist.
func (o *observer) count() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.ts)
}

// quotaUID is the uid of team-<name>/team-quota as last observed.
func (o *observer) quotaUID(name string) types.UID {
	o.mu.Lock()
	defer o.mu.Unlock()
	if q := o.quota[teamspace.NamespaceName(name)]; q != nil {
		return q.UID
	}
	return ""
}

// describe says what the observer last saw of one TeamSpace.
func (o *observer) describe(name string) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	ns := teamspace.NamespaceName(name)
	var b strings.Builder
	if t, ok := o.ts[name]; ok {
		fmt.Fprintf(&b, "teamspace %s generation=%d observedGeneration=%d status.namespace=%q pods=%d deleting=%v",
			name, t.Generation, t.Status.ObservedGeneration, t.Status.Namespace, t.Spec.Pods, t.DeletionTimestamp != nil)
	} else {
		fmt.Fprintf(&b, "teamspace %s absent", name)
	}
	fmt.Fprintf(&b, ", namespace %s present=%v", ns, o.ns[ns] != nil)
	if q, ok := o.quota[ns]; ok {
		fmt.Fprintf(&b, ", quota uid=%s pods=%d", q.UID, quotaPods(q))
	} else {
		b.WriteString(", quota absent")
	}
	return b.String()
}

// describeGroup says how many of a batch are in sync and what one straggler looks like.
func (o *observer) describeGroup(g string, n int) string {
	o.mu.Lock()
	count := o.groups[g]
	straggler := ""
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("%s-%d", g, i)
		if !o.synced[name] {
			straggler = name
			break
		}
	}
	o.mu.Unlock()
	s := fmt.Sprintf("%d of %d %s-* in sync", count, n, g)
	if straggler != "" {
		s += "; first straggler: " + o.describe(straggler)
	}
	return s
}

// lastEvent is the arrival time of the last watch event.
func (o *observer) lastEvent() time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.last
}

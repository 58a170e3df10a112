package controller

import (
	"context"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
)

// resyncShare is the most of the controller's time the periodic pass may
// take: after each TeamSpace it pauses nine times as long as that one
// took. At lab sizes a pass is milliseconds and this changes nothing; at
// 20,000 TeamSpaces it keeps the pass from taking a core away from
// kube-apiserver, which serves the events that matter, on a 2-core VM.
const resyncShare = 0.1

// idleRecheck bounds a wait for the idle token, in case one was taken by
// an earlier wait that then found the queue busy again.
const idleRecheck = 100 * time.Millisecond

// resyncLoop is the level-triggered safety net: every Interval after the
// previous pass ended, every TeamSpace in the cache is looked at again,
// whatever events were or were not seen.
//
// The pass never delays an event. It used to add every name to the
// workqueue at once, the same FIFO the watch events use: at 10,000
// TeamSpaces a new one waited behind up to 10,000 no-op syncs, and once
// a pass took its whole period (between 5,000 and 10,000 on 2 cores) it
// always did (issue 27). Now the pass hands the queue one name at a time,
// and only when the queue is empty and no worker is busy; an event that
// arrives meanwhile finds at most that one name ahead of it, and free
// workers beside it. And it hands over only the names whose cached
// objects changed since a sync last found them in order: in a steady
// state, none, so the pass allocates next to nothing and no longer keeps
// the garbage collector marking the whole cache, on one of the two cores,
// while events are served.
func (c *Controller) resyncLoop(ctx context.Context) {
	t := time.NewTimer(c.cfg.Interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		start := time.Now()
		if n, synced, ok := c.resyncPass(ctx); ok {
			c.metrics.pass.Set(time.Since(start).Seconds())
			c.metrics.passSynced.Set(float64(synced))
			c.metrics.passes.Inc()
			c.log.Debug("periodic pass done", "teamspaces", n, "synced", synced, "took", time.Since(start).String())
		}
		t.Reset(c.cfg.Interval)
	}
}

// resyncPass looks at every cached TeamSpace and hands the name of each
// that may need work to the workqueue, one at a time, each once the event
// path is idle, and spreads itself out to resyncShare of the time. A
// TeamSpace whose last sync found nothing to do, and whose three cached
// objects are still the ones that sync read, is left out (inorder.go).
// It returns how many TeamSpaces it looked at and how many of them it
// handed over, and false when ctx ended first or the cache could not be
// listed.
func (c *Controller) resyncPass(ctx context.Context) (int, int, bool) {
	objs, err := c.teamSpaces.List(labelsEverything())
	if err != nil {
		utilruntime.HandleError(err)
		return 0, 0, false
	}
	synced := 0
	// Stopped until the first name is done (since Go 1.23 a Reset timer
	// never delivers a stale tick).
	pause := time.NewTimer(time.Hour)
	pause.Stop()
	defer pause.Stop()
	for _, o := range objs {
		u := o.(*unstructured.Unstructured)
		if in, ok := c.cachedInputs(u); ok && c.inOrder.still(u.GetName(), in) {
			// Its last sync found nothing to do, from these very objects.
			continue
		}
		if !c.waitIdle(ctx) {
			return 0, 0, false
		}
		start := time.Now()
		c.queue.Add(u.GetName())
		synced++
		if !c.waitIdle(ctx) {
			return 0, 0, false
		}
		// The time includes events served meanwhile: a busy event path
		// slows the pass further, up to one Interval between two names.
		pause.Reset(min(time.Duration(float64(time.Since(start))*(1/resyncShare-1)), c.cfg.Interval))
		select {
		case <-ctx.Done():
			return 0, 0, false
		case <-pause.C:
		}
	}
	return len(objs), synced, true
}

// waitIdle waits until the workqueue is empty and no worker is syncing;
// false when ctx ended first.
func (c *Controller) waitIdle(ctx context.Context) bool {
	recheck := time.NewTimer(idleRecheck)
	defer recheck.Stop()
	for c.queue.Len() > 0 || c.inflight.Load() > 0 {
		select {
		case <-ctx.Done():
			return false
		case <-c.idle:
		case <-recheck.C:
			recheck.Reset(idleRecheck)
		}
	}
	return ctx.Err() == nil
}

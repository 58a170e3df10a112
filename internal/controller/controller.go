// Package controller is the TeamSpace controller: a level-triggered
// reconcile loop in the shape of kubernetes/sample-controller. Informers on
// TeamSpaces and on the namespaces and quotas carrying our label feed a
// rate-limited workqueue of TeamSpace names; a periodic full pass looks at
// every name again, so missed events and a stopped controller still
// converge (resync.go: the pass never delays an event).
package controller

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/client-go/util/workqueue"

	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/teamspace"
)

// DefaultWorkers is how many TeamSpaces are reconciled in parallel unless
// told otherwise. A sync spends nearly all its time waiting on the API
// server, so workers are cheap; 8 keeps up with 8 concurrent creators
// (make bench's bulk scenario measures it).
const DefaultWorkers = 8

// Config is everything the controller needs besides the cluster.
type Config struct {
	// ArchiveDir receives <name>.json for every TeamSpace finalized.
	ArchiveDir string
	// Finalizer adds platform.labhub.io/cleanup to live TeamSpaces. Off, it
	// is never added, but one already present is still honoured on deletion.
	Finalizer bool
	// Interval is the pause between two periodic full passes (resync.go).
	Interval time.Duration
	// Workers is the number of TeamSpaces reconciled in parallel.
	Workers int
	// Logger receives structured logs; nil means slog.Default().
	Logger *slog.Logger
	// Deaf, for tests of the periodic pass: while it is true for a
	// resource ("teamspaces", "namespaces", "resourcequotas"), that
	// informer still keeps its cache, but its events queue nothing, as if
	// they had been lost on the way; only the periodic pass then acts on
	// what changed. nil: never.
	Deaf func(resource string) bool
}

// Controller reconciles TeamSpaces.
type Controller struct {
	cfg  Config
	rest *rest.Config
	kube kube.Typed
	dyn  dynamic.Interface
	log  *slog.Logger

	teamSpaces cache.GenericLister
	namespaces corelisters.NamespaceLister
	quotas     corelisters.ResourceQuotaLister
	synced     []cache.InformerSynced

	queue    workqueue.TypedRateLimitingInterface[string]
	recorder record.EventRecorder
	metrics  *metrics

	// written holds this controller's writes its informers have not
	// delivered yet (nil in Once, which has no informers).
	written *written
	// released holds the TeamSpaces this controller released
	// (released.go; nil in Once).
	released *released

	// inOrder remembers the TeamSpaces whose last sync found nothing to
	// do, and from which cached objects (inorder.go).
	inOrder inOrder

	// warned remembers warnings already given for one generation of a
	// TeamSpace, so a bad spec is reported once, not on every resync.
	warned sync.Map

	// leading, when set (RunLeaderElected), tells whether the lease is
	// still ours to act on; nil means no leader election.
	leading func() bool

	dynFactory dynamicinformer.DynamicSharedInformerFactory
	// owned are the namespace and quota informers; see ownedInformer.
	owned   []cache.SharedIndexInformer
	ownedWG sync.WaitGroup
	ready   chan struct{}

	// inflight counts the names workers are syncing; idle gets a token
	// whenever a worker finishes and leaves the queue empty. The periodic
	// pass waits on both (resync.go).
	inflight atomic.Int64
	idle     chan struct{}
}

// New builds a controller on rc. Nothing runs until Run or Once.
func New(rc *rest.Config, cfg Config) (*Controller, error) {
	if cfg.Interval <= 0 {
		cfg.Interval = 3 * time.Second
	}
	if cfg.Workers <= 0 {
		cfg.Workers = DefaultWorkers
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.ArchiveDir == "" {
		return nil, errors.New("archive dir is empty: pass --archive-dir")
	}
	rc = controllerConfig(rc)
	// Not kubernetes.NewForConfig: see kube.NewTyped.
	typed, err := kube.NewTyped(protobuf(rc))
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(rc)
	if err != nil {
		return nil, err
	}
	return &Controller{cfg: cfg, rest: rc, kube: typed, dyn: dyn, log: cfg.Logger, metrics: newMetrics(),
		ready: make(chan struct{}), idle: make(chan struct{}, 1)}, nil
}

// controllerConfig is rc as the controller's clients use it:
//   - Without client-go's client-side token bucket. The workqueue already
//     bounds the requests in flight (one per worker), and the API server's
//     priority and fairness protects it; a bucket on top only makes a bulk
//     of new TeamSpaces wait on the client.
//     controller-runtime turns the bucket off by default too.
//   - Without gzip. kube-apiserver 1.37 compresses a watch that starts as
//     a WatchList (client-go's informers do) for as long as it lasts, when
//     the client accepts gzip, which Go's transport does by default
//     (WatchListCompression, k8s.io/apiserver/pkg/endpoints/handlers/
//     watch.go): every event is then compressed and flushed there and
//     inflated here. The controller runs next to the API server (k3s on
//     the same VM), where that costs both sides CPU and saves nothing;
//     kube-controller-manager and kube-scheduler turn it off for the same
//     reason.
func controllerConfig(rc *rest.Config) *rest.Config {
	rc = rest.CopyConfig(rc)
	rc.QPS, rc.Burst, rc.RateLimiter = -1, 0, nil
	rc.DisableCompression = true
	return rc
}

// protobuf is rc for built-in types, which kube-apiserver also serves as
// protobuf: cheaper to encode on the server and to decode here than JSON,
// for the namespace and quota watches above all. TeamSpaces (a CRD) are
// JSON only and keep rc.
func protobuf(rc *rest.Config) *rest.Config {
	rc = rest.CopyConfig(rc)
	rc.ContentType = runtime.ContentTypeProtobuf
	rc.AcceptContentTypes = runtime.ContentTypeProtobuf + "," + runtime.ContentTypeJSON
	return rc
}

// trimForCache drops what the controller never reads from cached
// objects; managedFields are most of a small object's size. Annotations
// go as well: a TeamSpace made with `kubectl apply` carries itself again
// in last-applied-configuration, and nothing here reads annotations. (No
// write is an update from the cache, only patches and creates, so nothing
// dropped here is ever dropped on the server.) A quota's status (hard and
// used, kept by kube-controller-manager) goes too: sync compares
// spec.hard only, and status was a quarter of the cache at 500
// TeamSpaces.
func trimForCache(obj any) (any, error) {
	if a, err := meta.Accessor(obj); err == nil {
		a.SetManagedFields(nil)
		a.SetAnnotations(nil)
	}
	if q, ok := obj.(*corev1.ResourceQuota); ok {
		q.Status = corev1.ResourceQuotaStatus{}
	}
	return obj, nil
}

// setupInformers wires the three informers and the listers sync reads.
// Their clients wait out API server outages (apiWait) instead of falling
// into the reflectors' own backoff.
func (c *Controller) setupInformers(ctx context.Context) error {
	rc, err := withAPIWait(ctx, c.rest, c.log, c.apiBack)
	if err != nil {
		return err
	}
	typed, err := kube.NewTyped(protobuf(rc))
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(rc)
	if err != nil {
		return err
	}
	// Informers never resync by themselves: the ticker in Run re-enqueues
	// names from the cache, which costs no API request.
	c.dynFactory = dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0)
	tsInformer := c.dynFactory.ForResource(teamspace.GVR)
	tsInformer.Informer().SetTransform(trimForCache)
	c.teamSpaces = tsInformer.Lister()

	core := typed.CoreV1()
	nsInformer := ownedInformer(core, &corev1.Namespace{}, core.Namespaces().List, core.Namespaces().Watch)
	quotas := core.ResourceQuotas(metav1.NamespaceAll)
	quotaInformer := ownedInformer(core, &corev1.ResourceQuota{}, quotas.List, quotas.Watch)
	c.owned = []cache.SharedIndexInformer{nsInformer, quotaInformer}
	c.namespaces = corelisters.NewNamespaceLister(nsInformer.GetIndexer())
	c.quotas = corelisters.NewResourceQuotaLister(quotaInformer.GetIndexer())

	// Each handler first tells c.written what the cache now holds (rv ""
	// for a deletion), then queues the TeamSpace concerned.
	handler := func(resource string, memoKeys func(metav1.Object) []string, teamSpace func(metav1.Object) string) cache.ResourceEventHandler {
		on := func(obj any, deleted bool) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj, deleted = d.Obj, true
			}
			a, err := meta.Accessor(obj)
			if err != nil {
				return
			}
			rv := a.GetResourceVersion()
			if deleted {
				rv = ""
			}
			for _, k := range memoKeys(a) {
				c.written.seen(k, rv)
			}
			if c.cfg.Deaf != nil && c.cfg.Deaf(resource) {
				return
			}
			if name := teamSpace(a); name != "" {
				c.queue.Add(name)
			}
		}
		return cache.ResourceEventHandlerFuncs{
			AddFunc:    func(obj any) { on(obj, false) },
			UpdateFunc: func(_, obj any) { on(obj, false) },
			DeleteFunc: func(obj any) { on(obj, true) },
		}
	}
	ownerLabel := func(a metav1.Object) string { return a.GetLabels()[teamspace.OwnerLabel] }
	tsInformer.Informer().AddEventHandler(handler("teamspaces",
		func(a metav1.Object) []string {
			return []string{writtenFinalizer + a.GetName(), writtenStatus + a.GetName()}
		},
		func(a metav1.Object) string { return a.GetName() }))
	nsInformer.AddEventHandler(handler("namespaces",
		func(a metav1.Object) []string { return []string{writtenNamespace + a.GetName()} }, ownerLabel))
	quotaInformer.AddEventHandler(handler("resourcequotas",
		func(a metav1.Object) []string { return []string{writtenQuota + a.GetNamespace() + "/" + a.GetName()} }, ownerLabel))
	c.synced = []cache.InformerSynced{tsInformer.Informer().HasSynced, nsInformer.HasSynced, quotaInformer.HasSynced}
	return nil
}

// ownedInformer is a shared informer on one core/v1 resource, limited to
// objects carrying the owner label, with managedFields stripped. It is
// what informers.NewSharedInformerFactoryWithOptions(...).Core().V1()
// builds, on the core client alone: client-go's informer factory would make
// every API group's informers, listers and typed clients reachable, and the
// linker keeps them all in cnpa (see kube.NewTyped).
func ownedInformer[L runtime.Object](client any, obj runtime.Object,
	list func(context.Context, metav1.ListOptions) (L, error),
	watchFn func(context.Context, metav1.ListOptions) (watch.Interface, error)) cache.SharedIndexInformer {
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.LabelSelector = teamspace.OwnerLabel
			return list(ctx, o)
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.LabelSelector = teamspace.OwnerLabel
			return watchFn(ctx, o)
		},
	}
	inf := cache.NewSharedIndexInformer(cache.ToListWatcherWithWatchListSemantics(lw, client), obj, 0,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	inf.SetTransform(trimForCache)
	return inf
}

// apiBack runs when the API server answers again after an outage. Syncs
// that failed meanwhile sit in the workqueue's per-TeamSpace backoff, which
// has grown with every failure; start them all over now instead. The
// informers deliver what changed during the outage as their watches resume.
func (c *Controller) apiBack(time.Duration) {
	objs, err := c.teamSpaces.List(labelsEverything())
	if err != nil {
		utilruntime.HandleError(err)
		return
	}
	for _, o := range objs {
		name := o.(*unstructured.Unstructured).GetName()
		c.queue.Forget(name)
		c.queue.Add(name)
	}
}

// Run reconciles until ctx ends. Phases: start the event recorder and the
// informers, wait for their caches, start the workers and the periodic
// pass; on cancellation, stop taking new work and let in-flight syncs
// finish.
func (c *Controller) Run(ctx context.Context) error {
	c.queue = workqueue.NewTypedRateLimitingQueueWithConfig(
		workqueue.NewTypedMaxOfRateLimiter(
			// Per TeamSpace: 5 ms doubling to 30 s, so one failing object
			// backs off without delaying the others.
			workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 30*time.Second),
		),
		workqueue.TypedRateLimitingQueueConfig[string]{Name: "teamspaces", MetricsProvider: c.metrics.queue})
	c.metrics.queueDepth(c.queue.Len)
	c.written = newWritten()
	c.released = newReleased()
	broadcaster := record.NewBroadcaster(record.WithContext(ctx))
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: c.kube.CoreV1().Events("")})
	defer broadcaster.Shutdown()
	c.recorder = broadcaster.NewRecorder(scheme(), corev1.EventSource{Component: teamspace.EventSource})

	if err := c.setupInformers(ctx); err != nil {
		return err
	}
	c.dynFactory.Start(ctx.Done())
	for _, inf := range c.owned {
		c.ownedWG.Go(func() { inf.RunWithContext(ctx) })
	}
	defer c.queue.ShutDown()
	c.log.Info("waiting for caches")
	if !cache.WaitForCacheSync(ctx.Done(), c.synced...) {
		return fmt.Errorf("caches did not sync: %w", ctx.Err())
	}
	close(c.ready)
	c.log.Info("controller started", "workers", c.cfg.Workers, "interval", c.cfg.Interval.String(),
		"finalizer", c.cfg.Finalizer, "archiveDir", c.cfg.ArchiveDir)

	var wg sync.WaitGroup
	for i := 0; i < c.cfg.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c.processNextWorkItem(context.WithoutCancel(ctx)) {
			}
		}()
	}
	go c.resyncLoop(ctx)
	<-ctx.Done()
	c.log.Info("shutting down: finishing in-flight work")
	// ShutDownWithDrain waits for the items being processed, so a sync that
	// wrote an archive also gets to remove its finalizer.
	c.queue.ShutDownWithDrain()
	wg.Wait()
	c.dynFactory.Shutdown()
	c.ownedWG.Wait()
	c.log.Info("controller stopped")
	return nil
}

// Ready is closed once the caches have synced.
func (c *Controller) Ready() <-chan struct{} { return c.ready }

// SyncTimeout bounds one TeamSpace's sync, every request in it included
// (client-go's default is to wait forever, as kubectl's is).
var SyncTimeout = 10 * time.Second

func (c *Controller) processNextWorkItem(ctx context.Context) bool {
	name, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	c.inflight.Add(1)
	defer func() {
		c.queue.Done(name)
		// Done first: a name that came back while it was being synced is
		// in the queue again by now, and the pass must keep waiting.
		if c.inflight.Add(-1) == 0 && c.queue.Len() == 0 {
			select {
			case c.idle <- struct{}{}:
			default: // a token is already waiting
			}
		}
	}()
	if c.leading != nil && !c.leading() {
		// The lease may be another controller's by now; the elector is
		// about to find out. Leave the item: a new leader has its own
		// queue, and our resync brings it back if the lease is renewed.
		c.queue.Forget(name)
		return true
	}
	start := time.Now()
	// A sync has a deadline: an API server that takes a request and never
	// answers (cnpa stress's blackhole) would otherwise hold this name,
	// and a worker, for good; the deadline's error retries with backoff.
	sctx, cancel := context.WithTimeout(ctx, SyncTimeout)
	err := c.sync(sctx, name)
	cancel()
	c.metrics.observe(time.Since(start), err)
	switch {
	case err == nil:
		c.queue.Forget(name)
	case isSkip(err):
		// Needs a human; the resync looks again. Retrying with backoff
		// would only repeat the same answer.
		c.queue.Forget(name)
	case apierrors.IsConflict(err):
		// Our cached copy was older than the server's (a precondition did
		// its job); retry from the fresher cache without alarming anyone.
		c.log.Debug("conflict, retrying", "teamspace", name, "err", err)
		c.queue.AddRateLimited(name)
	default:
		c.log.Error("reconcile failed, retrying with backoff", "teamspace", name, "err", err,
			"retries", c.queue.NumRequeues(name))
		c.queue.AddRateLimited(name)
	}
	return true
}

// scheme resolves the kind of the objects events are about; TeamSpaces are
// unstructured and carry their own apiVersion and kind.
func scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = corev1.AddToScheme(s)
	return s
}

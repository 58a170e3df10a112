package controller

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
)

// LeaderElection configures --leader-elect: a coordination.k8s.io Lease so
// that of several running controllers only one writes.
type LeaderElection struct {
	Namespace, Name, Identity                 string
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// ErrLostLease is returned by RunLeaderElected when the lease is lost; the
// process must exit (and be restarted by systemd) rather than go on writing
// beside the new leader.
var ErrLostLease = errors.New("lost the leader lease")

// RunLeaderElected runs c.Run only while holding the lease. Phases: wait to
// acquire the lease, run the controller, and when the lease is lost cancel
// it at once and return ErrLostLease.
func (c *Controller) RunLeaderElected(ctx context.Context, le LeaderElection) error {
	if le.Identity == "" {
		host, _ := os.Hostname()
		le.Identity = fmt.Sprintf("%s_%d", host, os.Getpid())
	}
	lock := &renewClock{Interface: &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: le.Namespace, Name: le.Name},
		Client:     c.kube.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: le.Identity},
	}}
	// The elector notices a lost lease only when a renewal fails, which can
	// be seconds after this process was frozen (SIGSTOP, a stalled VM) past
	// its lease while a standby took over. Until then no sync may write: a
	// stale cache would undo the new leader's work.
	c.leading = func() bool { return lock.since() < le.RenewDeadline }
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var runErr error
	lost := false
	leaderelection.RunOrDie(runCtx, leaderelection.LeaderElectionConfig{
		Lock:            lock,
		LeaseDuration:   le.LeaseDuration,
		RenewDeadline:   le.RenewDeadline,
		RetryPeriod:     le.RetryPeriod,
		ReleaseOnCancel: true,
		Name:            le.Name,
		Callbacks: leaderelection.LeaderCallbacks{
			OnStartedLeading: func(ctx context.Context) {
				c.log.Info("became leader", "lease", le.Namespace+"/"+le.Name, "identity", le.Identity)
				runErr = c.Run(ctx)
				cancel()
			},
			OnStoppedLeading: func() {
				if ctx.Err() == nil {
					lost = true
					cancel()
				}
			},
			OnNewLeader: func(id string) {
				if id != le.Identity {
					c.log.Info("another controller leads; standing by", "leader", id)
				}
			},
		},
	})
	if lost {
		return ErrLostLease
	}
	return runErr
}

// renewClock is a resourcelock.Interface that remembers when this process
// last wrote the lease as its holder: a renewal or an acquisition.
type renewClock struct {
	resourcelock.Interface
	mu   sync.Mutex
	last time.Time
}

func (r *renewClock) Create(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	return r.record(ler, func() error { return r.Interface.Create(ctx, ler) })
}

func (r *renewClock) Update(ctx context.Context, ler resourcelock.LeaderElectionRecord) error {
	return r.record(ler, func() error { return r.Interface.Update(ctx, ler) })
}

// record runs write and, when it made us the holder, notes the time it was
// sent: the lease holds at least that long, as the other candidates see it.
func (r *renewClock) record(ler resourcelock.LeaderElectionRecord, write func() error) error {
	sent := time.Now()
	err := write()
	if err == nil && ler.HolderIdentity == r.Identity() {
		r.mu.Lock()
		r.last = sent
		r.mu.Unlock()
	}
	return err
}

// since is the time since the last renewal (monotonic: it keeps running
// while the process is stopped).
func (r *renewClock) since() time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	return time.Since(r.last)
}

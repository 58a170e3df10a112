package controller

import (
	"context"
	"errors"
	"fmt"
	"os"
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
	lock := &resourcelock.LeaseLock{
		LeaseMeta:  metav1.ObjectMeta{Namespace: le.Namespace, Name: le.Name},
		Client:     c.kube.CoordinationV1(),
		LockConfig: resourcelock.ResourceLockConfig{Identity: le.Identity},
	}
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

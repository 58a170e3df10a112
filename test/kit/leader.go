package kit

import (
	"fmt"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/ui"
)

// The leader election timings of LeaderArgs: short, so that a takeover
// fits in a test.
const (
	LeaseDuration = 4 * time.Second
	RenewDeadline = 3 * time.Second
	RetryPeriod   = 500 * time.Millisecond
)

// LeaderArgs are --leader-elect with a short lease of its own name.
func LeaderArgs(lease string) []string {
	return []string{"--leader-elect", "--leader-elect-name", lease,
		"--leader-elect-lease-duration", LeaseDuration.String(),
		"--leader-elect-renew-deadline", RenewDeadline.String(),
		"--leader-elect-retry-period", RetryPeriod.String()}
}

// LeaseHolder checks that the Lease kube-system/<lease> is held by want
// ("" for nobody).
func (e *Env) LeaseHolder(lease, want string) func() error {
	return func() error {
		l, err := e.Kube.CoordinationV1().Leases("kube-system").Get(e.Ctx, lease, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity != want {
			holder := "<nobody>"
			if l.Spec.HolderIdentity != nil {
				holder = *l.Spec.HolderIdentity
			}
			return fmt.Errorf("lease %s held by %v, want %s", lease, holder, want)
		}
		return nil
	}
}

// StartLeaderPair starts two leader-elected controllers on one lease and
// archive dir, <prefix>-a and <prefix>-b, both with the admin kubeconfig.
// Phases: A starts and takes the lease; B starts and its log says it
// stands by.
func (e *Env) StartLeaderPair(prefix, lease, archiveDir string) (a, b *Ctrl) {
	e.T.Helper()
	return e.StartLeaderPairAs(prefix, lease, archiveDir, "", "")
}

// StartLeaderPairAs is StartLeaderPair with a kubeconfig for each ("" for
// the admin's): with a user of their own each (cluster.Options.Users),
// the audit log tells their requests apart.
func (e *Env) StartLeaderPairAs(prefix, lease, archiveDir, kubeconfigA, kubeconfigB string) (a, b *Ctrl) {
	e.T.Helper()
	a = e.StartController(prefix+"-a", CtrlOpts{Kubeconfig: kubeconfigA, ArchiveDir: archiveDir, Args: LeaderArgs(lease)})
	e.WaitFor("A holds the lease", time.Minute, e.LeaseHolder(lease, a.Identity()))
	b = e.StartController(prefix+"-b", CtrlOpts{Kubeconfig: kubeconfigB, ArchiveDir: archiveDir, Args: LeaderArgs(lease), NoWait: true})
	e.WaitFor("B stands by", time.Minute, func() error {
		if !strings.Contains(b.Log(), "standing by") {
			return fmt.Errorf("B's log does not say it stands by yet:\n%s", ui.Tail(b.Log(), 5))
		}
		return nil
	})
	return a, b
}

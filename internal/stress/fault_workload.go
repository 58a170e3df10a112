package stress

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/labhub/cnpa/internal/check"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/teamspace"
)

// workloadState is what a workload fault (poison, recreate:
// faults of what the cluster holds, not of the API server's answers)
// leaves for its judging: TeamSpaces no controller can converge, its own
// promise, and what to remove before the next fault. fault() resets it
// after each fault (workloadDone).
type workloadState struct {
	skip  map[string]bool                                 // left out of converged
	check func(ctx context.Context) []judge.StressFinding // the fault's own promise, once converged
	done  func(ctx context.Context)                       // removes what the fault made
}

// unjudged tells whether TeamSpace name is left out of converged.
func (w *workloadState) unjudged(name string) bool { return w.skip[name] }

// judge is the fault's own promise, if it has one.
func (w *workloadState) judge(ctx context.Context, _ *runner) []judge.StressFinding {
	if w.check == nil {
		return nil
	}
	return w.check(ctx)
}

// workloadDone removes what the fault made and forgets it.
func (r *runner) workloadDone(ctx context.Context) {
	if r.wl.done != nil {
		r.wl.done(ctx)
	}
	r.wl = workloadState{}
}

// poisonCPU is a spec.cpu that the lab text's CRD lets through (a
// string) and no quota takes: ResourceQuota refuses it (422, "quantities
// must match the regular expression"). cnpa's own CRD refuses it
// already, by a pattern; then the poison is a TeamSpace whose namespace
// is someone else's (poisonForeign).
const poisonCPU = "lots"

// poison is a TeamSpace that is valid for the CRD and that no controller
// can serve, named to come first in a list of TeamSpaces (a list is in
// name order): a pass that stops at its first error (`set -e`) never
// reaches the others. Meanwhile the workload of every fault (b1 edited,
// one TeamSpace made, the one before deleted). The poison is left out of
// converged, and judged by stable: its controller must not rewrite it on
// every pass. It is deleted once judged, with the namespace that made it
// impossible.
func (r *runner) poison(ctx context.Context) []deletion {
	name := check.TempPrefix + "0000" + randomHex(1)
	r.wl.skip = map[string]bool{name: true}
	foreign := ""
	if _, err := r.temps.Create(ctx, name, 2, poisonCPU, nil); apierrors.IsInvalid(err) {
		// The CRD refuses "lots": team-<name> made someone else's
		// first (as check's foreign-namespace probe makes it), so that
		// no quota can be made for it without taking that over.
		foreign = teamspace.NamespaceName(name)
		r.temps.RememberNamespace(foreign)
		_, _ = r.env.Clients.Kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
			Name: foreign, Labels: map[string]string{"owner": check.ForeignNamespaceOwner}}},
			metav1.CreateOptions{FieldManager: check.FieldManager})
		_, _ = r.temps.Create(ctx, name, 2, "", nil)
	}
	r.wl.done = func(ctx context.Context) {
		_ = r.temps.Discard(ctx, name)
		if foreign != "" {
			r.temps.DeleteNamespace(ctx, foreign)
		}
	}
	deleted := r.workload(ctx)
	sleep(ctx, r.opts.Hold)
	return deleted
}

// recreate deletes the TeamSpace the fault before made, waits until its
// controller released it, and makes one of the same name and spec at
// once: its namespace is still the old one's, being deleted (quotas in
// it are refused, 403), until the garbage collector is done. The new one
// must converge once the old namespace is gone, in a namespace its own
// uid owns. A controller that remembers by name what it did takes the new
// TeamSpace for the old one.
func (r *runner) recreate(ctx context.Context) []deletion {
	name := r.previous
	r.previous = ""
	d := r.delete(ctx, name)
	res := r.env.Clients.Dynamic.Resource(teamspace.GVR)
	gone := r.await(ctx, r.opts.Bound, func() bool {
		_, err := res.Get(ctx, name, metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	r.pods = r.pods%9 + 1
	r.editPods(ctx, r.b1, r.pods)
	if !gone {
		return []deletion{d} // converged says it is still there
	}
	ts, err := r.temps.Create(ctx, name, 1, "", nil)
	if err != nil {
		return []deletion{d}
	}
	r.previous = name // the next fault deletes the new one
	r.wl.check = func(ctx context.Context) []judge.StressFinding {
		ns, err := r.env.Clients.Kube.CoreV1().Namespaces().Get(ctx, teamspace.NamespaceName(name), metav1.GetOptions{})
		if err != nil {
			return nil // converged says it is missing
		}
		if teamspace.HasOwnerReference(ns.OwnerReferences, ts.UID) && !teamspace.HasOwnerReference(ns.OwnerReferences, types.UID(d.uid)) {
			return nil
		}
		var owners []string
		for _, o := range ns.OwnerReferences {
			owners = append(owners, string(o.UID))
		}
		return []judge.StressFinding{{Property: judge.StressOwner,
			Found:    tr("stress.found.owner", "Namespace", ns.Name, "Owners", fmt.Sprint(owners), "Old", d.uid),
			Expected: tr("stress.expected.owner", "Name", name, "UID", string(ts.UID))}}
	}
	sleep(ctx, r.opts.Hold/2)
	return []deletion{d}
}

// randomHex is n random bytes in hex.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// tr is i18n.T with its arguments as pairs.
func tr(id string, kv ...string) string {
	args := i18n.Args{}
	for i := 0; i+1 < len(kv); i += 2 {
		args[kv[i]] = kv[i+1]
	}
	return i18n.T(id, args)
}

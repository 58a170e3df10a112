package kit

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/labhub/cnpa/internal/teamspace"
)

// Converged checks that the cluster serves TeamSpace name as a test set it
// up: see CheckConverged.
func (e *Env) Converged(name string, pods int64, cpu string, finalizerOn bool) func() error {
	return func() error {
		ts, err := e.GetTeamSpace(name)
		if err != nil {
			return err
		}
		nsName := teamspace.NamespaceName(name)
		ns, err := orNil(e.getNamespace(nsName))
		if err != nil {
			return err
		}
		q, err := orNil(e.GetQuota(nsName))
		if err != nil {
			return err
		}
		return CheckConverged(ts, ns, q, pods, cpu, finalizerOn)
	}
}

// CheckConverged is the tests' "converged", on objects already read (ns
// and q nil when they do not exist): teamspace.FindGaps, the one definition,
// finds nothing, habits included (cnpa's engines keep them) and our
// finalizer as finalizerOn says; and on top of it, what only a test knows:
// the spec is what the test set (pods < 0: whatever it is, for tests that
// do not track each spec), and with finalizerOn false our finalizer is not
// there either.
func CheckConverged(ts *teamspace.TeamSpace, ns *corev1.Namespace, q *corev1.ResourceQuota, pods int64, cpu string, finalizerOn bool) error {
	var errs []error
	if pods >= 0 && (ts.Spec.Pods != pods || ts.CPU() != cpu) {
		errs = append(errs, fmt.Errorf("spec: got pods=%d cpu=%s, want pods=%d cpu=%s", ts.Spec.Pods, ts.CPU(), pods, cpu))
	}
	if !finalizerOn && teamspace.HasFinalizer(ts.Finalizers, teamspace.Finalizer) {
		errs = append(errs, fmt.Errorf("finalizers %v hold %s, want it absent", ts.Finalizers, teamspace.Finalizer))
	}
	gaps, err := teamspace.FindGaps(ts, ns, q, finalizerOn)
	if err != nil {
		errs = append(errs, err)
	}
	for _, g := range gaps {
		errs = append(errs, fmt.Errorf("%s: %s", g.Kind, g))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("teamspace %s not converged: %w", ts.Name, err)
	}
	return nil
}

package check

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/teamspace"
)

// gatherFacts reads the facts once, before anything is judged, so that
// every check compares against the same moment: the cluster's, and the
// machine's from svc and its unit file; or, graded from another machine
// (reported set), the machine's as the learner's run reported them. Any
// error but NotFound means the cluster cannot be asked, and nothing can
// be graded. The objects are kept without their managedFields: who wrote
// which field is noise in a submission, and no check reads it.
func gatherFacts(ctx context.Context, steps lab.Table, env *labenv.Env, svc service.Manager, reported *judge.Facts) (*judge.Facts, error) {
	f := &judge.Facts{Dir: env.Dir, Engine: env.Engine, FinalizerOn: env.State != nil && env.State.Finalizer}
	if reported != nil {
		f = &judge.Facts{Dir: reported.Dir, Engine: reported.Engine}
	}
	if err := clusterFacts(ctx, env, f); err != nil {
		return nil, err
	}
	if reported != nil {
		f.Service, f.Unit, f.UnitError, f.OtherDir = reported.Service, reported.Unit, reported.UnitError, reported.OtherDir
		return f, nil
	}
	// Who wrote each file, for the hints: read here, on the learner's
	// machine, so that judging reads nothing (and a submission's Dir is
	// never read on the grader's machine).
	f.Authors = steps.Authors(env.Dir)
	var err error
	if f.Service, err = svc.Status(ctx); err != nil {
		return nil, fmt.Errorf("status of %s: %w", service.Name, err)
	}
	unit, err := lab.ReadEvidence(svc.UnitPath()) // a FIFO there must not stall the grader
	switch {
	case err != nil:
		f.UnitError = unitProblem(err)
	default:
		f.Unit = string(unit)
		if served, ok := service.ServedDir(unit); ok && filepath.Clean(served) != filepath.Clean(env.Dir) {
			f.OtherDir = served
		}
	}
	return f, nil
}

// unitProblem is why the unit file could not be read, as step4.unit_file
// says it beside the unit's path: a missing one "does not exist" in the
// learner's language (the title names the path), not the system call's
// English ("open …: no such file or directory"); any other reason whole.
func unitProblem(err error) string {
	if errors.Is(err, fs.ErrNotExist) {
		return i18n.T("lab.record.missing")
	}
	return err.Error()
}

// clusterFacts reads the cluster's part of the facts into f: what any
// machine that reaches the API server can see.
func clusterFacts(ctx context.Context, env *labenv.Env, f *judge.Facts) error {
	crd, err := env.Clients.Dynamic.Resource(teamspace.CRDGVR).Get(ctx, teamspace.CRDName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("get CRD %s: %w", teamspace.CRDName, err)
	default:
		crd.SetManagedFields(nil)
		f.CRD = crd
	}
	if f.Alpha, err = teamspace.Get(ctx, env.Clients.Dynamic, "alpha"); err != nil {
		return err
	}
	if f.Beta, err = teamspace.Get(ctx, env.Clients.Dynamic, "beta"); err != nil {
		return err
	}
	for _, ts := range []*teamspace.TeamSpace{f.Alpha, f.Beta} {
		if ts != nil {
			ts.ManagedFields = nil
		}
	}
	if f.TeamAlpha, err = GetNamespace(ctx, env, teamspace.NamespaceName("alpha")); err != nil {
		return err
	}
	if f.TeamBeta, err = GetNamespace(ctx, env, teamspace.NamespaceName("beta")); err != nil {
		return err
	}
	for _, ns := range []*corev1.Namespace{f.TeamAlpha, f.TeamBeta} {
		if ns != nil {
			ns.ManagedFields = nil
		}
	}
	q, err := env.Clients.Kube.CoreV1().ResourceQuotas(teamspace.NamespaceName("alpha")).Get(ctx, teamspace.QuotaName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("get team-alpha/team-quota: %w", err)
	default:
		q.ManagedFields = nil
		f.Quota = q
	}
	return nil
}

// GetNamespace reads a namespace; nil when it does not exist.
func GetNamespace(ctx context.Context, env *labenv.Env, name string) (*corev1.Namespace, error) {
	ns, err := env.Clients.Kube.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get namespace %s: %w", name, err)
	}
	return ns, nil
}

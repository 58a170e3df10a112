package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/service"
	"github.com/labhub/cnpa/internal/teamspace"
)

// facts is what the cluster and the machine show, read once before the
// evidence is judged, so every check compares against the same moment.
// A nil object means it does not exist.
type facts struct {
	crd       *unstructured.Unstructured
	alpha     *teamspace.TeamSpace
	teamAlpha *corev1.Namespace
	// quota is team-alpha/team-quota.
	quota    *corev1.ResourceQuota
	beta     *teamspace.TeamSpace
	teamBeta *corev1.Namespace

	service service.Status
	// unit is the unit file's content; unitErr why it cannot be read.
	unit    []byte
	unitErr string
	// otherDir is the evidence dir the installed unit serves when it is
	// not this one: the unit path is one per machine, and another lab's
	// service is not this lab's ("" when it is ours or names none).
	otherDir string
	// dir is the evidence dir, and engine the lab's engine, for hints.
	dir, engine string
	// finalizerOn: the lab's controller handles the finalizer (step 6
	// turned it on), for hints.
	finalizerOn bool
}

// gatherFacts reads the facts. Any error but NotFound means the cluster
// cannot be asked, and nothing can be graded.
func gatherFacts(ctx context.Context, env *labenv.Env) (*facts, error) {
	f := &facts{dir: env.Dir, engine: env.Engine, finalizerOn: env.State != nil && env.State.Finalizer}
	if err := clusterFacts(ctx, env, f); err != nil {
		return nil, err
	}
	var err error
	if f.service, err = env.Service.Status(ctx); err != nil {
		return nil, fmt.Errorf("status of %s: %w", service.Name, err)
	}
	if f.unit, err = os.ReadFile(env.Service.UnitPath()); err != nil {
		f.unitErr = err.Error()
	} else if served, ok := service.ServedDir(f.unit); ok && filepath.Clean(served) != filepath.Clean(env.Dir) {
		f.otherDir = served
	}
	return f, nil
}

// clusterFacts reads the cluster's part of the facts into f: what any
// machine that reaches the API server can see.
func clusterFacts(ctx context.Context, env *labenv.Env, f *facts) error {
	crd, err := env.Clients.Dynamic.Resource(teamspace.CRDGVR).Get(ctx, teamspace.CRDName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("get CRD %s: %w", teamspace.CRDName, err)
	default:
		f.crd = crd
	}
	if f.alpha, err = teamspace.Get(ctx, env.Clients.Dynamic, "alpha"); err != nil {
		return err
	}
	if f.beta, err = teamspace.Get(ctx, env.Clients.Dynamic, "beta"); err != nil {
		return err
	}
	if f.teamAlpha, err = getNamespace(ctx, env, teamspace.NamespaceName("alpha")); err != nil {
		return err
	}
	if f.teamBeta, err = getNamespace(ctx, env, teamspace.NamespaceName("beta")); err != nil {
		return err
	}
	q, err := env.Clients.Kube.CoreV1().ResourceQuotas(teamspace.NamespaceName("alpha")).Get(ctx, teamspace.QuotaName, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return fmt.Errorf("get team-alpha/team-quota: %w", err)
	default:
		f.quota = q
	}
	return nil
}

func getNamespace(ctx context.Context, env *labenv.Env, name string) (*corev1.Namespace, error) {
	ns, err := env.Clients.Kube.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get namespace %s: %w", name, err)
	}
	return ns, nil
}

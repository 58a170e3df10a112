package steps

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/labhub/cnpa/internal/kube"
	"github.com/labhub/cnpa/internal/teamspace"
)

// FieldManager names the learner's own hand: the steps act as the person
// at the keyboard, not as the controller.
// Exported for step 4, which drops a held probe's finalizers by the same hand.
const FieldManager = "cnpa-lab"

// appliedKinds are the kinds the lab applies: the CRD and TeamSpaces.
var appliedKinds = map[string]schema.GroupVersionResource{
	"CustomResourceDefinition": teamspace.CRDGVR,
	teamspace.Kind:             teamspace.GVR,
}

// apply server-side-applies every object of a YAML stream, as the
// learner's hand (FieldManager). It returns each object as kubectl names
// it in its answer (teamspace.platform.labhub.io/alpha).
func apply(ctx context.Context, env *Lab, manifest []byte) (names []string, err error) {
	objs, err := kube.Objects(appliedKinds, manifest)
	if err != nil {
		return nil, err
	}
	for _, o := range objs {
		if err := o.Apply(ctx, env.Clients.Dynamic, FieldManager); err != nil {
			return names, fmt.Errorf("apply %s %s: %w", o.GetKind(), o.GetName(), err)
		}
		names = append(names, o.KubectlName())
	}
	return names, nil
}

// NeedAlpha returns alpha or says which step creates it.
// Every run from step 2 on starts from alpha, and says so in the same words.
func NeedAlpha(ctx context.Context, env *Lab, step int) (*teamspace.TeamSpace, error) {
	if err := needCRD(ctx, env, step); err != nil {
		return nil, err
	}
	a, err := teamspace.Get(ctx, env.Clients.Dynamic, "alpha")
	if err != nil {
		return nil, err
	}
	if a == nil {
		return nil, errors.New(Say("steps.need.alpha", "N", step))
	}
	return a, nil
}

func needCRD(ctx context.Context, env *Lab, step int) error {
	_, err := env.Clients.Dynamic.Resource(teamspace.CRDGVR).Get(ctx, teamspace.CRDName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return errors.New(Say("steps.need.crd", "N", step, "CRD", teamspace.CRDName))
	}
	return err
}

// GetQuota is alpha's (or any TeamSpace's) team-quota in namespace ns, nil
// when it does not exist: the runs of steps 3, 4 and 7 read it.
func GetQuota(ctx context.Context, env *Lab, ns string) (*corev1.ResourceQuota, error) {
	q, err := env.Clients.Kube.CoreV1().ResourceQuotas(ns).Get(ctx, teamspace.QuotaName, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return q, err
}

// NamespaceExists tells whether namespace name exists (steps 1 and 6).
func NamespaceExists(ctx context.Context, env *Lab, name string) (bool, error) {
	ns, err := GetNamespace(ctx, env, name)
	return ns != nil, err
}

// GetNamespace is the namespace, or nil when it does not exist.
// The runs of steps 3, 4 and 6 read it.
func GetNamespace(ctx context.Context, env *Lab, name string) (*corev1.Namespace, error) {
	ns, err := env.Clients.Kube.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return ns, err
}

package steps

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/labenv"
	"github.com/labhub/cnpa/internal/teamspace"
)

// AlphaYAML is the lab's first TeamSpace.
const AlphaYAML = `apiVersion: platform.labhub.io/v1alpha1
kind: TeamSpace
metadata:
  name: alpha
spec:
  pods: 4
`

var step1 = &Step{
	Step: lab.CRD,
	Run: func(ctx context.Context, env *labenv.Env, s *Step) (*Result, error) {
		var kept lab.BeforeRecord
		if r, ok, err := keep(ctx, env, s, &kept); ok || err != nil {
			return r, err
		}
		r := &Result{Step: s.Number, Title: s.Title}
		sh := show(env)
		crdPath, err := sh.writeFile(env, "crd.yaml", assets.CRD)
		if err != nil {
			return nil, err
		}
		if err := sh.apply(ctx, env, crdPath, assets.CRD); err != nil {
			return nil, err
		}
		sh.waitCmd(kubectlWait(env, obj{resource: "crd", name: teamspace.CRDName}, "condition=Established"))
		if _, err := waitFor(ctx, env, "CRD "+teamspace.CRDName+" to be Established", whyCRDEstablished, func(ctx context.Context) (bool, string, error) {
			u, err := env.Clients.Dynamic.Resource(teamspace.CRDGVR).Get(ctx, teamspace.CRDName, metav1.GetOptions{})
			if err != nil {
				return false, "", err
			}
			conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
			for _, c := range conds {
				m, _ := c.(map[string]any)
				if m["type"] == "Established" && m["status"] == "True" {
					return true, "", nil
				}
			}
			return false, fmt.Sprintf("conditions %v", conds), nil
		}); err != nil {
			return nil, err
		}
		// A fresh cluster has no alpha; one that moved on cannot prove step 1.
		if a, err := teamspace.Get(ctx, env.Clients.Dynamic, "alpha"); err != nil {
			return nil, err
		} else if a != nil && a.Generation > 1 {
			return nil, fmt.Errorf("TeamSpace alpha exists with generation %d: this cluster is past step 1; start over with `cnpa reset --yes`", a.Generation)
		}
		alphaPath, err := sh.writeFile(env, "alpha.yaml", []byte(AlphaYAML))
		if err != nil {
			return nil, err
		}
		if err := sh.apply(ctx, env, alphaPath, []byte(AlphaYAML)); err != nil {
			return nil, err
		}
		alpha, err := needAlpha(ctx, env, s.Number)
		if err != nil {
			return nil, err
		}
		sh.readBack("uid", teamspaceObj("alpha"), "{.metadata.uid}", alpha)
		exists, err := namespaceExists(ctx, env, teamspace.NamespaceName("alpha"))
		if err != nil {
			return nil, err
		}
		sh.exists("namespace_exists", namespaceObj(teamspace.NamespaceName("alpha")), exists)
		// From here on the engine and service manager are the lab's choice.
		if err := env.SaveState(); err != nil {
			return nil, err
		}
		ev := lab.BeforeRecord{UID: string(alpha.UID), NamespaceExists: exists}
		if r.File, err = sh.writeEvidence(env, s.File, ev); err != nil {
			return nil, err
		}
		r.Evidence = ev
		if err := r.judge(lab.Read(env.Dir), s.File, ev, alpha); err != nil {
			return nil, err
		}
		return r, nil
	},
}

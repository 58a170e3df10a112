package step1

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/steps"
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

// Run drives step 1 against the live cluster and writes before.json.
// Phases: keep the evidence if it is there (steps.Keep); apply the CRD
// (the learner's crd.yaml as it is, or the lab's) and wait until it is
// Established; apply alpha; read its uid and whether team-alpha exists;
// save the lab's choices; write and judge the record.
func Run(ctx context.Context, env *steps.Lab, s *steps.Step) (*steps.Result, error) {
	var kept lab.BeforeRecord
	if r, ok, err := steps.Keep(ctx, env, s, &kept); ok || err != nil {
		return r, err
	}
	r := &steps.Result{Step: s.Number, Title: s.EnglishTitle()}
	sh := steps.Show(env)
	crdPath, crd, yours, err := steps.LearnersOrLabs(env, sh, "crd.yaml", assets.CRD, crdDiff, "steps.step1.yours_differs")
	if err != nil {
		return nil, err
	}
	if err := sh.Apply(ctx, env, crdPath, crd); err != nil {
		return nil, fmt.Errorf("%w%s", err, onlyIfYours(yours, crdPath))
	}
	sh.WaitCmd(steps.KubectlWait(env, steps.Obj{Resource: "crd", Name: teamspace.CRDName}, "condition=Established"))
	if _, err := steps.WaitFor(ctx, env, steps.Say("steps.what.crd_established", "CRD", teamspace.CRDName), whyCRDEstablished, func(ctx context.Context) (bool, string, error) {
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
	// What the server holds now, as the grader reads it: a field of an
	// earlier CRD that the file does not set may still be there.
	live, err := env.Clients.Dynamic.Resource(teamspace.CRDGVR).Get(ctx, teamspace.CRDName, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	if d := lab.CRDFixLines(live.Object); len(d) > 0 {
		return nil, steps.FieldsError(steps.Say("steps.step1.crd_differs", "Path", crdPath), crdPath, d)
	}
	r.VerdictT("steps.step1.verdict_crd", true, steps.OnOff(yours, steps.Say("steps.yours_path", "Path", crdPath), steps.Say("steps.cnpas_path", "Path", crdPath)), steps.Say("steps.step1.want_crd"))
	// A fresh cluster has no alpha; one that moved on cannot prove step 1.
	if a, err := teamspace.Get(ctx, env.Clients.Dynamic, "alpha"); err != nil {
		return nil, err
	} else if a != nil && a.Generation > 1 {
		return nil, steps.SayError("steps.step1.past", "Generation", a.Generation)
	}
	alphaPath, alphaYAML, yours, err := steps.LearnersOrLabs(env, sh, "alpha.yaml", []byte(AlphaYAML), alphaDiff, "steps.step1.yours_differs")
	if err != nil {
		return nil, err
	}
	if err := sh.Apply(ctx, env, alphaPath, alphaYAML); err != nil {
		return nil, fmt.Errorf("%w%s", err, onlyIfYours(yours, alphaPath))
	}
	alpha, err := steps.NeedAlpha(ctx, env, s.Number)
	if err != nil {
		return nil, err
	}
	sh.ReadBack("uid", steps.TeamspaceObj("alpha"), "{.metadata.uid}", alpha)
	exists, err := steps.NamespaceExists(ctx, env, teamspace.NamespaceName("alpha"))
	if err != nil {
		return nil, err
	}
	sh.Exists("namespace_exists", steps.NamespaceObj(teamspace.NamespaceName("alpha")), exists)
	// From here on the engine and service manager are the lab's choice.
	if err := env.SaveState(); err != nil {
		return nil, err
	}
	ev := lab.BeforeRecord{UID: string(alpha.UID), NamespaceExists: exists}
	if r.File, err = sh.WriteEvidence(env, s.File, ev); err != nil {
		return nil, err
	}
	r.Evidence = ev
	if err := r.Judge(env.Steps.Lab().Read(env.Dir), s.File, ev, alpha); err != nil {
		return nil, err
	}
	return r, nil
}

// onlyIfYours is the end of an apply error's line: the file is the
// learner's, unchanged, to fix.
func onlyIfYours(yours bool, path string) string {
	if !yours {
		return ""
	}
	return steps.Say("steps.refused_yours", "Path", path)
}

// crdDiff is lab.CRDFixLines for step 1's file.
func crdDiff(crd map[string]any) []string { return lab.CRDFixLines(crd) }

// alphaDiff compares a learner's alpha.yaml with LAB.md step 1's alpha,
// one line per field: anything more (labels, spec.cpu) is theirs to add.
var alphaDiff = steps.FieldsDiff([]steps.Field{
	{Path: []string{"apiVersion"}, Want: teamspace.APIVersion},
	{Path: []string{"kind"}, Want: teamspace.Kind},
	{Path: []string{"metadata", "name"}, Want: "alpha"},
	{Path: []string{"spec", "pods"}, Want: float64(4)},
})

// Again: step 1 measures a TeamSpace no controller has touched, so it can
// run again while alpha is missing or still at its first generation.
func Again(alpha *teamspace.TeamSpace) bool { return alpha == nil || alpha.Generation <= 1 }

// Why step 1's waits take the time they take, as the live wait says
// it (steps.StartWait): who is expected to act, and why it is not instant.
const whyCRDEstablished = "steps.why.crd_established"

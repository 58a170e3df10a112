package steps

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/labhub/cnpa/assets"
	"github.com/labhub/cnpa/internal/evidence"
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
		crdPath, crd, yours, err := learnersOrLabs(env, sh, "crd.yaml", assets.CRD, crdDiff)
		if err != nil {
			return nil, err
		}
		if err := sh.apply(ctx, env, crdPath, crd); err != nil {
			return nil, fmt.Errorf("%w%s", err, onlyIfYours(yours, crdPath))
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
		// What the server holds now, as the grader reads it: a field of an
		// earlier CRD that the file does not set may still be there.
		live, err := env.Clients.Dynamic.Resource(teamspace.CRDGVR).Get(ctx, teamspace.CRDName, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		if d := lab.CRDFixLines(live.Object); len(d) > 0 {
			return nil, fieldsError("the CRD on the server, after applying "+crdPath+", differs from LAB.md step 1's", crdPath, d)
		}
		r.verdict("CRD as LAB.md step 1 says", true, onOff(yours, "yours, "+crdPath, "cnpa's, "+crdPath), "LAB.md step 1's fields")
		// A fresh cluster has no alpha; one that moved on cannot prove step 1.
		if a, err := teamspace.Get(ctx, env.Clients.Dynamic, "alpha"); err != nil {
			return nil, err
		} else if a != nil && a.Generation > 1 {
			return nil, fmt.Errorf("TeamSpace alpha exists with generation %d: this cluster is past step 1; start over with `cnpa reset --yes`", a.Generation)
		}
		alphaPath, alphaYAML, yours, err := learnersOrLabs(env, sh, "alpha.yaml", []byte(AlphaYAML), alphaDiff)
		if err != nil {
			return nil, err
		}
		if err := sh.apply(ctx, env, alphaPath, alphaYAML); err != nil {
			return nil, fmt.Errorf("%w%s", err, onlyIfYours(yours, alphaPath))
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

// learnersOrLabs is the file a step applies: the learner's own dir/name,
// used as it is (never rewritten) once diff finds nothing LAB.md asks for
// missing from it, else the lab's, written only where the learner has
// none. Either way the step says which. A file of the learner's that
// differs fails the step with one line per field, the file unchanged.
func learnersOrLabs(env *labenv.Env, sh shell, name string, labs []byte, diff func(map[string]any) []string) (path string, data []byte, yours bool, err error) {
	path = filepath.Join(env.Dir, name)
	why, err := evidence.Theirs(env.Dir, name)
	if err != nil {
		return "", nil, false, fmt.Errorf("is %s yours? %w", path, err)
	}
	if why == "" {
		if path, err = sh.writeFile(env, name, labs); err != nil {
			return "", nil, false, err
		}
		sh.comment("%s is cnpa's, the lab text's: you have none of your own (write yours there, and cnpa applies it instead)", path)
		return path, labs, false, nil
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return "", nil, false, err
	}
	if !fi.Mode().IsRegular() {
		return "", nil, false, fmt.Errorf("%s is %s: cnpa applies your %s as it is, and this is not a file; make it one", path, why, name)
	}
	if data, err = os.ReadFile(path); err != nil {
		return "", nil, false, err
	}
	var obj map[string]any
	if err := yaml.Unmarshal(data, &obj); err != nil {
		return "", nil, false, fmt.Errorf("your %s does not parse as one YAML object: %v (the file is unchanged; fix it and run the step again)", path, err)
	}
	if d := diff(obj); len(d) > 0 {
		return "", nil, false, fieldsError("your "+path+" differs from LAB.md step 1's", path, d)
	}
	sh.comment("%s is yours (%s): cnpa applies it as it is", path, why)
	return path, data, true, nil
}

// fieldsError is a step 1 failure with one line per field to write.
func fieldsError(what, path string, lines []string) error {
	return fmt.Errorf("%s (nothing was changed in the file): write in %s\n  %s", what, path, strings.Join(lines, "\n  "))
}

// onlyIfYours is the end of an apply error's line: the file is the
// learner's, unchanged, to fix.
func onlyIfYours(yours bool, path string) string {
	if !yours {
		return ""
	}
	return " (the API server refused your " + path + ", which cnpa left unchanged: fix it and run the step again)"
}

// crdDiff is lab.CRDFixLines for step 1's file.
func crdDiff(crd map[string]any) []string { return lab.CRDFixLines(crd) }

// alphaDiff compares a learner's alpha.yaml with LAB.md step 1's alpha,
// one line per field: anything more (labels, spec.cpu) is theirs to add.
func alphaDiff(ts map[string]any) []string {
	var lines []string
	want := []struct {
		path []string
		want any
	}{
		{[]string{"apiVersion"}, teamspace.APIVersion},
		{[]string{"kind"}, teamspace.Kind},
		{[]string{"metadata", "name"}, "alpha"},
		{[]string{"spec", "pods"}, float64(4)},
	}
	for _, w := range want {
		var cur any = ts
		for _, p := range w.path {
			m, _ := cur.(map[string]any)
			cur = m[p]
		}
		key, at := w.path[len(w.path)-1], strings.Join(w.path[:len(w.path)-1], ".")
		if at != "" {
			at += ": "
		}
		switch {
		case cur == nil:
			lines = append(lines, fmt.Sprintf("%sadd %s: %v", at, key, w.want))
		case cur != w.want:
			lines = append(lines, fmt.Sprintf("%schange %s: %v to %s: %v", at, key, cur, key, w.want))
		}
	}
	return lines
}

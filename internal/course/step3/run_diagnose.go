package step3

// A diagnosis turns what a step observed into the likely mistake in the
// controller under test, in the lab text's words: the learner's own
// reconcile.sh with --engine own, but the same words hold for any engine.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/labhub/cnpa/internal/steps"
	"github.com/labhub/cnpa/internal/teamspace"
)

// diagnoseTeamSpace lists what one TeamSpace lacks by the lab text after a pass,
// each gap with its likely mistake; nil when nothing is missing.
func diagnoseTeamSpace(ctx context.Context, env *steps.Lab, name string, finalizerOn bool) ([]string, error) {
	ts, err := teamspace.Get(ctx, env.Clients.Dynamic, name)
	if err != nil || ts == nil {
		return nil, err
	}
	nsName := teamspace.NamespaceName(name)
	ns, err := steps.GetNamespace(ctx, env, nsName)
	if err != nil {
		return nil, err
	}
	q, err := steps.GetQuota(ctx, env, nsName)
	if err != nil {
		return nil, err
	}
	gaps, blocked := teamspace.FindGaps(ts, ns, q, finalizerOn)
	var out []string
	var foreign *teamspace.ForeignNamespaceError
	var invalid *teamspace.InvalidSpecError
	switch {
	case errors.As(blocked, &foreign):
		out = append(out, steps.Say("steps.diag.foreign", "Namespace", nsName, "Name", name, "UID", ts.UID, "APIVersion", teamspace.APIVersion, "Kind", teamspace.Kind))
	case errors.As(blocked, &invalid):
		out = append(out, invalid.Said())
	case blocked != nil:
		out = append(out, blocked.Error())
	}
	for _, g := range gaps.Lab() {
		out = append(out, g.String()+": "+steps.GapAdvice(g, ts))
	}
	return out, nil
}

// lastWriter names who last wrote an object and which fields, from its
// managedFields: the entry with the newest time.
func lastWriter(obj metav1.Object) string {
	var newest *metav1.ManagedFieldsEntry
	for i, m := range obj.GetManagedFields() {
		if newest == nil || (m.Time != nil && newest.Time != nil && newest.Time.Before(m.Time)) {
			newest = &obj.GetManagedFields()[i]
		}
	}
	if newest == nil {
		return steps.Say("steps.diag.no_managed_fields")
	}
	op := string(newest.Operation)
	if newest.Subresource != "" {
		op += " on /" + newest.Subresource
	}
	who := steps.Say("steps.diag.field_manager", "Manager", fmt.Sprintf("%q", newest.Manager), "Op", op)
	if f := fieldNames(newest.FieldsV1); f != "" {
		who += steps.Say("steps.diag.fields", "Fields", f)
	}
	return who
}

// fieldNames lists the leaf paths of a managedFields fieldsV1 set, as
// spec.hard.pods: what that manager owns.
func fieldNames(f *metav1.FieldsV1) string {
	if f == nil {
		return ""
	}
	var tree map[string]any
	if json.Unmarshal(f.Raw, &tree) != nil {
		return ""
	}
	var paths []string
	var walk func(prefix string, m map[string]any)
	walk = func(prefix string, m map[string]any) {
		for k, v := range m {
			if k == "." {
				continue
			}
			name := strings.TrimPrefix(k, "f:")
			if prefix != "" {
				name = prefix + "." + name
			}
			if sub, ok := v.(map[string]any); ok && len(sub) > 0 && !(len(sub) == 1 && sub["."] != nil) {
				walk(name, sub)
				continue
			}
			paths = append(paths, name)
		}
	}
	walk("", tree)
	sort.Strings(paths)
	return strings.Join(paths, ", ")
}

// secondPassWrites says which of the objects a pass should have left alone
// it changed, and who wrote what: a level-triggered pass that finds
// desired = actual writes nothing.
func secondPassWrites(before, after []metav1.Object) []string {
	var out []string
	for i := range before {
		if before[i] == nil || after[i] == nil || before[i].GetResourceVersion() == after[i].GetResourceVersion() {
			continue
		}
		kind := "object"
		switch after[i].(type) {
		case *corev1.Namespace:
			kind = "namespace"
		case *corev1.ResourceQuota:
			kind = "resourcequota"
		case *teamspace.TeamSpace:
			kind = "teamspace"
		}
		out = append(out, steps.Say("steps.diag.second_pass_wrote", "Kind", kind, "Name", after[i].GetName(), "From", before[i].GetResourceVersion(),
			"To", after[i].GetResourceVersion(), "Who", lastWriter(after[i])))
	}
	return out
}

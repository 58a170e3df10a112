package judge

import (
	"fmt"
	"path/filepath"

	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Step 3: the same result however often it runs. reconcile.json, then
// team-alpha as the reconcile pass leaves it. The re-runs of reconcile.sh
// are probes (package check, probe_rerun.go).
var step3Checks = &stepChecks{step: lab.Reconcile, facts: []factCheck{
	{id: "step3.namespace_owned", title: "team-alpha is labelled " + teamspace.OwnerLabel + "=alpha and owned by the live alpha",
		hint: func(_ *evidenceSet, f *Facts) string {
			return "LAB.md step 3: one pass of reconcile.sh gives team-<name> the label " + teamspace.OwnerLabel +
				"=<name> and an ownerReference to the TeamSpace (its uid); run `" + lab.QuoteArg(filepath.Join(f.Dir, lab.ScriptName)) +
				"` once and compare `kubectl get namespace team-alpha -o yaml`"
		},
		judge: namespaceOwned},
}}

// namespaceOwned: team-alpha carries our label and an ownerReference to
// alpha, as LAB.md asks. cnpa's engines also mark that reference
// controller: a note, never a failure.
func namespaceOwned(_ *evidenceSet, f *Facts) Verdict {
	want := "labelled alpha, ownerReference to alpha's uid"
	switch {
	case f.Alpha == nil:
		return Holds(false, want, "TeamSpace alpha does not exist")
	case f.TeamAlpha == nil:
		return Holds(false, want, "namespace team-alpha does not exist")
	}
	var owners []string
	for _, r := range f.TeamAlpha.OwnerReferences {
		owners = append(owners, fmt.Sprintf("%s/%s uid %s", r.Kind, r.Name, r.UID))
	}
	got := fmt.Sprintf("label %q, owners %v", f.TeamAlpha.Labels[teamspace.OwnerLabel], owners)
	ok := f.TeamAlpha.Labels[teamspace.OwnerLabel] == "alpha" && teamspace.HasOwnerReference(f.TeamAlpha.OwnerReferences, f.Alpha.UID)
	v := Holds(ok, fmt.Sprintf("label \"alpha\", owner TeamSpace/alpha uid %s", f.Alpha.UID), got)
	if ok && !teamspace.OwnedBy(f.TeamAlpha.OwnerReferences, f.Alpha.UID) {
		v.Note = "cnpa's engines also mark this ownerReference controller: true (only one controller may own the namespace); LAB.md does not ask for it"
	}
	return v
}

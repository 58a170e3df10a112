package check

import (
	"fmt"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Step 3: the same result however often it runs. reconcile.json, then
// team-alpha as the reconcile pass leaves it. The re-runs of reconcile.sh
// are live probes (rerun.go).
var step3Checks = &stepChecks{step: 3, file: evidence.ReconcileFile, live: []liveCheck{
	{id: "step3.namespace_owned", title: "team-alpha is labelled " + teamspace.OwnerLabel + "=alpha and owned by the live alpha",
		hint:  hintText("the controller makes team-alpha alpha's: is it running? `cnpa service status`"),
		judge: namespaceOwned},
}}

// namespaceOwned: team-alpha carries our label and alpha's controller
// ownerReference.
func namespaceOwned(_ *evidenceSet, f *facts) verdict {
	want := "labelled alpha, controller ownerReference to alpha's uid"
	switch {
	case f.alpha == nil:
		return holds(false, want, "TeamSpace alpha does not exist")
	case f.teamAlpha == nil:
		return holds(false, want, "namespace team-alpha does not exist")
	}
	var owners []string
	for _, r := range f.teamAlpha.OwnerReferences {
		owners = append(owners, fmt.Sprintf("%s/%s uid %s", r.Kind, r.Name, r.UID))
	}
	got := fmt.Sprintf("label %q, owners %v", f.teamAlpha.Labels[teamspace.OwnerLabel], owners)
	ok := f.teamAlpha.Labels[teamspace.OwnerLabel] == "alpha" && teamspace.OwnedBy(f.teamAlpha.OwnerReferences, f.alpha.UID)
	return holds(ok, fmt.Sprintf("label \"alpha\", controller owner TeamSpace/alpha uid %s", f.alpha.UID), got)
}

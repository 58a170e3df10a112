package step3

import (
	"fmt"
	"path/filepath"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
	"github.com/labhub/cnpa/internal/teamspace"
)

// Grade is what `cnpa check` grades for step 3 (the same result however
// often it runs): reconcile.json, then team-alpha as the reconcile pass
// leaves it. The re-runs of reconcile.sh are probes (probe.go,
// probe_rerun.go).
var Grade = &judge.Step{Step: Step, Probes: Probes, Facts: []judge.Fact{
	{ID: "step3.namespace_owned", Mistake: lab.MistakeNoOwner, Title: "check.title.step3.namespace_owned", Args: i18n.Args{"Label": teamspace.OwnerLabel},
		Hint: func(_ *judge.Evidence, f *judge.Facts) string {
			return i18n.T("check.step3.namespace_owned.hint", i18n.Args{"Step": judge.LabStep(3), "Label": teamspace.OwnerLabel,
				"Script": lab.QuoteArg(filepath.Join(f.Dir, lab.ScriptName))})
		},
		Judge: namespaceOwned},
}}

// namespaceOwned: team-alpha carries our label and an ownerReference to
// alpha, as the lab text asks. cnpa's engines also mark that reference
// controller: a note, never a failure.
func namespaceOwned(_ *judge.Evidence, f *judge.Facts) lab.Verdict {
	want := i18n.T("check.step3.namespace_owned.want")
	switch {
	case f.Alpha == nil:
		return lab.Holds(false, want, i18n.T("check.alpha_missing"))
	case f.TeamAlpha == nil:
		return lab.Holds(false, want, i18n.T("check.team_alpha_missing"))
	}
	var owners []string
	for _, r := range f.TeamAlpha.OwnerReferences {
		owners = append(owners, fmt.Sprintf("%s/%s uid %s", r.Kind, r.Name, r.UID))
	}
	got := i18n.T("check.step3.namespace_owned.got", i18n.Args{"Label": fmt.Sprintf("%q", f.TeamAlpha.Labels[teamspace.OwnerLabel]), "Owners": fmt.Sprint(owners)})
	ok := f.TeamAlpha.Labels[teamspace.OwnerLabel] == "alpha" && teamspace.HasOwnerReference(f.TeamAlpha.OwnerReferences, f.Alpha.UID)
	v := lab.Holds(ok, i18n.T("check.step3.namespace_owned.exact", i18n.Args{"UID": f.Alpha.UID}), got)
	if ok && !teamspace.OwnedBy(f.TeamAlpha.OwnerReferences, f.Alpha.UID) {
		v.Note = i18n.T("check.step3.namespace_owned.note")
	}
	return v
}

package class

import (
	"strings"
	"testing"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/labfile"
	"github.com/labhub/cnpa/internal/submission"
)

// A class is graded with one lab: the TeamSpace lab's grading keeps its
// own submissions and refuses a file lab's; a file lab's keeps those of
// its name and hash and refuses the TeamSpace lab's, another lab's and
// another version of its own, each naming both and the fix.
func TestAdmit(t *testing.T) {
	src, err := labfile.Find("vap")
	if err != nil {
		t.Fatal(err)
	}
	l, ps := labfile.Load(src.FS, src.Where)
	if len(ps) > 0 {
		t.Fatal(ps.Say(i18n.English))
	}
	hash := strings.Repeat("a", 64)
	other := strings.Repeat("b", 64)
	sub := func(path string, ref *submission.LabRef) *submission.Submission {
		return &submission.Submission{Path: path, Content: submission.Content{Learner: path, Lab: ref}}
	}
	subs := []*submission.Submission{
		sub("ts.json", nil),
		sub("vap.json", &submission.LabRef{Name: "vap", SHA256: hash}),
		sub("vap2.json", &submission.LabRef{Name: "vap", SHA256: other}),
		sub("gitops.json", &submission.LabRef{Name: "gitops", SHA256: hash}),
	}
	keep, refused := Admit(subs, nil)
	if len(keep) != 1 || keep[0].Path != "ts.json" || len(refused) != 3 {
		t.Fatalf("the TeamSpace lab's grading kept %d, refused %d; want ts.json kept, 3 refused", len(keep), len(refused))
	}
	if got := refused[0].Error(); !strings.Contains(got, `vap.json is a submission of lab "vap" (files aaaaaaaaaaaa…), and this grading is of the TeamSpace lab: grade it with its lab: `+"`cnpa --lab vap class grade`") {
		t.Errorf("refusal: %s", got)
	}
	keep, refused = Admit(subs, &FileLab{Lab: l, Hash: hash, Where: "labs/vap", Lang: i18n.English})
	if len(keep) != 1 || keep[0].Path != "vap.json" || len(refused) != 3 {
		t.Fatalf("vap's grading kept %d, refused %d; want vap.json kept, 3 refused", len(keep), len(refused))
	}
	for i, want := range []string{
		"ts.json is a submission of the TeamSpace lab, and this grading is of lab vap: grade it without --lab and CNPA_LAB",
		"vap2.json is a submission of lab vap with files bbbbbbbbbbbb…, and the lab this grading uses (labs/vap) has files aaaaaaaaaaaa…: another version of the lab: grade it with the lab files the learner used",
		`gitops.json is a submission of lab "gitops" (files aaaaaaaaaaaa…), and this grading is of lab vap (labs/vap): grade it with its lab: ` + "`cnpa --lab gitops class grade`",
	} {
		if got := refused[i].Error(); !strings.Contains(got, want) {
			t.Errorf("refusal %d: %s\nwant it to hold %s", i, got, want)
		}
	}
}

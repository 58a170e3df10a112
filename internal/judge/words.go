package judge

import (
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
)

// LabStep names step n as the learner knows it: in the lab text, by its
// number and heading ("step 3 of the lab text (…)" / 「ラボの手順のステッ
// プ3「…」」). The learner never has our English rendering of the lab, so
// no output names it.
func LabStep(n int) string {
	heading, ok := lab.Heading(n)
	if !ok {
		return i18n.T("check.lab_step_bare", i18n.Args{"N": n})
	}
	return i18n.T("check.lab_step", i18n.Args{"N": n, "Heading": heading})
}

// RuleTitle is rule r's title in the chosen language (lab.Rule.TitleSaid).
func RuleTitle(r lab.Rule) string { return r.TitleSaid() }

// RuleExpected is rule r's expected value as shown: a JSON value as it
// is, words in the chosen language (lab.Rule.ExpectedSaid).
func RuleExpected(r lab.Rule) string { return r.ExpectedSaid() }

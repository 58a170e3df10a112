package judge

import (
	"encoding/json"
	"strings"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/lab"
)

// labStep names step n as the learner knows it: in the lab text, by its
// number and heading ("step 3 of the lab text (…)" / 「ラボの手順のステッ
// プ3「…」」). The learner never has our English rendering of the lab, so
// no output names it.
func labStep(n int) string {
	s, err := lab.Get(n)
	if err != nil {
		return i18n.T("check.lab_step_bare", i18n.Args{"N": n})
	}
	return i18n.T("check.lab_step", i18n.Args{"N": n, "Heading": s.Heading()})
}

// RuleTitle is rule r's title in the chosen language. The English is the
// rule's own (package lab), where it is read and tested; the catalog's
// check.rule.<id>.title holds the same words (TestCatalogMatchesRules) and
// their translations. report.json's rules share one title.
func RuleTitle(r lab.Rule) string {
	if i18n.Current() == i18n.English {
		return r.Title
	}
	if key, ok := strings.CutPrefix(r.ID, "step8."); ok {
		return i18n.T("check.rule.step8.title", i18n.Args{"Key": key})
	}
	return i18n.T("check.rule." + r.ID + ".title")
}

// RuleExpected is rule r's expected value as shown: a JSON value as it
// is, words in the chosen language (check.rule.<id>.expected, held to
// the rule's English like the title).
func RuleExpected(r lab.Rule) string {
	if i18n.Current() == i18n.English || json.Valid([]byte(r.Expected)) {
		return r.Expected
	}
	if strings.HasPrefix(r.ID, "step8.") {
		return i18n.T("check.rule.step8.expected")
	}
	return i18n.T("check.rule." + r.ID + ".expected")
}

package lab

import (
	"encoding/json"
	"strings"

	"github.com/labhub/cnpa/internal/i18n"
)

// TitleSaid is the rule's title in the chosen language. The English is the
// rule's own, where it is read and tested; the catalog's
// check.rule.<id>.title holds the same words (TestCatalogMatchesRules) and
// their translations. report.json's rules share one title.
func (r Rule) TitleSaid() string {
	if i18n.Current() == i18n.English {
		return r.Title
	}
	if key, ok := strings.CutPrefix(r.ID, "step8."); ok {
		return i18n.T("check.rule.step8.title", i18n.Args{"Key": key})
	}
	return i18n.T("check.rule." + r.ID + ".title")
}

// ExpectedSaid is the rule's expected value as shown: a JSON value as it
// is, words in the chosen language (check.rule.<id>.expected, held to the
// rule's English like the title).
func (r Rule) ExpectedSaid() string {
	if i18n.Current() == i18n.English || json.Valid([]byte(r.Expected)) {
		return r.Expected
	}
	if strings.HasPrefix(r.ID, "step8.") {
		return i18n.T("check.rule.step8.expected")
	}
	return i18n.T("check.rule." + r.ID + ".expected")
}

// WantSaid is what a verdict of the rule wants, as shown: the rule's
// expected value in the chosen language when it wants that (a rule's
// judge says it in the rule's English), else the verdict's own words.
func (r Rule) WantSaid(want string) string {
	if want == r.Expected {
		return r.ExpectedSaid()
	}
	return want
}

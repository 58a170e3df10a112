package lab

import (
	"strings"

	"github.com/labhub/cnpa/internal/i18n"
)

// The rules' words are the catalog's alone, in every language, English
// included: check.rule.<id>.title, and check.rule.<id>.expected for a
// rule whose Expected is no JSON value; step 8's rules share
// check.rule.step8.title (with the key) and .expected.

// TitleSaid is the rule's title in the chosen language
// (check.rule.<id>.title).
func (r Rule) TitleSaid() string {
	if key, ok := strings.CutPrefix(r.ID, "step8."); ok {
		return i18n.T("check.rule.step8.title", i18n.Args{"Key": key})
	}
	return i18n.T(r.messageID("title"))
}

// ExpectedSaid is the rule's expected value as shown: its JSON value as it
// is, else its words in the chosen language (check.rule.<id>.expected).
func (r Rule) ExpectedSaid() string {
	if r.Expected != "" {
		return r.Expected
	}
	return i18n.T(r.messageID("expected"))
}

// WhySaid is the rule's Why in the chosen language, followed by a space,
// to put before its hint; "" when it has none.
func (r Rule) WhySaid() string {
	if r.Why == "" {
		return ""
	}
	return i18n.T(r.Why) + " "
}

// Messages are the catalog messages that are the rule's words, by id:
// its title's, and its expected value's when that is words. Every catalog
// has each, and no other check.rule.* message (TestRuleWords).
func (r Rule) Messages() []string {
	out := []string{r.messageID("title")}
	if r.Expected == "" {
		out = append(out, r.messageID("expected"))
	}
	return out
}

// messageID is the id of the rule's part ("title", "expected"): step 8's
// rules share theirs.
func (r Rule) messageID(part string) string {
	if strings.HasPrefix(r.ID, "step8.") {
		return "check.rule.step8." + part
	}
	return "check.rule." + r.ID + "." + part
}

// Apply judges v by the rule: its Judge's verdict, with the rule's
// expected value as shown (ExpectedSaid) as what it wants when the
// verdict wants what the rule says (an empty Want, HoldsExpected).
func (r Rule) Apply(v any, in *Inputs) Verdict {
	j := r.Judge(v, in)
	if j.Want == "" && j.Skip == "" {
		j.Want = r.ExpectedSaid()
	}
	return j
}

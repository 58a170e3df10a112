package course_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
)

// The English catalog says each rule's title and expected value in the
// rule's own words (package lab), so that the Japanese beside them
// translates what the English output says; change a rule's English and
// this names the catalog entry to change with it.
func TestCatalogMatchesRules(t *testing.T) {
	var en map[string]any
	if _, err := toml.DecodeFile("../i18n/catalog/en.toml", &en); err != nil {
		t.Fatal(err)
	}
	str := func(id string) string { s, _ := en[id].(string); return s }
	for _, r := range steps.Rules() {
		title, expected := "check.rule."+r.ID+".title", "check.rule."+r.ID+".expected"
		want := str(title)
		if key, ok := strings.CutPrefix(r.ID, "step8."); ok {
			title, expected = "check.rule.step8.title", "check.rule.step8.expected"
			want = strings.ReplaceAll(str(title), "{{.Key}}", key)
		}
		if r.Title != want {
			t.Errorf("en.toml %s = %q, the rule says %q", title, want, r.Title)
		}
		if !json.Valid([]byte(r.Expected)) && str(expected) != r.Expected {
			t.Errorf("en.toml %s = %q, the rule says %q", expected, str(expected), r.Expected)
		}
	}
	// And the Japanese is the Japanese, not the English by fallback.
	defer i18n.Set(i18n.Current())
	i18n.Set(i18n.Japanese)
	for _, r := range steps.Rules() {
		if got := judge.RuleTitle(r); got == r.Title || strings.HasPrefix(got, "check.") {
			t.Errorf("%s: the Japanese title is %q", r.ID, got)
		}
	}
}

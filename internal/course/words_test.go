package course_test

import (
	"regexp"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/judge"
	"github.com/labhub/cnpa/internal/lab"
)

// catalogIDs is every message id of l's catalog file.
func catalogIDs(t *testing.T, l i18n.Lang) map[string]bool {
	t.Helper()
	var messages map[string]any
	if _, err := toml.DecodeFile("../i18n/"+i18n.CatalogFile(l), &messages); err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for id := range messages {
		ids[id] = true
	}
	return ids
}

// wordsInEveryCatalog holds every catalog to want, the messages that
// are some part of the lab's words (a step's, a rule's): each has all of
// them, and no other message whose id matches part, which nothing would
// say.
func wordsInEveryCatalog(t *testing.T, part *regexp.Regexp, want map[string]bool) {
	t.Helper()
	for _, l := range i18n.Langs {
		ids := catalogIDs(t, l)
		for id := range want {
			if !ids[id] {
				t.Errorf("%s lacks %s", i18n.CatalogFile(l), id)
			}
		}
		for id := range ids {
			if part.MatchString(id) && !want[id] {
				t.Errorf("%s has %s, which no step or rule says: drop it, or give its step or rule the part it names", i18n.CatalogFile(l), id)
			}
		}
	}
}

// A step's words are the catalog's alone, in English too (stepN.title,
// .teaches, .look_at, .beyond, .produces.M, .cmd.M): every catalog has
// each of them, and no stepN.* message that no step says.
func TestStepWords(t *testing.T) {
	want := map[string]bool{}
	for _, s := range steps {
		for _, id := range s.Messages() {
			want[id] = true
		}
	}
	if len(want) < 5*len(steps) {
		t.Fatalf("only %d step messages: %v", len(want), want)
	}
	wordsInEveryCatalog(t, regexp.MustCompile(`^step[0-9]+\.`), want)
}

// A rule's words are the catalog's alone, in English too
// (check.rule.<id>.title, and .expected where its Expected is no JSON
// value): every catalog has each of them, and no check.rule.* message
// that no rule says.
func TestRuleWords(t *testing.T) {
	want := map[string]bool{}
	for _, r := range steps.Rules() {
		for _, id := range r.Messages() {
			want[id] = true
		}
	}
	wordsInEveryCatalog(t, regexp.MustCompile(`^check\.rule\.`), want)
	// And the Japanese is the Japanese, not the English by fallback.
	defer i18n.Set(i18n.Current())
	for _, r := range steps.Rules() {
		i18n.Set(i18n.English)
		en := judge.RuleTitle(r)
		i18n.Set(i18n.Japanese)
		if got := judge.RuleTitle(r); got == en || got == "" {
			t.Errorf("%s: the Japanese title is %q", r.ID, got)
		}
	}
}

// A rule's words in English are the catalog's, the words that were the
// rules' own before they moved there: a title for each, and a JSON value
// or words for what it expects.
func TestRuleWordsInEnglish(t *testing.T) {
	defer i18n.Set(i18n.Current())
	i18n.Set(i18n.English)
	for _, c := range []struct {
		id, title, expected string
	}{
		{"step1.uid", "before.json uid is the live alpha's uid", "the live alpha's uid"},
		{"step1.namespace_exists", "before.json namespace_exists is false: a CRD alone creates no namespace", "false"},
		{"step7.quota_pods_after_start", `catchup.json quota_pods_after_start is "8"`, `"8"`},
		{"step8.trigger", "report.json trigger is what the other files give", "the value computed from the other files"},
	} {
		r := rule(t, c.id)
		if got := r.TitleSaid(); got != c.title {
			t.Errorf("%s title: got %q, want %q", c.id, got, c.title)
		}
		if got := r.ExpectedSaid(); got != c.expected {
			t.Errorf("%s expected: got %q, want %q", c.id, got, c.expected)
		}
	}
}

func rule(t *testing.T, id string) lab.Rule {
	t.Helper()
	for _, r := range steps.Rules() {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no rule %s", id)
	return lab.Rule{}
}

package lab

import (
	"testing"

	"github.com/labhub/cnpa/internal/i18n"
)

// TestAdviceCatalog: each mistake's advice, said in English, is the
// English catalog's advice.* message word for word, and every other
// language has it (Say reads the catalog outside English).
func TestAdviceCatalog(t *testing.T) {
	for advice, id := range adviceIDs {
		if got := i18n.English.T(id); got != advice {
			t.Errorf("en.toml %s = %q, but the advice is %q", id, got, advice)
		}
		for _, l := range i18n.Langs {
			if !l.Has(id) {
				t.Errorf("%s has no %s", i18n.CatalogFile(l), id)
			}
		}
	}
	for _, m := range Mistakes {
		if m.Advice != "" && adviceIDs[m.Advice] == "" {
			t.Errorf("mistake %q: its advice has no message in the catalog", m.Name)
		}
	}
}

// Every mistake's name has its words in each catalog, the English the
// name itself (a gradebook keeps the name; SayMistake says it).
func TestMistakeNamesInTheCatalog(t *testing.T) {
	defer i18n.Set(i18n.Current())
	for _, m := range Mistakes {
		id := MistakeID(m.Name)
		for _, l := range i18n.Langs {
			if !l.Has(id) {
				t.Errorf("%s lacks %s (%q)", i18n.CatalogFile(l), id, m.Name)
			}
		}
		if got := i18n.English.T(id); got != m.Name {
			t.Errorf("%s is %q in English, the name is %q", id, got, m.Name)
		}
		i18n.Set(i18n.Japanese)
		if got := SayMistake(m.Name); got == m.Name {
			t.Errorf("SayMistake(%q) in Japanese is the English", m.Name)
		}
		i18n.Set(i18n.English)
		if got := SayMistake(m.Name); got != m.Name {
			t.Errorf("SayMistake(%q) in English is %q", m.Name, got)
		}
	}
	if got := SayMistake("another cnpa's mistake"); got != "another cnpa's mistake" {
		t.Errorf("an unknown name is said as %q", got)
	}
}

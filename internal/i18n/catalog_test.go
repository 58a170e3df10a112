package i18n

import (
	"bufio"
	"bytes"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"

	"github.com/labhub/cnpa/internal/i18n/internal/catalogsrc"
)

// readCatalog parses l's catalog file as gencatalog does, by ID.
func readCatalog(t *testing.T, l Lang) map[string]*goi18n.Message {
	t.Helper()
	cats, err := catalogsrc.Read("catalog")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*goi18n.Message{}
	for _, m := range cats[string(l)] {
		out[m.ID] = m
	}
	return out
}

// The program's messages are the catalog files': catalog_gen.go is what
// gencatalog makes of them now, and every message of every language is
// said as its file says it (Japanese typeset: Typeset).
func TestGeneratedCatalog(t *testing.T) {
	want, err := catalogsrc.Source("catalog")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("catalog_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("catalog_gen.go is not what the catalogs make: run `go generate ./internal/i18n`")
	}
	for _, l := range Langs {
		cat := readCatalog(t, l)
		if len(cat) != len(compiled(l)) {
			t.Errorf("%s: %d messages in the file, %d compiled", CatalogFile(l), len(cat), len(compiled(l)))
		}
		for id, m := range cat {
			if m.Other == "" || strings.Contains(m.Other, "{{") || m.One != "" {
				continue
			}
			want := m.Other
			if l == Japanese {
				want = Typeset(want)
			}
			if got := l.T(id); got != want {
				t.Errorf("%s %s: said %q, the file has %q", CatalogFile(l), id, got, m.Other)
			}
		}
	}
}

// placeholder is {{.Name}} (or {{ .Name }}) in a message.
var placeholder = regexp.MustCompile(`\{\{-?\s*\.(\w+)\s*-?\}\}`)

// placeholders are every placeholder of every plural form of m.
func placeholders(m *goi18n.Message) []string {
	set := map[string]bool{}
	for _, form := range []string{m.Zero, m.One, m.Two, m.Few, m.Many, m.Other} {
		for _, p := range placeholder.FindAllStringSubmatch(form, -1) {
			set[p[1]] = true
		}
	}
	var out []string
	for p := range set {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Every message is in every language, with the same placeholders, and a
// form for "other" (the one form Japanese has).
func TestCatalog(t *testing.T) {
	en := readCatalog(t, English)
	if len(en) == 0 {
		t.Fatal("the English catalog is empty")
	}
	for _, l := range Langs {
		c := readCatalog(t, l)
		for id, m := range en {
			tr, ok := c[id]
			if !ok {
				t.Errorf("%s: %s has no translation", CatalogFile(l), id)
				continue
			}
			if tr.Other == "" {
				t.Errorf("%s: %s has no \"other\" form", CatalogFile(l), id)
			}
			if want, got := placeholders(m), placeholders(tr); !slices.Equal(want, got) {
				t.Errorf("%s: %s has placeholders %v, English has %v", CatalogFile(l), id, got, want)
			}
		}
		for id := range c {
			if _, ok := en[id]; !ok {
				t.Errorf("%s: %s is not a message (the English catalog has no %s)", CatalogFile(l), id, id)
			}
		}
	}
}

// A message asked for with a count (i18n.N) has plural forms: in English
// "one" and "other"; and a message with forms is one asked for with a
// count (its ID starts "plural.", so that call sites show it).
func TestCatalogPlurals(t *testing.T) {
	for id, m := range readCatalog(t, English) {
		plural := strings.HasPrefix(id, "plural.")
		if plural != (m.One != "") || m.Other == "" {
			t.Errorf("en.toml: %s: one %q, other %q: a plural.* message has both, any other only other", id, m.One, m.Other)
		}
	}
}

// glossary is catalog/glossary.tsv: term, the lab text's Japanese, English,
// and the Japanese words the lab text does not use for it.
type glossaryRow struct{ term, ja, en, avoid string }

func readGlossary(t *testing.T) []glossaryRow {
	t.Helper()
	f, err := os.Open("catalog/glossary.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []glossaryRow
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 || line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 4 {
			t.Fatalf("glossary.tsv:%d: %d columns, want 4 (term, ja, en, avoid)", n, len(cols))
		}
		rows = append(rows, glossaryRow{cols[0], cols[1], cols[2], cols[3]})
	}
	return rows
}

// The Japanese uses the lab text's own words: none of the words the
// glossary says the text does not use appears in the Japanese catalog.
func TestJapaneseUsesTheLabTextsWords(t *testing.T) {
	rows := readGlossary(t)
	if len(rows) < 10 {
		t.Fatalf("glossary has %d terms", len(rows))
	}
	for id, m := range readCatalog(t, Japanese) {
		text := m.Other + m.One
		for _, r := range rows {
			for _, bad := range strings.Split(r.avoid, ",") {
				if bad = strings.TrimSpace(bad); bad != "" && strings.Contains(text, bad) {
					t.Errorf("ja.toml: %s says %q: the lab text says %q (%s)", id, bad, r.ja, r.term)
				}
			}
		}
	}
}

// Neither catalog says "LAB.md": the learner never has that file.
func TestNoLABmd(t *testing.T) {
	for _, l := range Langs {
		for id, m := range readCatalog(t, l) {
			if strings.Contains(m.Other+m.One, "LAB.md") {
				t.Errorf("%s: %s names LAB.md: say the lab text / ラボの手順", CatalogFile(l), id)
			}
		}
	}
}

// Package i18n is the language cnpa speaks to a learner: which one (chosen
// as kubectl chooses it, from the locale, or --lang / CNPA_LANG), and its
// messages, one catalog file per language in catalog/ (en.toml, ja.toml),
// embedded in the binary and read by github.com/nicksnyder/go-i18n.
//
// A catalog is read only when its language is the one chosen, and only
// when the first message is asked for: a command that prints nothing of
// the catalog (cnpa version) reads none, and one that does reads one file.
//
// Call sites name a message by its ID and give its placeholders:
//
//	i18n.T("explain.why")
//	i18n.T("explain.heading", i18n.Args{"N": 5, "Title": title})
//	i18n.N("check.passed", passed)      // plural: "1 passed", "2 passed"
//
// docs/i18n.md says how to add a message and how to add a language.
package i18n

import (
	"embed"
	"fmt"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
	goi18n "github.com/nicksnyder/go-i18n/v2/i18n"
	"golang.org/x/text/language"
)

// Lang is a language cnpa has a catalog for, by its ISO 639-1 code: the
// name of its catalog file (catalog/ja.toml).
type Lang string

// The two languages with names of their own in the code; the others are
// only in Langs.
const (
	English  Lang = "en"
	Japanese Lang = "ja"
)

// Langs are the languages cnpa speaks, English first (the fallback). To
// add one, add its catalog file and its code here (TestLangsAreTheCatalog
// holds the two together).
var Langs = []Lang{
	English,
	Japanese,
}

//go:embed catalog/*.toml
var catalogs embed.FS

// Args are a message's placeholders by name: {{.Name}} in the catalog.
type Args = map[string]any

// The chosen language, and the catalogs read so far.
var (
	mu      sync.Mutex
	current = English
	loaded  = map[Lang]*goi18n.Localizer{}
)

// Set makes l the language of every message from now on (main calls it
// once, before anything is printed).
func Set(l Lang) {
	mu.Lock()
	defer mu.Unlock()
	current = l
}

// Current is the chosen language.
func Current() Lang {
	mu.Lock()
	defer mu.Unlock()
	return current
}

// T is message id in the chosen language, its placeholders filled from
// args (at most one map). A message the chosen language lacks is said in
// English; one English lacks too is its id (TestCatalog keeps both from
// happening).
func T(id string, args ...Args) string { return Current().T(id, args...) }

// N is T for a message with plural forms: count chooses the form (by the
// language's CLDR rules: English one/other, Japanese other) and is
// {{.Count}} in it.
func N(id string, count int, args ...Args) string { return Current().N(id, count, args...) }

// T is message id in l: see the package function T.
func (l Lang) T(id string, args ...Args) string { return l.localize(id, nil, args) }

// N is message id in l with count's plural form: see the package function N.
func (l Lang) N(id string, count int, args ...Args) string {
	data := Args{"Count": count}
	for _, a := range args {
		for k, v := range a {
			data[k] = v
		}
	}
	return l.localize(id, count, []Args{data})
}

func (l Lang) localize(id string, count any, args []Args) string {
	var data any
	if len(args) > 0 {
		data = args[0]
	}
	cfg := &goi18n.LocalizeConfig{MessageID: id, TemplateData: data, PluralCount: count}
	if s, err := l.localizer().Localize(cfg); err == nil {
		return s
	}
	if l != English {
		if s, err := English.localizer().Localize(cfg); err == nil {
			return s
		}
	}
	return id
}

// localizer reads l's catalog the first time a message of l is asked for.
func (l Lang) localizer() *goi18n.Localizer {
	mu.Lock()
	defer mu.Unlock()
	if loc, ok := loaded[l]; ok {
		return loc
	}
	tag := language.Make(string(l))
	b := goi18n.NewBundle(tag)
	b.RegisterUnmarshalFunc("toml", toml.Unmarshal)
	if _, err := b.LoadMessageFileFS(catalogs, CatalogFile(l)); err != nil {
		// The catalogs are embedded and tested: this is a build gone wrong.
		panic(fmt.Sprintf("i18n: catalog %s: %v", CatalogFile(l), err))
	}
	loc := goi18n.NewLocalizer(b, string(l))
	loaded[l] = loc
	return loc
}

// CatalogFile is the path of l's catalog in the embedded catalogs.
func CatalogFile(l Lang) string { return "catalog/" + string(l) + ".toml" }

// Loaded tells which catalogs have been read, for the tests that hold
// loading to lazy.
func Loaded() []Lang {
	mu.Lock()
	defer mu.Unlock()
	var out []Lang
	for _, l := range Langs {
		if loaded[l] != nil {
			out = append(out, l)
		}
	}
	return out
}

// forget drops the catalogs read, for tests.
func forget() {
	mu.Lock()
	defer mu.Unlock()
	loaded = map[Lang]*goi18n.Localizer{}
}

// Parse is the language a locale value or a --lang value names: "ja",
// "ja_JP", "ja_JP.UTF-8", "ja-JP" and "ja_JP.UTF-8@modifier" all name
// Japanese; "C" and "POSIX" name English. ok is false for a language cnpa
// does not have and for a value that is not a locale.
func Parse(v string) (l Lang, ok bool) {
	v, _, _ = strings.Cut(v, "@")
	v, _, _ = strings.Cut(v, ".")
	if v == "C" || v == "POSIX" {
		return English, true
	}
	code, region, hasRegion := strings.Cut(strings.ReplaceAll(v, "-", "_"), "_")
	if hasRegion && !isLetters(region) {
		return English, false
	}
	code = strings.ToLower(code)
	for _, k := range Langs {
		if string(k) == code {
			return k, true
		}
	}
	return English, false
}

func isLetters(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// LocaleVars are the variables Choose reads, in order: as kubectl (and
// POSIX) reads them, the first one set decides.
var LocaleVars = []string{"LC_ALL", "LC_MESSAGES", "LANG"}

// OverrideVar overrides the locale, as --lang does, for scripts and tests.
const OverrideVar = "CNPA_LANG"

// Choose picks the language: the --lang flag's value when given, else
// CNPA_LANG when set, else the first of LC_ALL, LC_MESSAGES and LANG that
// is set. A locale naming a language cnpa does not have (or none, or
// C/POSIX) gives English, silently; a --lang or CNPA_LANG that names one
// is an error, since someone asked for it by name.
func Choose(flag string, getenv func(string) string) (Lang, error) {
	for _, v := range []struct{ name, value string }{{"--lang", flag}, {OverrideVar, getenv(OverrideVar)}} {
		if v.value == "" {
			continue
		}
		l, ok := Parse(v.value)
		if !ok {
			return English, fmt.Errorf("%s %s: cnpa speaks %s", v.name, v.value, codes())
		}
		return l, nil
	}
	for _, name := range LocaleVars {
		if v := getenv(name); v != "" {
			l, _ := Parse(v)
			return l, nil
		}
	}
	return English, nil
}

// codes is "en or ja" (or "en, ja or ko").
func codes() string {
	var s []string
	for _, l := range Langs {
		s = append(s, string(l))
	}
	if len(s) == 1 {
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// Codes is every language's code, for usage strings: "en|ja".
func Codes() string {
	var s []string
	for _, l := range Langs {
		s = append(s, string(l))
	}
	return strings.Join(s, "|")
}

// Has tells whether l's catalog has message id.
func (l Lang) Has(id string) bool {
	_, err := l.localizer().Localize(&goi18n.LocalizeConfig{MessageID: id})
	return err == nil
}

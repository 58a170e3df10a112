// Package i18n is the language cnpa speaks to a learner: which one (chosen
// as kubectl chooses it, from the locale, or --lang / CNPA_LANG), and its
// messages, one catalog file per language in catalog/ (en.toml, ja.toml),
// which translators edit, served by github.com/nicksnyder/go-i18n.
//
// The catalogs are parsed at build time: `go generate` turns them into
// catalog_gen.go (gencatalog; TestGeneratedCatalog holds the two
// together), as parsing about 100 KB of TOML cost every command that
// printed a message 6.5 ms and 2.3 MB. A language's messages are handed to
// go-i18n only when it is the one chosen, and only when the first message
// is asked for: a command that prints nothing of the catalog (cnpa
// version) loads none, and one that does loads one language.
//
// Call sites name a message by its ID and give its placeholders:
//
//	i18n.T("explain.why")
//	i18n.T("explain.heading", i18n.Args{"N": 5, "Title": title})
//	i18n.N("check.passed", passed)      // plural: "1 passed", "2 passed"
//
// docs/i18n.md says how to add a message and how to add a language.
package i18n

//go:generate go run ./gencatalog

import (
	"fmt"
	"slices"
	"strings"
	"sync"

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
// add one, add its catalog file and its code here, and run go generate
// (TestLangsAreTheCatalog holds the list and the files together).
var Langs = []Lang{
	English,
	Japanese,
}

// Args are a message's placeholders by name: {{.Name}} in the catalog.
type Args = map[string]any

// The chosen language, and the catalogs read so far.
var (
	mu      sync.Mutex
	current = English
	loaded  = map[Lang]*catalog{}
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
		data = said(args[0])
	}
	cfg := &goi18n.LocalizeConfig{MessageID: id, TemplateData: data, PluralCount: count}
	mu.Lock()
	defer mu.Unlock()
	if s, err := l.catalog().say(id, cfg); err == nil {
		return s
	}
	if l != English {
		if s, err := English.catalog().say(id, cfg); err == nil {
			return s
		}
	}
	return id
}

// said is args with every error and fmt.Stringer said as its text, before
// mu is taken: an error or a value that says itself with T (a
// teamspace.Gap, labenv's UnitError) would call T again from inside the
// template, with mu held.
func said(args Args) Args {
	out := make(Args, len(args))
	for k, v := range args {
		switch v := v.(type) {
		case error:
			out[k] = v.Error()
		case fmt.Stringer:
			out[k] = v.String()
		default:
			out[k] = v
		}
	}
	return out
}

// catalog is a language's messages handed to go-i18n so far: one at a
// time, as each is first asked for, since a command says a few dozen of
// its hundreds (all at once cost the first message 0.6 ms and 5,000
// allocations; BenchmarkFirstMessage). mu is held while a message is
// said, as the bundle's maps grow.
type catalog struct {
	lang   Lang
	tag    language.Tag
	bundle *goi18n.Bundle
	loc    *goi18n.Localizer
	added  map[string]bool
}

// catalog is l's, made the first time a message of l is asked for (mu
// held).
func (l Lang) catalog() *catalog {
	if c, ok := loaded[l]; ok {
		return c
	}
	tag := language.Make(string(l))
	b := goi18n.NewBundle(tag)
	if err := b.AddMessages(tag); err != nil {
		// A language without CLDR plural rules: a build gone wrong.
		panic(fmt.Sprintf("i18n: catalog %s: %v", CatalogFile(l), err))
	}
	c := &catalog{lang: l, tag: tag, bundle: b, loc: goi18n.NewLocalizer(b, string(l)), added: map[string]bool{}}
	loaded[l] = c
	return c
}

// say is message id localized by cfg, after handing it to go-i18n if this
// is its first time (mu held: the bundle's maps grow).
func (c *catalog) say(id string, cfg *goi18n.LocalizeConfig) (string, error) {
	if !c.added[id] {
		c.added[id] = true
		msgs := compiled(c.lang)
		if i, ok := slices.BinarySearchFunc(msgs, id, func(m goi18n.Message, id string) int { return strings.Compare(m.ID, id) }); ok {
			m := msgs[i]
			if c.lang == Japanese {
				m.Zero, m.One, m.Two, m.Few, m.Many, m.Other = Typeset(m.Zero), Typeset(m.One), Typeset(m.Two), Typeset(m.Few), Typeset(m.Many), Typeset(m.Other)
			}
			if err := c.bundle.AddMessages(c.tag, &m); err != nil {
				return "", err
			}
		}
	}
	return c.loc.Localize(cfg)
}

// CatalogFile is the path of l's catalog in this package's directory.
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
	loaded = map[Lang]*catalog{}
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
			return English, &UnknownLangError{Name: v.name, Value: v.value}
		}
		return l, nil
	}
	return Locale(getenv), nil
}

// Locale is the language the locale names: the first of LC_ALL,
// LC_MESSAGES and LANG that is set, English for one cnpa does not have.
func Locale(getenv func(string) string) Lang {
	for _, name := range LocaleVars {
		if v := getenv(name); v != "" {
			l, _ := Parse(v)
			return l
		}
	}
	return English
}

// UnknownLangError is a language asked for by name (--lang, CNPA_LANG)
// that cnpa does not have; it is said in the chosen language when
// printed (the locale's, as the one asked for is none).
type UnknownLangError struct{ Name, Value string }

func (e *UnknownLangError) Error() string {
	return T("usage.lang_unknown", Args{"Name": e.Name, "Value": e.Value, "Codes": codes()})
}

// codes is "en or ja" (or "en, ja or ko"), in the chosen language.
func codes() string {
	var s []string
	for _, l := range Langs {
		s = append(s, string(l))
	}
	if len(s) == 1 {
		return s[0]
	}
	return T("usage.lang_list", Args{"Rest": strings.Join(s[:len(s)-1], ", "), "Last": s[len(s)-1]})
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
	mu.Lock()
	defer mu.Unlock()
	_, err := l.catalog().say(id, &goi18n.LocalizeConfig{MessageID: id})
	return err == nil
}

// MessageError is an error that carries a message of the catalog, its id
// and values, and puts it into words when it is shown, in the language
// chosen then: an error made before --lang is read, or kept in a value
// and printed later, is said in the learner's language all the same.
type MessageError struct {
	ID   string
	Args Args
}

func (e *MessageError) Error() string { return T(e.ID, e.Args) }

// NewError is the error of message id with its placeholders' values
// (at most one map), worded when it is shown.
func NewError(id string, args ...Args) error {
	e := &MessageError{ID: id}
	if len(args) > 0 {
		e.Args = args[0]
	}
	return e
}

// Package evidence reads and writes the lab's JSON records under the
// evidence dir (default /root/cnpa-op): atomic writing that never takes a
// learner's file, and strict reading against a shape that reports every
// deviation in key or type. Which files the lab has, and their shapes, are
// package lab's (one file per step); the archive records are the
// controller's, and live here (archive.go).
package evidence

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/labhub/cnpa/internal/atomicfile"
	"github.com/labhub/cnpa/internal/i18n"
	"github.com/labhub/cnpa/internal/manifest"
)

// ArchiveDir is the subdirectory of the evidence dir the controller
// writes its archive records, <name>.json, into.
const ArchiveDir = "archive"

// Kind is the JSON type a key must hold.
type Kind int

// The JSON types evidence uses.
const (
	String Kind = iota
	Integer
	Bool
	NullOrObject
	// IntegerOrString is a key LAB.md gives a value but no type for.
	IntegerOrString
)

func (k Kind) String() string {
	return [...]string{"string", "integer", "boolean", "null or object", "integer or string"}[k]
}

// words is the kind as a problem names it, in the chosen language.
func (k Kind) words() string {
	return i18n.T("evidence.kind." + [...]string{"string", "integer", "boolean", "null_or_object", "integer_or_string"}[k])
}

// Key is one key of a record and its type.
type Key struct {
	Name string
	Kind Kind
}

// AnyWritten tells whether dir holds any of files (paths under dir):
// whether the lab has started there, by cnpa or by hand.
func AnyWritten(dir string, files []string) bool {
	for _, f := range files {
		if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	return false
}

// Write marshals v and writes it to dir/name atomically (package
// atomicfile): a reader sees the old record or the new one, never half.
func Write(dir, name string, v any) (string, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", err
	}
	return WriteRaw(dir, name, append(data, '\n'), 0o644)
}

// WriteRaw writes data to dir/name atomically with the given mode, and
// notes it in dir's manifest (package manifest): `cnpa reset` removes what
// cnpa wrote, never a file of the same name someone else put there. A file
// already there that is the learner's (Theirs) is never overwritten: that
// is a *LearnersFileError (Put with force keeps it as a backup instead).
func WriteRaw(dir, name string, data []byte, mode os.FileMode) (string, error) {
	path, _, err := Put(dir, name, data, mode, false)
	return path, err
}

// WriteForce is Write with Put's force: see Put.
func WriteForce(dir, name string, v any, force bool) (path, backup string, err error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return "", "", err
	}
	return Put(dir, name, append(data, '\n'), 0o644, force)
}

// writeRaw writes and records, whoever's file was there.
func writeRaw(dir, name string, data []byte, mode os.FileMode) (string, error) {
	final := filepath.Join(dir, name)
	if err := atomicfile.WriteFile(final, data, mode); err != nil {
		return "", err
	}
	if err := manifest.Record(dir, name, data); err != nil {
		return "", err
	}
	return final, nil
}

// Problem is one way a record deviates from its shape: What it is, for
// programs (NotJSON, …), and Detail, in the chosen language.
type Problem struct {
	Key    string // empty for the file as a whole
	What   string
	Detail string
}

// What a problem is.
const (
	NotJSON    = "not-json"   // the file is not JSON
	NotObject  = "not-object" // the file is JSON, but no object
	ExtraKey   = "extra-key"  // a key the shape does not have
	Twice      = "twice"      // a key written more than once
	MissingKey = "missing"    // a key of the shape is not there
	WrongType  = "wrong-type" // a key holds another JSON type
	Undecoded  = "undecoded"  // JSON the shape accepts, Go cannot hold
)

func (p Problem) String() string {
	if p.Key == "" {
		return p.Detail
	}
	return p.Key + ": " + p.Detail
}

// Validate checks data against a shape: it is one JSON object with
// exactly the shape's keys, each of its type. Every problem is reported,
// not just the first.
func Validate(shape []Key, data []byte) []Problem {
	if !gjson.ValidBytes(data) {
		return []Problem{{What: NotJSON, Detail: i18n.T("evidence.not_json")}}
	}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		return []Problem{{What: NotObject, Detail: i18n.T("evidence.not_object")}}
	}
	var problems []Problem
	want := map[string]Kind{}
	for _, k := range shape {
		want[k.Name] = k.Kind
	}
	var extra []string
	seen := map[string]int{}
	root.ForEach(func(key, _ gjson.Result) bool {
		seen[key.String()]++
		if _, ok := want[key.String()]; !ok {
			extra = append(extra, key.String())
		}
		return true
	})
	sort.Strings(extra)
	for _, k := range extra {
		problems = append(problems, Problem{Key: k, What: ExtraKey, Detail: i18n.T("evidence.extra_key")})
	}
	for _, k := range shape {
		if seen[k.Name] > 1 {
			problems = append(problems, Problem{Key: k.Name, What: Twice, Detail: i18n.T("evidence.twice")})
		}
		v := root.Get(gjson.Escape(k.Name))
		if !v.Exists() {
			problems = append(problems, Problem{Key: k.Name, What: MissingKey, Detail: i18n.T("evidence.missing", i18n.Args{"Kind": k.Kind.words()})})
			continue
		}
		if !kindMatches(k.Kind, v) {
			problems = append(problems, Problem{Key: k.Name, What: WrongType,
				Detail: i18n.T("evidence.wrong_type", i18n.Args{"Got": i18n.T("evidence.value." + kindOf(v)), "Raw": clip(v.Raw), "Kind": k.Kind.words()})})
		}
	}
	return problems
}

func kindMatches(k Kind, v gjson.Result) bool {
	switch k {
	case String:
		return v.Type == gjson.String
	case Bool:
		return v.Type == gjson.True || v.Type == gjson.False
	case Integer:
		return v.Type == gjson.Number && isInteger(v.Raw)
	case NullOrObject:
		return v.Type == gjson.Null || v.IsObject()
	case IntegerOrString:
		return v.Type == gjson.String || (v.Type == gjson.Number && isInteger(v.Raw))
	}
	return false
}

// isInteger accepts JSON numbers written without fraction or exponent.
func isInteger(raw string) bool {
	raw = strings.TrimPrefix(raw, "-")
	if raw == "" {
		return false
	}
	for _, r := range raw {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// kindOf is the JSON type v holds, as the catalog names it
// (evidence.value.*).
func kindOf(v gjson.Result) string {
	switch {
	case v.Type == gjson.String:
		return "string"
	case v.Type == gjson.True || v.Type == gjson.False:
		return "boolean"
	case v.Type == gjson.Number && isInteger(v.Raw):
		return "integer"
	case v.Type == gjson.Number:
		return "number"
	case v.Type == gjson.Null:
		return "null"
	case v.IsArray():
		return "array"
	case v.IsObject():
		return "object"
	}
	return "unknown"
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// Read reads dir/name, checks it against shape, and decodes it into v when
// the shape holds. A missing file is reported as os.ErrNotExist (wrapped).
func Read(dir, name string, shape []Key, v any) ([]Problem, error) {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	return Parse(shape, data, v), nil
}

// Parse is Read on bytes already read: it checks data against shape and
// decodes it into v (when v is not nil) when the shape holds.
func Parse(shape []Key, data []byte, v any) []Problem {
	problems := Validate(shape, data)
	if len(problems) > 0 || v == nil {
		return problems
	}
	if err := json.Unmarshal(data, v); err != nil {
		return []Problem{{What: Undecoded, Detail: err.Error()}}
	}
	return nil
}

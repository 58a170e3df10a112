// Package evidence owns the lab's JSON records under the evidence dir
// (default /root/cnpa-op): their exact shapes as LAB.md names them, atomic
// writing, and strict reading that reports every deviation in key or type.
package evidence

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/labhub/cnpa/internal/atomicfile"
	"github.com/labhub/cnpa/internal/manifest"
)

// File names, as LAB.md gives them.
const (
	BeforeFile     = "before.json"
	GenerationFile = "generation.json"
	ReconcileFile  = "reconcile.json"
	DriftFile      = "drift.json"
	CleanupFile    = "cleanup.json"
	CatchupFile    = "catchup.json"
	ReportFile     = "report.json"
	// ArchiveDir is the subdirectory the controller writes <name>.json into.
	ArchiveDir = "archive"
)

// Before is step 1's before.json.
type Before struct {
	UID             string `json:"uid"`
	NamespaceExists bool   `json:"namespace_exists"`
}

// Generation is step 2's generation.json. StatusViaMain is alpha's .status
// right after the main-endpoint patch: JSON null when absent.
type Generation struct {
	UID           string          `json:"uid"`
	GenInitial    int64           `json:"gen_initial"`
	GenAfterLabel int64           `json:"gen_after_label"`
	GenAfterSpec  int64           `json:"gen_after_spec"`
	StatusViaMain json.RawMessage `json:"status_via_main"`
}

// Reconcile is step 3's reconcile.json.
type Reconcile struct {
	QuotaUID            string `json:"quota_uid"`
	NamespaceOwnerUID   string `json:"namespace_owner_uid"`
	SecondPassRVChanged bool   `json:"second_pass_rv_changed"`
}

// Drift is step 5's drift.json.
type Drift struct {
	DeletedUID     string `json:"deleted_uid"`
	RestoredUID    string `json:"restored_uid"`
	RestoreSeconds int64  `json:"restore_seconds"`
	// EditedTo is the value the hand edit set. LAB.md gives it as 99
	// without a type, so a learner's "99" is as good as cnpa's 99.
	EditedTo   json.Number `json:"edited_to"`
	RevertedTo int64       `json:"reverted_to"`
}

// Cleanup is step 6's cleanup.json.
type Cleanup struct {
	UID           string `json:"uid"`
	BlockedSeen   bool   `json:"blocked_seen"`
	NamespaceGone bool   `json:"namespace_gone"`
}

// Catchup is step 7's catchup.json; quota values stay strings, as the API
// returns them.
type Catchup struct {
	Generation            int64  `json:"generation"`
	ObservedWhileStopped  int64  `json:"observed_while_stopped"`
	QuotaPodsWhileStopped string `json:"quota_pods_while_stopped"`
	ObservedAfterStart    int64  `json:"observed_after_start"`
	QuotaPodsAfterStart   string `json:"quota_pods_after_start"`
}

// Report is step 8's report.json.
type Report struct {
	CRDAloneCreatedNamespace      bool   `json:"crd_alone_created_namespace"`
	StatusBumpsGeneration         bool   `json:"status_bumps_generation"`
	RestoreSeconds                int64  `json:"restore_seconds"`
	Finalizer                     string `json:"finalizer"`
	Archived                      string `json:"archived"`
	GenerationsBehindWhileStopped int64  `json:"generations_behind_while_stopped"`
	Trigger                       string `json:"trigger"`
}

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

// Key is one key of a record and its type.
type Key struct {
	Name string
	Kind Kind
}

// Shapes lists, per file, exactly the keys LAB.md names, in its order;
// ArchiveFile stands for every archive record.
var Shapes = map[string][]Key{
	BeforeFile:     {{"uid", String}, {"namespace_exists", Bool}},
	GenerationFile: {{"uid", String}, {"gen_initial", Integer}, {"gen_after_label", Integer}, {"gen_after_spec", Integer}, {"status_via_main", NullOrObject}},
	ReconcileFile:  {{"quota_uid", String}, {"namespace_owner_uid", String}, {"second_pass_rv_changed", Bool}},
	DriftFile:      {{"deleted_uid", String}, {"restored_uid", String}, {"restore_seconds", Integer}, {"edited_to", IntegerOrString}, {"reverted_to", Integer}},
	CleanupFile:    {{"uid", String}, {"blocked_seen", Bool}, {"namespace_gone", Bool}},
	CatchupFile:    {{"generation", Integer}, {"observed_while_stopped", Integer}, {"quota_pods_while_stopped", String}, {"observed_after_start", Integer}, {"quota_pods_after_start", String}},
	ReportFile:     {{"crd_alone_created_namespace", Bool}, {"status_bumps_generation", Bool}, {"restore_seconds", Integer}, {"finalizer", String}, {"archived", String}, {"generations_behind_while_stopped", Integer}, {"trigger", String}},
	ArchiveFile:    {{"name", String}, {"uid", String}, {"pods", Integer}},
}

// Files is every evidence file the steps write, in lab order (the archive
// records are the controller's).
var Files = []string{BeforeFile, GenerationFile, ReconcileFile, DriftFile, CleanupFile, CatchupFile, ReportFile}

// AnyWritten tells whether dir holds any evidence file, or an archive
// record: whether the lab has started there, by cnpa or by hand.
func AnyWritten(dir string) bool {
	for _, f := range Files {
		if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
			return true
		}
	}
	_, err := os.Lstat(filepath.Join(dir, ArchiveDir, "beta.json"))
	return err == nil
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

// Problem is one way a record deviates from its shape.
type Problem struct {
	Key    string // empty for the file as a whole
	Detail string
}

func (p Problem) String() string {
	if p.Key == "" {
		return p.Detail
	}
	return p.Key + ": " + p.Detail
}

// Validate checks data against the shape of file name: it is one JSON
// object with exactly the named keys, each of its type. Every problem is
// reported, not just the first.
func Validate(name string, data []byte) []Problem {
	shape, ok := Shapes[name]
	if !ok {
		return []Problem{{Detail: "not an evidence file of the lab"}}
	}
	if !gjson.ValidBytes(data) {
		return []Problem{{Detail: "is not valid JSON"}}
	}
	root := gjson.ParseBytes(data)
	if !root.IsObject() {
		return []Problem{{Detail: "is not a JSON object"}}
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
		problems = append(problems, Problem{Key: k, Detail: "extra key: LAB.md does not name it"})
	}
	for _, k := range shape {
		if seen[k.Name] > 1 {
			problems = append(problems, Problem{Key: k.Name, Detail: "appears more than once"})
		}
		v := root.Get(gjson.Escape(k.Name))
		if !v.Exists() {
			problems = append(problems, Problem{Key: k.Name, Detail: "missing (want " + k.Kind.String() + ")"})
			continue
		}
		if got := kindOf(v); !kindMatches(k.Kind, v) {
			problems = append(problems, Problem{Key: k.Name, Detail: fmt.Sprintf("is %s %s, want %s", got, clip(v.Raw), k.Kind)})
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

func kindOf(v gjson.Result) string {
	switch {
	case v.Type == gjson.String:
		return "a string"
	case v.Type == gjson.True || v.Type == gjson.False:
		return "a boolean"
	case v.Type == gjson.Number && isInteger(v.Raw):
		return "an integer"
	case v.Type == gjson.Number:
		return "a non-integer number"
	case v.Type == gjson.Null:
		return "null"
	case v.IsArray():
		return "an array"
	case v.IsObject():
		return "an object"
	}
	return "unknown"
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:37] + "..."
	}
	return s
}

// Read reads dir/name, checks its shape, and decodes it into v when the
// shape holds. A missing file is reported as os.ErrNotExist (wrapped).
func Read(dir, name string, v any) ([]Problem, error) {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	return Parse(name, data, v), nil
}

// Parse is Read on bytes already read: it checks data's shape as file
// name and decodes it into v (when v is not nil) when the shape holds.
func Parse(name string, data []byte, v any) []Problem {
	problems := Validate(name, data)
	if len(problems) > 0 || v == nil {
		return problems
	}
	if err := json.Unmarshal(data, v); err != nil {
		return []Problem{{Detail: err.Error()}}
	}
	return nil
}

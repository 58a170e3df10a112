package lab

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/labhub/cnpa/internal/evidence"
	"github.com/labhub/cnpa/internal/i18n"
)

// State is the lab's evidence dir as read once: every evidence file, the
// archive record of beta, and how each deviates from its shape. `cnpa
// check`, the steps' ✓/✗ lines and `cnpa report` read the dir into one
// State, and every rule, hint and page reads that value: nothing opens an
// evidence file a second time, so all of them judge the same moment.
type State struct {
	Dir string
	// Records is every file of Files, present or not.
	Records map[string]*Record
	// Archive is archive/beta.json, nil when missing or unreadable;
	// ArchiveErr is what evidence.ReadArchive said about it.
	Archive    *evidence.ArchiveRecord
	ArchiveErr error

	// steps is the table the dir was read by.
	steps Table
}

// Record is one evidence file as read. Its problems are sorted by whom
// they concern: the file as a whole (it is missing, not JSON, has an extra
// key) or one named key (missing, wrong type). That is what lets a damaged
// key fail its own check and nothing else.
type Record struct {
	File string
	// Step is the number of the step that writes the file.
	Step int
	// Problem makes the whole record unreadable, in words of the chosen
	// language ("missing", "is not a JSON object", ...); empty when the
	// keys can be read.
	Problem string
	// Extra lists whole-file problems that still leave the keys readable:
	// keys the lab text does not name, keys written twice (in words).
	Extra []string
	// KeyProblems is, per key, why its value cannot be used (in words).
	KeyProblems map[string]string
	// Values are the keys that decode, as the rules read them (Decode).
	Values map[string]any
	// Kinds are the file's keys and their JSON types (the step's Shape).
	Kinds map[string]evidence.Kind
	// shape is the file's keys in LAB.md's order (the step's Shape).
	shape []evidence.Key

	// data and err are the read itself: the file's bytes, or why it could
	// not be read (wrapping fs.ErrNotExist when it is missing).
	data []byte
	err  error
}

// BetaArchive is the archive record the rules compare with, as a path
// under the evidence dir.
var BetaArchive = filepath.Join(evidence.ArchiveDir, "beta.json")

// Read reads every evidence file of dir and archive/beta.json, once.
func (t Table) Read(dir string) *State {
	st := &State{Dir: dir, Records: map[string]*Record{}, steps: t}
	for _, s := range t {
		if s.File == "" {
			continue
		}
		data, err := ReadEvidence(filepath.Join(dir, s.File))
		st.Records[s.File] = parseRecord(s, data, err)
	}
	st.Archive, st.ArchiveErr = evidence.ReadArchive(filepath.Join(dir, evidence.ArchiveDir), "beta")
	return st
}

// Steps is the table the dir was read by.
func (st *State) Steps() Table { return st.steps }

// parseRecord checks data strictly (evidence.Validate) and decodes every
// key whose type is right: strings as string, integers as int64, booleans
// as bool, null-or-object keys as json.RawMessage.
func parseRecord(s *Step, data []byte, err error) *Record {
	r := &Record{File: s.File, Step: s.Number, KeyProblems: map[string]string{}, Values: map[string]any{}, Kinds: map[string]evidence.Kind{},
		shape: s.Shape, data: data, err: err}
	for _, k := range s.Shape {
		r.Kinds[k.Name] = k.Kind
	}
	if errors.Is(err, fs.ErrNotExist) {
		r.Problem = i18n.T("lab.record.missing")
		return r
	}
	if err != nil {
		r.Problem = i18n.T("lab.record.unreadable", i18n.Args{"Err": err.Error()})
		return r
	}
	for _, p := range evidence.Validate(r.shape, data) {
		switch _, named := r.Kinds[p.Key]; {
		case p.Key == "":
			r.Problem = p.Detail
		case named && p.What != evidence.Twice:
			r.KeyProblems[p.Key] = p.Detail
		default:
			r.Extra = append(r.Extra, p.String())
		}
	}
	if r.Problem != "" {
		return r
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		// Validate accepted it, so this is a value Go cannot hold (an
		// integer beyond int64, say): the whole file is then unusable.
		r.Problem = i18n.T("lab.record.undecoded", i18n.Args{"Err": err.Error()})
		return r
	}
	for key, kind := range r.Kinds {
		if _, bad := r.KeyProblems[key]; bad {
			continue
		}
		v, err := Decode(kind, raw[key])
		if err != nil {
			r.KeyProblems[key] = i18n.T("lab.record.undecoded", i18n.Args{"Err": err.Error()})
			continue
		}
		r.Values[key] = v
	}
	return r
}

// Missing tells whether the file does not exist.
func (r *Record) Missing() bool { return r.Problem != "" && errors.Is(r.err, fs.ErrNotExist) }

// Found is what the file check found of a record that cannot be read at
// all ("before.json missing"), in the chosen language.
func (r *Record) Found() string {
	return i18n.T("lab.record.found", i18n.Args{"File": r.File, "Problem": r.Problem})
}

// Unusable tells why the record cannot be read at all, or "".
func (r *Record) Unusable() string {
	if r.Problem == "" {
		return ""
	}
	// In English a problem of the file as a whole reads "is not valid
	// JSON": after "is" it is said without its own.
	return i18n.T("lab.record.unusable", i18n.Args{"File": r.File, "Problem": strings.TrimPrefix(r.Problem, "is "), "N": r.Step})
}

// KeyFound is what a key's check found of a key that cannot be used
// ("uid missing (want string)"), in the chosen language.
func (r *Record) KeyFound(key string) string {
	return i18n.T("lab.record.key_found", i18n.Args{"Key": key, "Problem": r.KeyProblems[key]})
}

// Get returns key's value, or why it cannot be used (for checks that only
// read it: they are then skipped, the key's own check fails).
func (r *Record) Get(key string) (any, string) {
	if why := r.Unusable(); why != "" {
		return nil, why
	}
	if p, bad := r.KeyProblems[key]; bad {
		return nil, i18n.T("lab.record.key_unusable", i18n.Args{"File": r.File, "Key": key, "Problem": p})
	}
	return r.Values[key], ""
}

// Str is Get of a string key.
func (r *Record) Str(key string) (string, string) {
	v, why := r.Get(key)
	s, _ := v.(string)
	return s, why
}

// Int is Get of an integer key.
func (r *Record) Int(key string) (int64, string) {
	v, why := r.Get(key)
	n, _ := v.(int64)
	return n, why
}

// Strict is the whole record or nothing: every key decoded as the rules
// read it, or one error naming the file and every problem.
func (r *Record) Strict() (map[string]any, error) {
	switch {
	case errors.Is(r.err, fs.ErrNotExist):
		return nil, i18n.NewError("lab.record.is_missing", i18n.Args{"File": r.File})
	case r.err != nil:
		return nil, fmt.Errorf("%s: %w", i18n.T("lab.record.is_unreadable", i18n.Args{"File": r.File}), r.err)
	}
	if problems := evidence.Validate(r.shape, r.data); len(problems) > 0 {
		return nil, fmt.Errorf("%s: %v", r.File, problems)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(r.data, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", i18n.T("lab.record.does_not_decode", i18n.Args{"File": r.File}), err)
	}
	values := map[string]any{}
	for _, k := range r.shape {
		v, err := Decode(k.Kind, raw[k.Name])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", i18n.T("lab.record.key_does_not_decode", i18n.Args{"File": r.File, "Key": k.Name}), err)
		}
		values[k.Name] = v
	}
	return values, nil
}

// decode is evidence.Read on the bytes already read: the read's error, or
// the shape's problems, or v filled.
func (r *Record) decode(v any) ([]evidence.Problem, error) {
	if r.err != nil {
		return nil, r.err
	}
	return evidence.Parse(r.shape, r.data, v), nil
}

// MaxEvidence is the most ReadEvidence reads of one file: an evidence
// file holds a few hundred bytes.
const MaxEvidence = 1 << 20

// ReadEvidence reads the learner's file at path, which may be anything:
// opened without blocking (a FIFO in its place would wait for a writer
// forever), and refused, said, when it is not a regular file or holds
// more than MaxEvidence bytes. A missing file wraps fs.ErrNotExist.
func ReadEvidence(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, i18n.NewError("lab.read.not_regular", i18n.Args{"Mode": fi.Mode().String()})
	case fi.Size() > MaxEvidence:
		return nil, i18n.NewError("lab.read.too_large", i18n.Args{"Size": fi.Size(), "Max": MaxEvidence})
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxEvidence+1))
	if err == nil && len(data) > MaxEvidence {
		return nil, i18n.NewError("lab.read.too_large", i18n.Args{"Size": len(data), "Max": MaxEvidence})
	}
	return data, err
}

// Package manifest is cnpa's own record of the files it wrote into a
// directory, so that `cnpa reset` removes those and nothing else: a
// learner's crd.yaml or notes.json in the same directory, written by hand,
// is never cnpa's to delete, however generic its name.
//
// The record is <dir>/.cnpa/manifest.jsonl, one JSON object per line,
// appended (O_APPEND, one write per line) so that several writers at once
// (a step, the controller's workers, reconcile.sh) never lose each other's
// entries. The last entry for a name wins. The hidden directory OwnDir is
// cnpa's alone: everything under it is cnpa's own.
package manifest

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// OwnDir is the directory under a directory cnpa writes into that holds
// the files cnpa keeps for itself (the manifest, timelines, the last
// check), never the learner's.
const OwnDir = ".cnpa"

// File is the manifest's path relative to the directory it describes.
const File = OwnDir + "/manifest.jsonl"

// Entry says that cnpa wrote Name (relative to the directory) with
// content of hash SHA256. An empty SHA256 means any content is cnpa's: a
// log cnpa's service appends to, or a record reconcile.sh wrote.
type Entry struct {
	Name   string `json:"path"`
	SHA256 string `json:"sha256,omitempty"`
}

// Record notes that cnpa wrote dir/name with data; nil data records the
// name alone (see Entry).
func Record(dir, name string, data []byte) error {
	e := Entry{Name: name}
	if data != nil {
		e.SHA256 = Sum(data)
	}
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, OwnDir), 0o755); err != nil {
		return fmt.Errorf("record %s in cnpa's manifest: %w", name, err)
	}
	f, err := os.OpenFile(filepath.Join(dir, File), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("record %s in cnpa's manifest: %w", name, err)
	}
	_, werr := f.Write(append(line, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("record %s in cnpa's manifest: %w", name, werr)
	}
	return nil
}

// Sum is the hex SHA-256 the manifest keeps of a file's content.
func Sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// Read returns the entries of dir's manifest, the last one per name, in
// the order the names were first written. A dir without a manifest has
// none. A line that does not parse (cut short by a crash) is skipped: it
// names no file cnpa finished writing.
func Read(dir string) ([]Entry, error) {
	f, err := os.Open(filepath.Join(dir, File))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read cnpa's manifest: %w", err)
	}
	defer f.Close()
	var order []string
	last := map[string]Entry{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e Entry
		if json.Unmarshal(sc.Bytes(), &e) != nil || !safeName(e.Name) {
			continue
		}
		if _, seen := last[e.Name]; !seen {
			order = append(order, e.Name)
		}
		last[e.Name] = e
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read cnpa's manifest %s: %w", filepath.Join(dir, File), err)
	}
	out := make([]Entry, 0, len(order))
	for _, n := range order {
		out = append(out, last[n])
	}
	return out, nil
}

// safeName keeps a manifest entry inside its directory: a plain relative
// name, never absolute, never with "..", never inside OwnDir (which goes
// as a whole).
func safeName(name string) bool {
	return name != "" && filepath.IsLocal(name) && filepath.Clean(name) == name &&
		name != OwnDir && !strings.HasPrefix(name, OwnDir+"/")
}

// Status is what became of a file cnpa wrote.
type Status int

const (
	// Unchanged: the file holds what cnpa wrote (or is one whose content
	// cnpa does not track): cnpa's to remove.
	Unchanged Status = iota
	// Changed: someone rewrote it since; it is theirs now.
	Changed
	// Missing: it is gone already.
	Missing
	// NotAFile: a directory or something else stands at its name now.
	NotAFile
)

// Check tells what became of the file an entry names.
func Check(dir string, e Entry) (Status, error) {
	p := filepath.Join(dir, e.Name)
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Missing, nil
	}
	if err != nil {
		return 0, err
	}
	if !fi.Mode().IsRegular() {
		return NotAFile, nil
	}
	if e.SHA256 == "" {
		return Unchanged, nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return 0, err
	}
	if Sum(data) != e.SHA256 {
		return Changed, nil
	}
	return Unchanged, nil
}
